/* Boot-time glue of the portable kernel. */
#ifndef KPROF_KERNEL_KERNEL_H
#define KPROF_KERNEL_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

/* True once kernel_main() has the scheduler up: other CPUs may enter
 * kernel_ap_main(). */
bool kernel_cpus_ready(void);

/* Nanoseconds since kernel_main() began. */
uint64_t kernel_uptime_ns(void);

/* Stop the machine with a message: every CPU halts, the console is taken
 * even if its holder was interrupted. */
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
