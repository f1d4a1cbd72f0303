/* SPDX-License-Identifier: BSD-2-Clause */
/* Packing `stat`'s groups into rotation sets that fit the counters
 * (prof/stat_plan.h).  In the order listed, each group goes into the
 * current set while it fits, else starts the next; so every event that
 * needs a general counter is counted in exactly one set, and the sets
 * share the window equally.  A group that needs fixed counters only
 * (cycles on a cycle counter) takes no general counter: it is counted in
 * every set where its fixed counters are free, so it counts the whole
 * window where it can. */
#include "prof/stat_plan.h"

#include "lib/errno.h"
#include "lib/out.h"

struct stat_fill {
	unsigned general;
	uint32_t fixed;			/* fixed counters taken */
};

/* What group @g needs: general counters and a mask of fixed ones;
 * false when it names one fixed counter twice. */
static bool stat_group_need(const struct event_table *t, const struct stat_plan *p,
			    unsigned g, struct stat_fill *need)
{
	need->general = 0;
	need->fixed = 0;
	for (unsigned i = 0; i < p->n; i++) {
		const struct event *e = &t->ev[p->ev[i]];

		if (p->group[i] != g || e->kernel || !e->counts)
			continue;
		if (e->fixed < 0 || e->fixed >= 32) {
			need->general++;
			continue;
		}
		if (need->fixed & (1u << e->fixed))
			return false;
		need->fixed |= 1u << e->fixed;
	}
	return true;
}

static void stat_group_refused(const struct event_table *t, const struct stat_plan *p,
			       unsigned g, unsigned general, struct out *o)
{
	unsigned k = 0;

	out_puts(o, "stat: group {");
	for (unsigned i = 0; i < p->n; i++)
		if (p->group[i] == g)
			out_printf(o, "%s%s", k++ ? "," : "", t->ev[p->ev[i]].name);
	out_printf(o, "} needs %u general counters at once; this machine has %u (and %u fixed)\n",
		   general, t->counters.general, t->counters.fixed);
}

static bool stat_fits(const struct stat_fill *set, const struct stat_fill *need,
		      const struct hal_pmu_counters *c)
{
	return set->general + need->general <= c->general && !(set->fixed & need->fixed);
}

static void stat_put(struct stat_plan *p, unsigned g, unsigned set,
		     const struct event_table *t)
{
	for (unsigned i = 0; i < p->n; i++) {
		const struct event *e = &t->ev[p->ev[i]];

		if (p->group[i] == g && !e->kernel && e->counts)
			p->in_set[i] |= 1u << set;
	}
}

/* Groups that need general counters, in order, each into the current
 * set or the next. */
static void stat_pack_general(const struct event_table *t, struct stat_plan *p,
			      struct stat_fill *sets)
{
	struct stat_fill need;

	for (unsigned g = 0; g < p->ngroups; g++) {
		stat_group_need(t, p, g, &need);
		if (!need.general)
			continue;
		if (p->nsets == 0 || !stat_fits(&sets[p->nsets - 1], &need, &t->counters))
			sets[p->nsets++] = (struct stat_fill){ 0, 0 };
		sets[p->nsets - 1].general += need.general;
		sets[p->nsets - 1].fixed |= need.fixed;
		stat_put(p, g, p->nsets - 1, t);
	}
}

/* Groups of fixed counters only: into every set where they fit (a set
 * of their own when none has room). */
static void stat_pack_fixed(const struct event_table *t, struct stat_plan *p,
			    struct stat_fill *sets)
{
	struct stat_fill need;

	for (unsigned g = 0; g < p->ngroups; g++) {
		bool placed = false;

		stat_group_need(t, p, g, &need);
		if (need.general || !need.fixed)
			continue;
		for (unsigned s = 0; s < p->nsets; s++) {
			if (!stat_fits(&sets[s], &need, &t->counters))
				continue;
			sets[s].fixed |= need.fixed;
			stat_put(p, g, s, t);
			placed = true;
		}
		if (!placed) {
			sets[p->nsets] = need;
			stat_put(p, g, p->nsets++, t);
		}
	}
}

int stat_plan_sched(const struct event_table *t, struct stat_plan *p, struct out *o)
{
	struct stat_fill sets[STAT_EVENTS_MAX], need;
	uint32_t fixed_all = t->counters.fixed >= 32 ? ~0u : (1u << t->counters.fixed) - 1;

	for (unsigned g = 0; g < p->ngroups; g++) {
		if (stat_group_need(t, p, g, &need) && need.general <= t->counters.general &&
		    !(need.fixed & ~fixed_all))
			continue;
		stat_group_refused(t, p, g, need.general, o);
		return -E2BIG;
	}
	p->nsets = 0;
	for (unsigned i = 0; i < p->n; i++)
		p->in_set[i] = 0;
	stat_pack_general(t, p, sets);
	stat_pack_fixed(t, p, sets);
	if (p->nsets == 0)
		p->nsets = 1;
	for (unsigned i = 0; i < p->n; i++)
		if (t->ev[p->ev[i]].kernel)
			p->in_set[i] = p->nsets >= 32 ? ~0u : (1u << p->nsets) - 1;
	return 0;
}
