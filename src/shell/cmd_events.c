/* SPDX-License-Identifier: BSD-2-Clause */
/* events: every event this machine can count (prof/events.h), where it
 * comes from and whether it was seen to count, and the counters. */
#include "prof/events.h"
#include "prof/profiler.h"
#include "prof/stat.h"
#include "lib/out.h"
#include "shell/commands.h"
#include "shell/shell.h"

/* The session holder's only (the claim on the counters). */
static struct event_table events_table;

static void events_print(struct out *o, const struct event_table *t)
{
	out_printf(o, "counters: %u general, %u fixed (the kernel's events take none)\n",
		   t->counters.general, t->counters.fixed);
	out_printf(o, "%-24s %-44s %s\n", "event", "source", "counts");
	for (unsigned i = 0; i < t->n; i++) {
		const struct event *e = &t->ev[i];

		out_printf(o, "%-24s %-44s ", e->name, e->source);
		if (e->counts)
			out_puts(o, "yes\n");
		else
			out_printf(o, "no: %s\n", e->why_not);
	}
}

int cmd_events(struct shell_ctx *sh, int argc, char **argv)
{
	if (argc > 1) {
		out_printf(sh->out, "events: takes no arguments (got %s)\n", argv[1]);
		return 1;
	}
	/* Probing programs the counters: never under a running stat or
	 * profile. */
	if (prof_counters_claim() < 0) {
		out_puts(sh->out, "events: busy (a profile or stat holds the counters); try again when it ends\n");
		return 1;
	}
	if (stat_cpus_still_open()) {
		prof_counters_release();
		stat_print_still_open(sh->out, "events: the last stat's counter");
		return 1;
	}
	events_load(&events_table);
	prof_counters_release();
	events_print(sh->out, &events_table);
	return 0;
}
