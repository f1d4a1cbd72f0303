/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel's entry points (hal/entry.h) and what boot leaves behind. */
#ifndef KPROF_KERNEL_KERNEL_H
#define KPROF_KERNEL_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

struct trap_frame;

/* True once the boot story has the scheduler up: other CPUs may enter
 * kernel_ap_main(). */
bool kernel_cpus_ready(void);

/* The boot story says the scheduler is up (kernel_cpus_ready()). */
void kernel_publish_cpus_ready(void);

/* Nanoseconds since kernel_clock_start(), the boot story's first step. */
uint64_t kernel_uptime_ns(void);
void kernel_clock_start(void);

/* Hooks: the kernel calls the profiler, which sits above it
 * (doc/internals.md, "Rooms and the dispatch"), only through these.  One
 * function per hook, registered once at boot by its owner (prof_init())
 * before the first run needs it; NULL unregisters.  Each is called on
 * the interrupted CPU, interrupts off, with the rules of that context:
 * the NMI hook may interrupt any code, the tick's anything but an NMI.
 *
 * @fn runs from kernel_tick(), after a panic stop is answered and
 * before the scheduler's tick (which may switch tasks). */
void kernel_on_tick(void (*fn)(struct trap_frame *tf));
/* @fn runs from kernel_nmi() once a panic stop is answered; its answer
 * is kernel_nmi()'s.  Without one, kernel_nmi() claims nothing. */
void kernel_on_nmi(bool (*fn)(struct trap_frame *tf));
/* @fn runs from kernel_pmu_took(). */
void kernel_on_pmu_took(void (*fn)(uint64_t ns));

/* Stop the machine with a message: every CPU halts, the console is taken
 * even if its holder was interrupted (the protocol: kernel/panic.h). */
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
