/* SPDX-License-Identifier: BSD-2-Clause */
/* The machine's event table (prof/events.h). */
#include "prof/events.h"

#include "lib/kstring.h"

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
