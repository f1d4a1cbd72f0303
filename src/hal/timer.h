/* The per-CPU tick and the monotonic clock. */
#ifndef KPROF_HAL_TIMER_H
#define KPROF_HAL_TIMER_H

#include <stdint.h>

/* Ticks per second on every CPU.  The platform's timer interrupt calls
 * kernel_tick(tf) on the CPU it interrupted, HZ times a second. */
#define HZ 100

/* Nanoseconds since boot, monotonic, the same clock on every CPU.
 * Any context; never sleeps. */
uint64_t hal_clock_ns(void);

/* The tick as a sample source, for the report header and lscpu, naming
 * what really delivers it and its real rate ("tick 100hz",
 * "tick/sigprof 100hz").  Any context; the string lives forever. */
const char *hal_timer_tick_source(void);

#endif
