/* SPDX-License-Identifier: BSD-2-Clause */
/* The views of a session besides the text report and folded stacks
 * (`profile show cpus | tasks | top`; folded stacks are
 * prof/folded.c's): each reads the session's fold table, so every view
 * of one session counts the same samples. */
#include "prof/folded.h"
#include "kernel/heap.h"
#include "prof/report.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"

const char *prof_data_task_name(const struct prof_data *d, int pid)
{
	for (unsigned i = 0; i < d->ntasks; i++)
		if (d->tasks[i].pid == pid)
			return d->tasks[i].name;
	return "?";
}

void prof_print_head(struct out *o, const struct prof_data *d)
{
	uint32_t cpus = d->other_cpus;

	for (size_t i = 0; i < d->fold.nchains; i++)
		cpus |= d->fold.chains[i].cpus;
	prof_print_window(o, d);
	out_printf(o, "%llu samples on %u cpus, %llu dropped, source %s\n",
		   (unsigned long long)d->samples, prof_cpu_count(cpus),
		   (unsigned long long)d->dropped, d->source);
}

int prof_view_cpus(struct out *o, const struct prof_data *d)
{
	prof_print_head(o, d);
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		if (!((d->run_cpus >> cpu) & 1) && !d->cpu_samples[cpu])
			continue;
		out_printf(o, "cpu %u: %llu samples ", cpu,
			   (unsigned long long)d->cpu_samples[cpu]);
		prof_print_percent(o, d->cpu_samples[cpu], d->samples);
		out_puts(o, ", idle ");
		if (d->cpu_ns[cpu]) {
			prof_print_percent(o, d->cpu_idle_ns[cpu], d->cpu_ns[cpu]);
			out_puts(o, " of the window\n");
		} else {
			out_puts(o, "unknown (no stop acknowledged)\n");
		}
	}
	return 0;
}

struct view_task {
	int32_t pid;
	uint64_t count;
};

int prof_view_tasks(struct out *o, const struct prof_data *d)
{
	const struct fold *f = &d->fold;
	struct view_task *v = kmalloc((f->nchains ? f->nchains : 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < f->nchains; i++) {
		size_t j = 0;

		while (j < n && v[j].pid != f->chains[i].pid)
			j++;
		if (j == n)
			v[n++] = (struct view_task){ f->chains[i].pid, 0 };
		v[j].count += f->chains[i].count;
	}
	prof_print_head(o, d);
	/* Hottest first, then by pid: a few dozen tasks at most. */
	for (size_t i = 0; i < n; i++) {
		size_t best = i;

		for (size_t j = i + 1; j < n; j++)
			if (v[j].count > v[best].count ||
			    (v[j].count == v[best].count && v[j].pid < v[best].pid))
				best = j;
		struct view_task tmp = v[i];
		v[i] = v[best];
		v[best] = tmp;
		prof_print_percent(o, v[i].count, d->samples);
		out_printf(o, " %llu pid %d %s\n", (unsigned long long)v[i].count,
			   v[i].pid, prof_data_task_name(d, v[i].pid));
	}
	if (d->other) {
		prof_print_percent(o, d->other, d->samples);
		out_printf(o, " %llu other (chains beyond the table, any task)\n",
			   (unsigned long long)d->other);
	}
	kfree(v);
	return 0;
}

/* One function of the top view: its self and total samples. */
struct view_fn {
	uintptr_t fn;		/* symbol start, address, or FOLD_FOREIGN */
	uint64_t self, total;
};

static struct view_fn *view_fn_find(struct view_fn *v, size_t *n, uintptr_t fn)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i].fn == fn)
			return &v[i];
	v[*n] = (struct view_fn){ fn, 0, 0 };
	return &v[(*n)++];
}

/* Chains folded by function first, so each function of a chain is
 * counted once in its total however often it recurses. */
static bool view_fn_seen(const struct fold_chain *c, uint32_t upto, uintptr_t fn)
{
	if (c->leaf == fn)
		return true;
	for (uint32_t j = 0; j < upto; j++)
		if (c->callers[j] == fn)
			return true;
	return false;
}

int prof_view_top(struct out *o, const struct prof_data *d, int pid,
		  unsigned shown)
{
	struct fold t;
	struct view_fn *v;
	size_t n = 0, room;
	uint64_t kept;

	if (fold_by_function(&t, &d->fold, pid, false) < 0)
		return -ENOMEM;
	room = t.nchains * t.depth + 1;
	v = kmalloc(room * sizeof(*v));
	if (!v) {
		fold_free(&t);
		return -ENOMEM;
	}
	kept = t.samples + (pid == PROF_PID_ALL ? d->other : 0);
	for (size_t i = 0; i < t.nchains; i++) {
		const struct fold_chain *c = &t.chains[i];

		view_fn_find(v, &n, c->leaf)->self += c->count;
		view_fn_find(v, &n, c->leaf)->total += c->count;
		for (uint32_t j = 0; j < c->ncallers; j++)
			if (!view_fn_seen(c, j, c->callers[j]))
				view_fn_find(v, &n, c->callers[j])->total += c->count;
	}
	prof_print_head(o, d);
	if (pid != PROF_PID_ALL)
		out_printf(o, "pid %d only: %llu samples\n", pid,
			   (unsigned long long)kept);
	out_puts(o, "self          total         function\n");
	if (shown > n)
		shown = (unsigned)n;
	for (size_t i = 0; i < shown; i++) {
		char name[FOLD_NAME_MAX], cell[24];
		struct out_buf ob;
		size_t best = i;

		for (size_t j = i + 1; j < n; j++)
			if (v[j].self > v[best].self ||
			    (v[j].self == v[best].self && (v[j].total > v[best].total ||
			     (v[j].total == v[best].total && v[j].fn < v[best].fn))))
				best = j;
		struct view_fn tmp = v[i];
		v[i] = v[best];
		v[best] = tmp;
		out_buf_init(&ob, cell, sizeof(cell));
		prof_print_percent(&ob.out, v[i].self, kept);
		out_printf(&ob.out, " %llu", (unsigned long long)v[i].self);
		out_printf(o, "%-14s", cell);
		out_buf_init(&ob, cell, sizeof(cell));
		prof_print_percent(&ob.out, v[i].total, kept);
		out_printf(&ob.out, " %llu", (unsigned long long)v[i].total);
		fold_frame_name(name, sizeof(name), v[i].fn);
		out_printf(o, "%-14s%s\n", cell, name);
	}
	if (n > shown)
		out_printf(o, "+ %zu more function%s\n", n - shown,
			   n - shown == 1 ? "" : "s");
	kfree(v);
	fold_free(&t);
	return 0;
}
