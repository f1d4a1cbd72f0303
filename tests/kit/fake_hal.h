/* SPDX-License-Identifier: BSD-2-Clause */
/* A fake platform for logic tests: every HAL function, driven by the test.
 * Nothing here runs concurrently; the test plays every CPU in turn. */
#ifndef KPROF_TESTS_FAKE_HAL_H
#define KPROF_TESTS_FAKE_HAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu.h"

/* The interrupted state the test builds and hands to kernel_tick/nmi. */
struct trap_frame {
	uintptr_t ip, fp, sp, lr;
};

extern unsigned fake_cpu;		/* what hal_cpu_id() returns */
extern unsigned fake_ncpus;		/* what hal_cpu_count() returns */
extern uint64_t fake_now_ns;		/* hal_clock_ns() */
extern const char *fake_fw_key;		/* firmware file opt/kprof/udpsh.key, NULL: none */
extern const char *fake_fw_seed;	/* firmware file opt/kprof/random.seed, NULL: none */
extern uint64_t fake_random;		/* hal_random_hw(); 0: no generator */
/* Run once, by the next hal_clock_ns() call, before it reads the clock
 * (then cleared): a test plays what happens at that point of the code. */
extern void (*fake_clock_hook)(void);
extern uint64_t fake_cpu_time[HAL_MAX_CPUS];	/* hal_cpu_time() per CPU */
extern bool fake_irq_off[HAL_MAX_CPUS];

/* Context switches, as the scheduler asked for them. */
struct fake_ctx {
	void (*entry)(void *);
	void *arg;
	void *stack;
	size_t size;
};
/* The return address of the test's exception entry, which calls its
 * handler with the frame pointer at the saved trap frame + 1, as the
 * kernels' entries do (hal_trap_frame_at()); 0: none. */
extern uintptr_t fake_trap_entry_ra;
/* What hal_trap_foreign_name() returns (NULL, as on a kernel). */
extern const char *fake_foreign_name;
/* The image's build-id note hal_image_build_id_note() returns (NULL:
 * none, as by default). */
extern const void *fake_build_id_note;
extern size_t fake_build_id_note_len;
extern unsigned fake_switches;
extern void *fake_last_switch_from, *fake_last_switch_to;
/* The last stack hal_context_release() was told of. */
extern void *fake_released_stack;
/* Runs at the end of every switch, once it is recorded: a test may play
 * the time that passes until the task that switched away runs again. */
extern void (*fake_switch_hook)(void);
/* Runs inside the switch, before the incoming task has run anything: an
 * interrupt that lands in the middle of the switch. */
extern void (*fake_switch_midway_hook)(void);

/* Console: what was written, and bytes for hal_console_getc(). */
extern char fake_console_out[65536];
extern size_t fake_console_len;
void fake_console_clear(void);
void fake_console_input(const char *bytes, size_t n);

/* Calls to hal_cpu_idle(); a hook may run instead of waiting. */
extern unsigned fake_idle_calls;
extern void (*fake_idle_hook)(void);

/* Bring fake CPU @cpu up: sched_cpu_init() on it.  Leaves fake_cpu = cpu. */
void fake_cpu_boot(unsigned cpu);

/* Advance the clocks by @ns and deliver one tick on @cpu. */
void fake_tick(unsigned cpu, uint64_t ns);

#endif
