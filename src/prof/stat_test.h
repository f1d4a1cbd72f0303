/* SPDX-License-Identifier: BSD-2-Clause */
/* Counting mode's entry points that its report and the tests call: one
 * CPU's (or the followed task's) result, the session's facts, and the
 * counter arithmetic. */
#ifndef KPROF_PROF_STAT_TEST_H
#define KPROF_PROF_STAT_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "prof/stat.h"
#include "prof/stat_plan.h"

/* What one CPU (or the task) counted over its window. */
struct stat_cpu_result {
	bool answered;			/* opened and closed in time */
	unsigned nevents;
	const char *names[STAT_EVENTS_MAX];
	bool ran[STAT_EVENTS_MAX];	/* counted for some of the window */
	bool counted[STAT_EVENTS_MAX];	/* ran and moved (the kernel's: ran) */
	uint64_t delta[STAT_EVENTS_MAX];	/* raw, scaled to the window */
	uint64_t raw[STAT_EVENTS_MAX];
	uint64_t run_ns[STAT_EVENTS_MAX];	/* of the window, counting */
	uint64_t window_ns;		/* its own window (the task's: on cpu) */
	uint64_t idle_ns;		/* of which its idle task ran */
	uint64_t cpu_time;		/* hal_cpu_time() over it */
	uint64_t rotations;		/* sets rotated on its ticks */
	uint64_t switches_in;		/* the task's: times it came on */
};
void stat_result(unsigned cpu, struct stat_cpu_result *r);

/* The followed task's result (`stat pid=`); false without one. */
bool stat_task_result(struct stat_cpu_result *r);

/* The session's facts, for the report. */
struct stat_session {
	uint32_t run_cpus, unopened, unclosed;
	uint64_t t0, t1, open_wait_ns, close_wait_ns;
	const struct event_table *table;
	const struct stat_plan *plan;
	bool listed;			/* events= was given */
	int pid;
	unsigned task_cpu;
	const char *task_name;
};
void stat_session_get(struct stat_session *ss);

/* @end - @start of a counter @bits wide, as it counts: one wrap between
 * the two reads is still a positive difference. */
uint64_t stat_delta(uint64_t start, uint64_t end, unsigned bits);

/* @count of an event counted @running_ns of a window @enabled_ns long,
 * scaled to the window (perf's enabled / running). */
uint64_t stat_scale(uint64_t count, uint64_t enabled_ns, uint64_t running_ns);

#endif
