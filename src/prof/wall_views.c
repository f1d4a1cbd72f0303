/* SPDX-License-Identifier: BSD-2-Clause */
/* The views of a wall session (doc/profiler.md, "Where the time goes
 * when nothing runs: wall profiles"): chains ranked by time with their
 * state, each task's split, and folded stacks in microseconds with the
 * state as a frame under the task. */
#include "hal/trap.h"
#include "kernel/backtrace.h"
#include "kernel/heap.h"
#include "lib/errno.h"
#include "lib/folded_write.h"
#include "lib/out.h"
#include "prof/folded.h"
#include "prof/report.h"
#include "prof/wall.h"

/* "12.3 ms": @ns in milliseconds to a tenth, rounded. */
static void wall_print_ms(struct out *o, uint64_t ns)
{
	uint64_t tenths = (ns + 50000) / 100000;

	out_printf(o, "%llu.%llu ms", (unsigned long long)(tenths / 10),
		   (unsigned long long)(tenths % 10));
}

static bool wall_task_kept(const struct wall_task *t, int pid)
{
	return pid == PROF_PID_ALL || t->pid == pid;
}

/* The tasks' time in each state, and in all. */
static uint64_t wall_totals(const struct prof_wall *w, int pid,
			    uint64_t ns[WALL_STATES], unsigned *tasks)
{
	uint64_t all = 0;

	*tasks = 0;
	for (unsigned s = 0; s < WALL_STATES; s++)
		ns[s] = 0;
	for (unsigned i = 0; i < w->ntasks; i++) {
		if (!wall_task_kept(&w->tasks[i], pid) || !wall_task_ns(&w->tasks[i]))
			continue;
		(*tasks)++;
		for (unsigned s = 0; s < WALL_STATES; s++) {
			ns[s] += w->tasks[i].ns[s];
			all += w->tasks[i].ns[s];
		}
	}
	return all;
}

static void wall_print_head(struct out *o, const struct prof_data *d, int pid)
{
	const struct prof_wall *w = d->wall;
	uint64_t ns[WALL_STATES], all;
	unsigned tasks;

	all = wall_totals(w, pid, ns, &tasks);
	out_printf(o, "profiled %llu ms, wall\n", (unsigned long long)prof_window_ms(d));
	wall_print_ms(o, all);
	out_printf(o, " of task time in %u task%s:", tasks, tasks == 1 ? "" : "s");
	for (unsigned s = 0; s < WALL_STATES; s++) {
		out_printf(o, "%s %s ", s ? "," : "", wall_state_name(s));
		prof_print_percent(o, ns[s], all);
	}
	out_printf(o, "; %llu switches dropped\n", (unsigned long long)w->dropped);
	if (w->incomplete)
		out_puts(o, "out of memory at the end of the window: the waits open at its end are left out\n");
	if (w->open_lost)
		out_printf(o, "%llu tasks past the %u the end of the window has room for: their intervals open at its end are left out\n",
			   (unsigned long long)w->open_lost, 2 * WALL_TASKS);
}

/* A wall chain's leaf is the exact address a task ran or waited at:
 * the text view's chains keep it, and no offsets to merge. */
static void wall_leaf_exact(struct fold_chain *k)
{
	k->lo = k->hi = 0;
}

/* One state's chains of @pid without their task, exact callers kept. */
static int wall_refold(struct fold *t, const struct fold *f, int pid)
{
	return fold_without_task(t, f, pid, wall_leaf_exact);
}

struct wall_line {
	const struct fold_chain *c;
	enum wall_state s;
};

static bool wall_line_before(const struct wall_line *a, const struct wall_line *b)
{
	if (a->c->weight != b->c->weight)
		return a->c->weight > b->c->weight;
	if (a->s != b->s)
		return a->s < b->s;
	return a->c->leaf < b->c->leaf;
}

/* The hottest @keep of @n lines first (a selection: @keep is small). */
static void wall_pick(struct wall_line *l, size_t n, size_t keep)
{
	for (size_t i = 0; i < keep && i < n; i++) {
		size_t best = i;

		for (size_t j = i + 1; j < n; j++)
			if (wall_line_before(&l[j], &l[best]))
				best = j;
		struct wall_line t = l[i];
		l[i] = l[best];
		l[best] = t;
	}
}

static void wall_print_line(struct out *o, const struct wall_line *l, uint64_t all)
{
	char name[FOLD_NAME_MAX];

	prof_print_percent(o, l->c->weight, all);
	out_puts(o, " ");
	wall_print_ms(o, l->c->weight);
	fold_frame_name(name, sizeof(name), l->c->leaf);
	out_printf(o, " %s %s\n", wall_state_name(l->s), name);
	for (uint32_t i = 0; i < l->c->ncallers; i++) {
		if (l->c->callers[i] == FOLD_FOREIGN)
			out_printf(o, BACKTRACE_INDENT "<- %s\n", hal_trap_foreign_name());
		else
			backtrace_print_caller(o, l->c->callers[i]);
	}
}

int prof_view_wall_text(struct out *o, const struct prof_data *d, int pid,
			unsigned chains)
{
	const struct prof_wall *w = d->wall;
	/* On the heap: a table is 3 KB (its leaf cache), and the shell's
	 * stack must keep room for an interrupt on top of this frame. */
	struct fold *t = kmalloc(WALL_STATES * sizeof(*t));
	struct wall_line *lines;
	uint64_t ns[WALL_STATES], all, rest = 0;
	size_t n = 0, cap = 0;
	unsigned tasks, s = 0;

	if (!t)
		return -ENOMEM;
	for (s = 0; s < WALL_STATES; s++)
		if (wall_refold(&t[s], &w->fold[s], pid) < 0)
			goto fail;
	for (s = 0; s < WALL_STATES; s++)
		cap += t[s].nchains;
	lines = kmalloc((cap ? cap : 1) * sizeof(*lines));
	if (!lines)
		goto fail;
	for (s = 0; s < WALL_STATES; s++)
		for (size_t i = 0; i < t[s].nchains; i++)
			lines[n++] = (struct wall_line){ &t[s].chains[i], s };
	wall_pick(lines, n, chains);
	all = wall_totals(w, pid, ns, &tasks);
	wall_print_head(o, d, pid);
	if (!n)
		out_puts(o, pid == PROF_PID_ALL ? "no task time in the window\n"
			 : "no time of that task in the window\n");
	for (size_t i = 0; i < n; i++) {
		if (i < chains)
			wall_print_line(o, &lines[i], all);
		else
			rest += lines[i].c->weight;
	}
	if (n > chains) {
		out_printf(o, "+ %zu more chain%s holding ", n - chains,
			   n - chains == 1 ? "" : "s");
		wall_print_ms(o, rest);
		out_puts(o, " (");
		prof_print_percent(o, rest, all);
		out_puts(o, ")\n");
	}
	kfree(lines);
	for (s = 0; s < WALL_STATES; s++)
		fold_free(&t[s]);
	kfree(t);
	return 0;
fail:
	while (s-- > 0)
		fold_free(&t[s]);
	kfree(t);
	return -ENOMEM;
}

/* A task's time alive in the window, by its birth and exit. */
static uint64_t wall_alive_ns(const struct prof_wall *w, const struct wall_task *t)
{
	uint64_t a = t->born ? t->born_ns : w->start_ns;
	uint64_t b = t->died ? t->died_ns : w->stop_ns;

	return b > a ? b - a : 0;
}

int prof_view_wall_tasks(struct out *o, const struct prof_data *d)
{
	const struct prof_wall *w = d->wall;

	wall_print_head(o, d, d->pid);
	for (unsigned i = 0; i < w->ntasks; i++) {
		const struct wall_task *t = &w->tasks[i];
		uint64_t all = wall_task_ns(t);

		if (!wall_task_kept(t, d->pid) || !all)
			continue;
		out_printf(o, "%d %s: alive ", t->pid, prof_data_task_name(d, t->pid));
		wall_print_ms(o, wall_alive_ns(w, t));
		out_puts(o, ", charged ");
		wall_print_ms(o, all);
		for (unsigned s = 0; s < WALL_STATES; s++) {
			out_printf(o, "%s %s ", s ? "," : ":", wall_state_name(s));
			wall_print_ms(o, t->ns[s]);
			out_puts(o, " ");
			prof_print_percent(o, t->ns[s], all);
		}
		out_printf(o, "%s%s\n", t->born ? ", born in the window" : "",
			   t->died ? ", exited in the window" : "");
	}
	if (w->other_ns) {
		out_puts(o, "other tasks: ");
		wall_print_ms(o, w->other_ns);
		out_puts(o, "\n");
	}
	return 0;
}

/* A wall view's header: its window on the kernel's clock, for a reader
 * that has its own record of the same clock (a workload's truth), and
 * counts that are microseconds. */
void prof_wall_folded_head(struct folded_head *h, const struct prof_data *d,
			   int pid)
{
	const struct prof_wall *w = d->wall;

	*h = (struct folded_head){ .have = FOLDED_HAS(FOLDED_F_SOURCE) |
					   FOLDED_HAS(FOLDED_F_WALL) |
					   FOLDED_HAS(FOLDED_F_UNIT_US),
				   .source = d->source };
	folded_head_set(h, FOLDED_F_START_NS, w->start_ns);
	folded_head_set(h, FOLDED_F_STOP_NS, w->stop_ns);
	folded_head_set(h, FOLDED_F_WINDOW_MS, prof_window_ms(d));
	folded_head_set(h, FOLDED_F_CPUS, prof_cpu_count(d->run_cpus));
	folded_head_set(h, FOLDED_F_DROPPED, w->dropped);
	folded_head_set(h, FOLDED_F_DEPTH, d->depth);
	if (pid != PROF_PID_ALL)
		folded_head_set(h, FOLDED_F_PID, (uint64_t)(int64_t)pid);
}

/* One chain of state @s: the task, the state, the frames, root first,
 * and its time in microseconds. */
static void wall_folded_line(struct folded_writer *fw, const struct prof_data *d,
			     const struct fold_chain *c, enum wall_state s,
			     uint64_t us)
{
	char name[FOLD_NAME_MAX];

	fold_print_task(fw->o, d, c->pid);
	out_printf(fw->o, ";[%s]", wall_state_name(s));
	for (uint32_t j = c->ncallers; j-- > 0;) {
		fold_frame_name(name, sizeof(name), c->callers[j]);
		out_printf(fw->o, ";%s", name);
	}
	fold_frame_name(name, sizeof(name), c->leaf);
	out_printf(fw->o, ";%s", name);
	folded_write_count(fw, us, 0);
}

int prof_view_wall_folded(struct out *o, const struct prof_data *d, int pid)
{
	const struct prof_wall *w = d->wall;
	struct folded_writer fw;
	struct folded_head h;

	prof_wall_folded_head(&h, d, pid);
	folded_write_begin(&fw, o, &h);
	for (unsigned s = 0; s < WALL_STATES; s++) {
		struct fold t;

		if (fold_by_function(&t, &w->fold[s], pid, false) < 0)
			return -ENOMEM;
		for (size_t i = 0; i < t.nchains; i++) {
			uint64_t us = (t.chains[i].weight + 500) / 1000;

			/* Under a microsecond rounds to nothing: no line. */
			if (us)
				wall_folded_line(&fw, d, &t.chains[i], s, us);
		}
		fold_free(&t);
	}
	folded_write_end(&fw);
	return 0;
}
