/* SPDX-License-Identifier: BSD-2-Clause */
/* What one `stat` counts and how: the events listed (`events=a,{b,c}`),
 * their groups, and the rotation sets the counters take them in.
 *
 * A group's events are always counted together (ratios inside a group
 * are exact); each lone event is a group of one.  When the events need
 * more counters than the part has, the groups are packed in order into
 * sets that each fit, and each CPU counts one set at a time, rotating on
 * its tick (stat_cpu.c); every count is then scaled by the time the
 * window was open over the time its event was counted.  The kernel's
 * own events take no counter and always count. */
#ifndef KPROF_PROF_STAT_PLAN_H
#define KPROF_PROF_STAT_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "prof/events.h"

struct out;

/* The most events one `stat` lists, and so the most sets. */
#define STAT_EVENTS_MAX 16

struct stat_plan {
	unsigned n;
	unsigned ev[STAT_EVENTS_MAX];		/* indices into the event table */
	unsigned group[STAT_EVENTS_MAX];	/* each event's group, 0.. in order */
	unsigned ngroups;
	/* The rotation: nsets sets; in_set[i] the sets event i is counted
	 * in (none for one that cannot count; all for the kernel's). */
	unsigned nsets;
	uint32_t in_set[STAT_EVENTS_MAX];
};

/* Parse @list ("cycles,{branches,branch-misses},ticks") against @t into
 * @p.  Returns 0, or a negative errno after one line on @o naming what
 * was wrong (an unknown name points to `events`).  Changes nothing
 * else. */
int stat_plan_parse(const struct event_table *t, const char *list,
		    struct stat_plan *p, struct out *o);

/* The plan of a plain `stat`: every event the platform marks standard,
 * each alone. */
void stat_plan_standard(const struct event_table *t, struct stat_plan *p);

/* Pack @p's groups into rotation sets for @t's counters.  Returns 0, or
 * -E2BIG after one line on @o when a group needs more counters than the
 * part has (a group is never split). */
int stat_plan_sched(const struct event_table *t, struct stat_plan *p, struct out *o);

#endif
