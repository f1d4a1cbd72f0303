/* SPDX-License-Identifier: BSD-2-Clause */
/* The probes' views: `probe list`, `probe show` and `probe sites`
 * (doc/shell.md). */
#include "prof/probe.h"

#include "hal/timer.h"
#include "kernel/symbols.h"
#include "lib/folded_write.h"
#include "prof/folded.h"
#include "kernel/task.h"
#include "lib/kstring.h"
#include "lib/out.h"

#define SHOW_TASKS 64
#define HIST_BAR 40
/* Chains a view reads: every CPU's table, full. */
#define VIEW_CHAINS (PROBE_CHAINS * 4)

void probe_print_list(struct out *o)
{
	unsigned n = 0;

	for (unsigned i = 0; i < PROBE_MAX; i++) {
		const struct probe *p = &probe_table[i];
		struct probe_sum s;

		if (!p->live)
			continue;
		if (n++ == 0)
			out_printf(o, "%-32s %12s  %s\n", "function", "hits", "options");
		probe_sum(p, &s);
		out_printf(o, "%-32s %12llu  %s%s\n", p->name, (unsigned long long)s.hits,
			   s.throttled ? "throttled " : "",
			   (p->flags & (PROBE_TIME | PROBE_STACK)) == (PROBE_TIME | PROBE_STACK)
				   ? "stack time"
				   : p->flags & PROBE_TIME ? "time" : p->flags & PROBE_STACK ? "stack" : "-");
	}
	if (n == 0)
		out_printf(o, "no probes (probe add FUNC)\n");
	else
		out_printf(o, "%u probe%s, %llu hits dropped inside the handler\n", n,
			   n == 1 ? "" : "s", (unsigned long long)probe_nested());
}

static void print_hist(struct out *o, const struct probe_sum *s)
{
	unsigned lo = PROBE_HIST, hi = 0;
	uint64_t top = 0;

	for (unsigned b = 0; b < PROBE_HIST; b++)
		if (s->hist[b]) {
			if (lo == PROBE_HIST)
				lo = b;
			hi = b;
			if (s->hist[b] > top)
				top = s->hist[b];
		}
	for (unsigned b = lo; b <= hi && lo < PROBE_HIST; b++) {
		unsigned bar = (unsigned)(s->hist[b] * HIST_BAR / top);
		char line[HIST_BAR + 1];

		kmemset(line, '@', bar);
		line[bar] = 0;
		out_printf(o, "  [%llu, %llu) ns %12llu |%-40s|\n",
			   (unsigned long long)(b ? 1ull << b : 0),
			   (unsigned long long)(2ull << b), (unsigned long long)s->hist[b], line);
	}
}

/* The chains of one task and one path merged over the CPUs. */
static size_t merge_chains(struct probe_chain *c, size_t n)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < m; j++)
			if (c[j].pid == c[i].pid && c[j].depth == c[i].depth &&
			    kmemcmp(c[j].frame, c[i].frame, c[i].depth * sizeof(uintptr_t)) == 0)
				break;
		if (j < m)
			c[j].n += c[i].n;
		else
			c[m++] = c[i];
	}
	return m;
}

/* "pid-name;root;...;caller;FUNC": root first, each frame its function. */
static void put_chain(struct out *o, const struct probe *p, const struct probe_chain *c)
{
	char name[FOLD_NAME_MAX];

	if (c->pid >= 0) {
		kstrlcpy(name, c->name, sizeof(c->name));
		for (char *q = name; *q; q++)
			if (*q == ';' || *q == ' ' || *q == '\t' || *q == '\n')
				*q = '_';
		out_printf(o, "%d-%s", c->pid, name);
	} else {
		out_printf(o, "no-task");
	}
	for (uint32_t i = c->depth; i-- > 0;) {
		struct sym_hit hit;
		uintptr_t off;

		fold_frame_name(name, sizeof(name),
				sym_resolve(c->frame[i], true, &hit, &off) ? hit.start : c->frame[i]);
		out_printf(o, ";%s", name);
	}
	out_printf(o, ";%s", p->name);
}

static struct probe_chain view_chains[VIEW_CHAINS];

void probe_print_folded(struct out *o, const struct probe *p)
{
	struct folded_writer w;
	struct folded_head h;
	uint64_t other, total = 0;
	size_t n;

	if (!(p->flags & PROBE_STACK)) {
		out_printf(o, "probe: %s has no stack (probe add %s stack)\n", p->name, p->name);
		return;
	}
	n = merge_chains(view_chains, probe_chains_read(p, view_chains, VIEW_CHAINS, &other));
	for (size_t i = 0; i < n; i++)
		total += view_chains[i].n;
	kmemset(&h, 0, sizeof(h));
	folded_head_set(&h, FOLDED_F_SAMPLES, total + other);
	folded_head_set(&h, FOLDED_F_OTHER, other);
	folded_head_set(&h, FOLDED_F_DEPTH, PROBE_STACK_DEPTH);
	folded_write_begin(&w, o, &h);
	for (size_t i = 0; i < n; i++) {
		put_chain(o, p, &view_chains[i]);
		folded_write_count(&w, view_chains[i].n, 0);
	}
	if (other) {
		out_puts(o, "other");
		folded_write_count(&w, other, 0);
	}
	folded_write_end(&w);
}

void probe_print_show(struct out *o, const struct probe *p, bool hist)
{
	struct probe_task_count tasks[SHOW_TASKS];
	uint64_t per_cpu[HAL_MAX_CPUS] = { 0 };
	uint64_t secs_ms = (hal_clock_ns() - p->added_ns) / 1000000;
	size_t nt = probe_tasks(p, tasks, SHOW_TASKS, per_cpu);
	struct probe_sum s;

	probe_sum(p, &s);
	out_printf(o, "probe %s: %llu calls in %llu.%03llu s", p->name,
		   (unsigned long long)s.hits, (unsigned long long)(secs_ms / 1000),
		   (unsigned long long)(secs_ms % 1000));
	if (s.other)
		out_printf(o, " (%llu of tasks past the table or of no task)",
			   (unsigned long long)s.other);
	if (s.throttled)
		out_printf(o, "; throttled: %llu hits not counted, over the budget of %u a "
			   "second per CPU", (unsigned long long)s.throttled, PROBE_BUDGET_PER_SEC);
	out_printf(o, "\n  cpus:");
	for (unsigned c = 0; c < HAL_MAX_CPUS; c++)
		if (per_cpu[c])
			out_printf(o, " %u=%llu", c, (unsigned long long)per_cpu[c]);
	out_printf(o, "\n");
	for (size_t i = 0; i < nt; i++) {
		out_printf(o, "  pid %d %-16s %llu\n", tasks[i].pid1 - 1,
			   tasks[i].name[0] ? tasks[i].name : "-", (unsigned long long)tasks[i].n);
	}
	if (p->flags & PROBE_STACK) {
		uint64_t other;
		size_t n = merge_chains(view_chains,
					probe_chains_read(p, view_chains, VIEW_CHAINS, &other));

		for (size_t i = 0; i < n; i++) {
			out_printf(o, "  stack %llu ", (unsigned long long)view_chains[i].n);
			put_chain(o, p, &view_chains[i]);
			out_printf(o, "\n");
		}
		if (other)
			out_printf(o, "  stack %llu other (the chain tables were full)\n",
				   (unsigned long long)other);
	}
	if (!(p->flags & PROBE_TIME))
		return;
	out_printf(o, "  time: %llu timed", (unsigned long long)s.timed);
	if (s.timed)
		out_printf(o, ", min %llu ns, mean %llu ns, max %llu ns",
			   (unsigned long long)s.min_ns,
			   (unsigned long long)(s.sum_ns / s.timed), (unsigned long long)s.max_ns);
	if (s.untimed)
		out_printf(o, ", %llu untimed (past the shadow stack's %u calls, or no task)",
			   (unsigned long long)s.untimed, TASK_PROBE_DEPTH);
	out_printf(o, "\n");
	if (hist)
		print_hist(o, &s);
}

void probe_print_sites(struct out *o, bool all)
{
	size_t nsites = probe_site_count(), nsym = sym_count(), refused = 0, without = 0;

	if (nsites == 0) {
		out_printf(o, "probe sites: none: this platform's image has no patchable "
			   "entries\n");
		return;
	}
	for (size_t i = 0; i < nsym; i++) {
		struct sym_hit h;
		const char *why;

		sym_nth(i, &h);
		if (!probe_has_site(h.start)) {
			without++;
			if (all)
				out_printf(o, "  %-32s no entry (notrace, or the platform's)\n",
					   h.name);
		} else if ((why = probe_refused(h.name)) != NULL) {
			refused++;
			out_printf(o, "  %-32s refused: %s\n", h.name, why);
		} else if (all) {
			out_printf(o, "  %-32s probeable\n", h.name);
		}
	}
	out_printf(o, "probe sites: %zu patchable entries, %zu probeable, %zu refused; "
		   "%zu functions of the image have no entry (notrace, or the "
		   "platform's)\n", nsites, nsites - refused, refused, without);
}
