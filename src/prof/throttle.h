/* SPDX-License-Identifier: BSD-2-Clause */
/* The PMU throttle's rule, one for every platform (doc/profiler.md, as
 * Linux's perf_sample_event_took()): over each THROTTLE_SAMPLES samples
 * of a CPU, when the interquartile mean of their overflow handlers'
 * costs, times the samples, is more than THROTTLE_PERCENT of the time
 * the window spanned, the period doubles.  The profiler keeps one window
 * per CPU, fed from its overflow interrupt (kernel_pmu_took()). */
#ifndef KPROF_PROF_THROTTLE_H
#define KPROF_PROF_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>

#define THROTTLE_SAMPLES	64
#define THROTTLE_PERCENT	2

/* One CPU's window: only that CPU writes it. */
struct throttle {
	uint64_t period;		/* the counter's, now; 0: none */
	uint64_t start_ns;		/* when the window began */
	unsigned n;
	uint32_t cost[THROTTLE_SAMPLES];	/* each sample's handler, ns */
};

/* A counter armed at @period: an empty window, opened at @now_ns. */
void throttle_open(struct throttle *t, uint64_t period, uint64_t now_ns);

/* One more sample whose handler took @ns: true when that filled the
 * window (the caller then reads the clock for throttle_close()). */
bool throttle_add(struct throttle *t, uint64_t ns);

/* Close the full window at @now_ns and open the next: true when the
 * rule says the period must double.  Reorders the window's costs. */
bool throttle_close(struct throttle *t, uint64_t now_ns);

#endif
