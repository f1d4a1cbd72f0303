/* SPDX-License-Identifier: BSD-2-Clause */
/* The machine's event table (prof/events.h). */
#include "prof/events.h"

#include "kernel/cmdline.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"

/* stat.counters=N: `stat` uses at most N of the part's general counters,
 * so that multiplexing can be exercised, and its scaling held to a
 * truth, on a part with few countable events (QEMU's PMUv3).  0: all. */
static unsigned events_counters_cap;

static int events_key_counters(const char *value, size_t len, struct out *err)
{
	char text[24];
	uint64_t n = 0;

	if (!cmdline_value_copy(text, sizeof(text), value, len) ||
	    parse_u64(text, &n) < 0 || n < 1 || n > HAL_PMU_COUNT_MAX) {
		out_printf(err, "cmdline: stat.counters= must be 1-%d (got '%.*s'); stat uses every counter\n",
			   HAL_PMU_COUNT_MAX, (int)len, value);
		return -EINVAL;
	}
	events_counters_cap = (unsigned)n;
	return 0;
}

CMDLINE_KEY(events_key_counters_entry, .name = "stat.counters", .set = events_key_counters,
	    .help = "1-8  general counters stat may use at once (default: all)");

static void events_add_kernel(struct event_table *t)
{
	for (unsigned k = 0; k < KEV_COUNT; k++) {
		struct event *e = &t->ev[t->n++];

		kmemset(e, 0, sizeof(*e));
		e->name = kevent_name((enum kevent)k);
		e->kernel = true;
		e->id = k;
		e->bits = 64;
		e->fixed = -1;
		e->counts = true;
		e->exact = true;
		e->source = "kernel software event";
	}
}

/* A platform event that shares a name with the kernel's (none should)
 * is left out: a name means one thing. */
static void events_add_platform(struct event_table *t)
{
	unsigned n = hal_pmu_events(t->hal, HAL_PMU_EVENTS_MAX, &t->counters);

	if (n > HAL_PMU_EVENTS_MAX)
		n = HAL_PMU_EVENTS_MAX;
	if (t->counters.general > HAL_PMU_COUNT_MAX)
		t->counters.general = HAL_PMU_COUNT_MAX;
	if (events_counters_cap && t->counters.general > events_counters_cap)
		t->counters.general = events_counters_cap;
	for (unsigned i = 0; i < n; i++) {
		const struct hal_pmu_event *h = &t->hal[i];
		struct event *e;

		if (!h->name || events_find(t, h->name, kstrlen(h->name)) >= 0)
			continue;
		e = &t->ev[t->n++];
		kmemset(e, 0, sizeof(*e));
		e->name = h->name;
		e->id = i;
		e->bits = h->bits ? h->bits : 64;
		e->fixed = h->fixed;
		e->counts = h->counts;
		e->standard = h->standard;
		e->exact = h->exact;
		e->source = h->source;
		e->why_not = h->why_not[0] ? h->why_not : "not seen to count";
	}
}

void events_load(struct event_table *t)
{
	t->n = 0;
	t->counters.general = t->counters.fixed = 0;
	events_add_kernel(t);
	events_add_platform(t);
}

int events_find(const struct event_table *t, const char *name, size_t len)
{
	for (unsigned i = 0; i < t->n; i++)
		if (kstrlen(t->ev[i].name) == len && kmemcmp(t->ev[i].name, name, len) == 0)
			return (int)i;
	return -1;
}
