/* SPDX-License-Identifier: BSD-2-Clause */
/* The per-CPU tick and the monotonic clock. */
#ifndef KPROF_HAL_TIMER_H
#define KPROF_HAL_TIMER_H

#include <stdint.h>

/* Ticks per second on every CPU.  The platform's timer interrupt calls
 * kernel_tick(tf) on the CPU it interrupted, HZ times a second. */
#define HZ 100

/* The boot story's tick step: prepare this CPU's tick (x86: calibrate
 * the local APIC timer against the TSC) without delivering it yet.  Boot
 * CPU, once, after memory, before hal_platform_banner(). */
void hal_timer_init(void);

/* Nanoseconds since boot, monotonic, the same clock on every CPU.
 * Any context; never sleeps. */
uint64_t hal_clock_ns(void);

/* The tick as a sample source, for the report header and lscpu, naming
 * what really delivers it and its real rate ("tick 100hz",
 * "tick/sigprof 100hz").  Any context; the string lives forever. */
const char *hal_timer_tick_source(void);

/* The tick's real rate in ticks per second per CPU (HZ on a kernel; the
 * simulator's --hz): what the tick samples at when it is the source.
 * Any context. */
unsigned hal_timer_hz(void);

/* How long a CPU of this platform may take to answer a request made
 * through its tick (arm the profiler, acknowledge its stop) before the
 * asker gives up on it: a few ticks on a kernel (more where its CPUs are
 * an emulator's threads); in the simulator, where a
 * CPU is a host thread the host may leave unscheduled for a while, long
 * enough that only a dead thread misses it.  Any context. */
uint64_t hal_timer_answer_ns(void);

#endif
