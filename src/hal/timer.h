/* SPDX-License-Identifier: BSD-2-Clause */
/* The per-CPU tick and the monotonic clock.  The tick's rate is the
 * portable kernel's (kernel/tick.c: tick.hz=, else the platform's
 * default); the platform only makes its hardware deliver it. */
#ifndef KPROF_HAL_TIMER_H
#define KPROF_HAL_TIMER_H

#include <stdint.h>

/* What the platform says of its tick, as data for the portable tick to
 * decide and print with. */
struct hal_timer_info {
	/* What delivers the tick, for the report header and lscpu: "tick"
	 * (a timer interrupt), "tick/sigprof" (the simulator's signal). */
	const char *name;
	/* The rate, in ticks per second per CPU, when the boot names none
	 * (100 on a kernel; the simulator's --hz). */
	unsigned default_hz;
	/* How long a CPU of this platform may take to answer a request made
	 * through its tick (arm the profiler, acknowledge its stop) before
	 * the asker gives up on it, in time, whatever the rate: a few ticks'
	 * worth on hardware, more where CPUs are an emulator's or the host's
	 * threads, which a loaded host may leave unscheduled for a while. */
	uint64_t answer_ns;
	/* The tick's interrupt as `trace` names it (irq_entry): the x86
	 * vector, the arm64 INTID, the simulator's signal number. */
	unsigned irq;
};

/* Fill @info.  Any context; never sleeps. */
void hal_timer_info(struct hal_timer_info *info);

/* The boot story's first tick step: prepare the clock and the tick
 * (x86: calibrate the local APIC timer against the TSC) without
 * delivering it yet.  Boot CPU, once, after memory, before
 * the banner (hal_platform_facts()). */
void hal_timer_init(void);

/* The second: every CPU ticks at @hz (within the range kernel/tick.h
 * allows, or the simulator's --hz), calling kernel_tick(tf) on the CPU it
 * interrupted: the boot CPU from now on (delivered once its interrupts
 * are on), each other CPU as it starts.  Boot CPU, once, after the
 * command line, before hal_cpus_start(). */
void hal_timer_start(unsigned hz);

/* Nanoseconds since boot, monotonic, the same clock on every CPU.
 * Any context; never sleeps. */
uint64_t hal_clock_ns(void);

#endif
