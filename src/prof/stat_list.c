/* SPDX-License-Identifier: BSD-2-Clause */
/* `stat events=LIST`: names and {groups} of names, comma separated
 * (prof/stat_plan.h). */
#include "prof/stat_plan.h"

#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"

#define STAT_LIST_FORM "events=a,b,{c,d}: names from `events`, groups in braces"

static bool stat_name_char(char ch)
{
	return ch && ch != ',' && ch != '{' && ch != '}';
}

static int stat_list_bad(struct out *o, const char *at)
{
	out_printf(o, "stat: bad event list at \"%s\" (%s)\n", at, STAT_LIST_FORM);
	return -EINVAL;
}

/* One name at *s: looked up, checked, added to @p in group @group. */
static int stat_list_name(const struct event_table *t, const char **s,
			  struct stat_plan *p, unsigned group, struct out *o)
{
	const char *start = *s;
	size_t len = 0;
	int e;

	while (stat_name_char(start[len]))
		len++;
	if (!len)
		return stat_list_bad(o, start);
	*s = start + len;
	e = events_find(t, start, len);
	if (e < 0) {
		out_printf(o, "stat: no event named %.*s (`events` lists this machine's)\n",
			   (int)len, start);
		return -ENOENT;
	}
	for (unsigned i = 0; i < p->n; i++)
		if (p->ev[i] == (unsigned)e) {
			out_printf(o, "stat: event %s listed twice\n", t->ev[e].name);
			return -EINVAL;
		}
	if (p->n == STAT_EVENTS_MAX) {
		out_printf(o, "stat: at most %d events at once\n", STAT_EVENTS_MAX);
		return -E2BIG;
	}
	p->ev[p->n] = (unsigned)e;
	p->group[p->n++] = group;
	return 0;
}

/* "{a,b,...}" at *s, its names all in one group. */
static int stat_list_group(const struct event_table *t, const char **s,
			   struct stat_plan *p, struct out *o)
{
	const char *open = *s;
	int r;

	(*s)++;
	for (;;) {
		r = stat_list_name(t, s, p, p->ngroups, o);
		if (r < 0)
			return r;
		if (**s == '}')
			break;
		if (**s != ',')
			return stat_list_bad(o, **s ? *s : open);
		(*s)++;
	}
	(*s)++;
	p->ngroups++;
	return 0;
}

int stat_plan_parse(const struct event_table *t, const char *list,
		    struct stat_plan *p, struct out *o)
{
	const char *s = list;
	int r;

	kmemset(p, 0, sizeof(*p));
	if (!*s)
		return stat_list_bad(o, s);
	for (;;) {
		if (*s == '{') {
			r = stat_list_group(t, &s, p, o);
		} else {
			r = stat_list_name(t, &s, p, p->ngroups, o);
			if (r == 0)
				p->ngroups++;
		}
		if (r < 0)
			return r;
		if (!*s)
			return 0;
		if (*s != ',' || !s[1])
			return stat_list_bad(o, s);
		s++;
	}
}

void stat_plan_standard(const struct event_table *t, struct stat_plan *p)
{
	kmemset(p, 0, sizeof(*p));
	for (unsigned i = 0; i < t->n && p->n < STAT_EVENTS_MAX; i++) {
		if (!t->ev[i].standard)
			continue;
		p->ev[p->n] = i;
		p->group[p->n++] = p->ngroups++;
	}
}
