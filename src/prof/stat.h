/* SPDX-License-Identifier: BSD-2-Clause */
/* Counting mode, `stat`: cycles, instructions and whatever else the
 * platform counts (hal/pmu.h), per CPU, over a window.  Each CPU opens
 * and reads its own counters on its own tick (sampler.c), as the
 * profiler arms; the session holds the one profile lock, since counting
 * and sampling share the counters on real hardware.
 *
 *     stat_start();                   -EBUSY while a profile or stat runs
 *     stat_wait_open(budget, ...);    every CPU opened: the window opens
 *     ... the window passes ...
 *     stat_stop();
 *     stat_wait_closed(budget, ...);  every CPU read its end and closed
 *     stat_report(out, cpu);
 *     stat_end();
 */
#ifndef KPROF_PROF_STAT_H
#define KPROF_PROF_STAT_H

#include <stdbool.h>
#include <stdint.h>

#include "hal/pmu.h"

struct out;

#define STAT_WINDOW_MIN_MS 1
#define STAT_WINDOW_MAX_MS 10000
#define STAT_WINDOW_DEFAULT_MS 1000
/* "Every CPU" for stat_report(). */
#define STAT_CPU_ALL (-1)

/* Begin a session.  Returns 0, or -EBUSY when a profile or another stat
 * holds the counters.  Task context. */
int stat_start(void);

/* Wait until every CPU has opened its events, at most @budget_ns, calling
 * @pause(@ctx) between polls; then the window opens.  Returns the CPUs
 * that never did (they are left out).  The session's holder. */
uint32_t stat_wait_open(uint64_t budget_ns, void (*pause)(void *ctx), void *ctx);

/* End the window: each CPU reads its end values and closes on its next
 * tick. */
void stat_stop(void);

/* Wait until every CPU that opened has closed, at most @budget_ns.
 * Returns the CPUs that never did (left out). */
uint32_t stat_wait_closed(uint64_t budget_ns, void (*pause)(void *ctx), void *ctx);

/* Print the session's counts: one line per CPU (@cpu, or STAT_CPU_ALL
 * for every CPU and their total).  Task context, after
 * stat_wait_closed(). */
void stat_report(struct out *o, int cpu);

/* End the session; the next stat or profile may start. */
void stat_end(void);

#endif
