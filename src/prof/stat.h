/* SPDX-License-Identifier: BSD-2-Clause */
/* Counting mode, `stat`: cycles, instructions and whatever else the
 * platform counts (hal/pmu.h), per CPU, over a window.  Each CPU opens
 * and reads its own counters on its own tick (sampler.c), as the
 * profiler arms; the session holds the one profile lock, since counting
 * and sampling share the counters on real hardware.
 *
 *     stat_start();                   -EBUSY while a profile or stat runs,
 *                                     -EINPROGRESS while a CPU of the last
 *                                     stat has not closed
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

/* Begin a session counting @events (`cycles,{branches,branch-misses}`;
 * NULL: the platform's standard ones) per CPU, and when @pid is not 0
 * that task's too, saved and restored at its switches.  Returns 0,
 * -EBUSY when a profile or another stat holds the counters,
 * -EINPROGRESS while a CPU of an earlier stat still counts
 * (stat_cpus_still_open()), or another negative errno after one line on
 * @o saying what was wrong with @events or @pid (nothing changed).
 * Task context. */
int stat_start_as(struct out *o, const char *events, int pid);

/* stat_start_as() with the standard events, per CPU. */
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

/* Print the session's counts: a plain `stat` one line per CPU (@cpu, or
 * STAT_CPU_ALL for every CPU and their total); with events listed or a
 * task followed, a line per event, a column per CPU shown (and the
 * task's), each count scaled to the window with its running share when
 * it was multiplexed.  Task context, after stat_wait_closed(). */
void stat_report(struct out *o, int cpu);

/* End the session.  The next stat or profile may start once every CPU
 * that opened has closed its events, each on its own tick: a CPU that
 * missed the stop closes on its next one, and until then the claim on
 * the counters is still this session's. */
void stat_end(void);

/* The CPUs whose `stat` events are still open (0 once every CPU closed).
 * While any is, stat_start() and prof_start_as() refuse with
 * -EINPROGRESS, changing nothing.  Any context. */
uint32_t stat_cpus_still_open(void);

/* Say which CPUs those are, in one line: "@whose still open on cpu 1
 * (it missed its stop); try again shortly".  Task context. */
void stat_print_still_open(struct out *o, const char *whose);

#endif
