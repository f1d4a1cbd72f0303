/* SPDX-License-Identifier: BSD-2-Clause */
/* Every event this machine can count, by name: the kernel's own
 * software events (kernel/kevents.h), counted on every platform, then
 * the platform's (hal/pmu.h: fixed and general counters, host perf
 * events), each with where it comes from and whether it was seen to
 * count.  What `events` prints and `stat events=` names. */
#ifndef KPROF_PROF_EVENTS_H
#define KPROF_PROF_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "hal/pmu.h"
#include "kernel/kevents.h"

#define EVENTS_MAX (KEV_COUNT + HAL_PMU_EVENTS_MAX)

struct event {
	const char *name;
	bool kernel;		/* the kernel's own: always counts, no counter */
	unsigned id;		/* enum kevent, or the platform table's index */
	unsigned bits;		/* raw width (64 for the kernel's) */
	int fixed;		/* the fixed counter it takes, or -1 */
	bool counts;		/* seen to count (the kernel's always) */
	bool standard;		/* counted by a plain `stat` */
	bool exact;		/* a zero read is a true zero */
	const char *source;	/* where it comes from */
	const char *why_not;	/* why not, when it does not count */
};

struct event_table {
	unsigned n;
	struct event ev[EVENTS_MAX];
	struct hal_pmu_counters counters;
	struct hal_pmu_event hal[HAL_PMU_EVENTS_MAX];	/* what ev[] points into */
};

/* Fill @t: the kernel's events first, then the platform's.  Task
 * context, with the counters claimed (hal_pmu_events()). */
void events_load(struct event_table *t);

/* The index of the event named @name (@len bytes) in @t, or -1. */
int events_find(const struct event_table *t, const char *name, size_t len);

#endif
