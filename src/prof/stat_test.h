/* SPDX-License-Identifier: BSD-2-Clause */
/* Counting mode's entry points that only tests call: one CPU's result
 * and the counter arithmetic, which stat_report() prints from. */
#ifndef KPROF_PROF_STAT_TEST_H
#define KPROF_PROF_STAT_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "prof/stat.h"

/* What one CPU counted over its window. */
struct stat_cpu_result {
	bool answered;			/* opened and closed in time */
	unsigned nevents;
	const char *names[HAL_PMU_COUNT_MAX];
	bool counted[HAL_PMU_COUNT_MAX];	/* opened and moved */
	uint64_t delta[HAL_PMU_COUNT_MAX];
	uint64_t window_ns;		/* its own window, read to read */
	uint64_t idle_ns;		/* of which its idle task ran */
	uint64_t cpu_time;		/* hal_cpu_time() over it */
};
void stat_result(unsigned cpu, struct stat_cpu_result *r);

/* @end - @start of a counter @bits wide, as it counts: one wrap between
 * the two reads is still a positive difference. */
uint64_t stat_delta(uint64_t start, uint64_t end, unsigned bits);

#endif
