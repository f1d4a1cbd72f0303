/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel's entry points (hal/entry.h) and what boot leaves behind. */
#ifndef KPROF_KERNEL_KERNEL_H
#define KPROF_KERNEL_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

/* True once the boot story has the scheduler up: other CPUs may enter
 * kernel_ap_main(). */
bool kernel_cpus_ready(void);

/* The boot story says the scheduler is up (kernel_cpus_ready()). */
void kernel_publish_cpus_ready(void);

/* Nanoseconds since kernel_clock_start(), the boot story's first step. */
uint64_t kernel_uptime_ns(void);
void kernel_clock_start(void);

/* Stop the machine with a message: every CPU halts, the console is taken
 * even if its holder was interrupted (the protocol: kernel/panic.h). */
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
