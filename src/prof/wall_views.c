/* SPDX-License-Identifier: BSD-2-Clause */
/* The views of a wall session (doc/profiler.md, "Where the time goes
 * when nothing runs: wall profiles"): chains ranked by time with their
 * state, each task's split, and folded stacks in microseconds with the
 * state as a frame under the task, by name or by address.  kprof's own
 * service tasks are left out unless the view asks for them: they wait
 * for input all the time, and would be most of any run's time. */
#include "hal/trap.h"
#include "kernel/backtrace.h"
#include "kernel/build_id.h"
#include "kernel/heap.h"
#include "lib/errno.h"
#include "lib/folded_write.h"
#include "lib/kstring.h"
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

/* kprof's own service tasks: the shells, the drainer, the receive
 * task.  A wall view leaves them out unless asked (FOLD_VIEW_SERVICES). */
static const char *const wall_services[] = { "shell", "udpsh", "profd", "netrx" };
#define WALL_SERVICES_TEXT "shell, udpsh, profd, netrx"

/* Which tasks a view shows: the one it names, or every task but the
 * services unless it shows them. */
struct wall_keep {
	const struct prof_data *d;
	int pid;
	bool services;
};

static bool wall_is_service(const struct prof_data *d, int pid)
{
	const char *name = prof_data_task_name(d, pid);

	for (size_t i = 0; i < sizeof(wall_services) / sizeof(wall_services[0]); i++)
		if (kstreq(name, wall_services[i]))
			return true;
	return false;
}

static bool wall_pid_kept(const struct wall_keep *k, int pid)
{
	if (k->pid != PROF_PID_ALL)
		return pid == k->pid;
	return k->services || !wall_is_service(k->d, pid);
}

static bool wall_chain_kept(const struct fold_chain *c, const void *k)
{
	return wall_pid_kept(k, c->pid);
}

static struct wall_keep wall_keep_of(const struct prof_data *d, int pid,
				     unsigned how)
{
	return (struct wall_keep){ d, pid, how & FOLD_VIEW_SERVICES };
}

/* The time of the services a view of every task leaves out. */
static uint64_t wall_hidden_ns(const struct wall_keep *k)
{
	const struct prof_wall *w = k->d->wall;
	uint64_t ns = 0;

	for (unsigned i = 0; i < w->ntasks; i++)
		if (k->pid == PROF_PID_ALL && !wall_pid_kept(k, w->tasks[i].pid))
			ns += wall_task_ns(&w->tasks[i]);
	return ns;
}

/* The tasks' time in each state, and in all. */
static uint64_t wall_totals(const struct wall_keep *k,
			    uint64_t ns[WALL_STATES], unsigned *tasks)
{
	const struct prof_wall *w = k->d->wall;
	uint64_t all = 0;

	*tasks = 0;
	for (unsigned s = 0; s < WALL_STATES; s++)
		ns[s] = 0;
	for (unsigned i = 0; i < w->ntasks; i++) {
		if (!wall_pid_kept(k, w->tasks[i].pid) || !wall_task_ns(&w->tasks[i]))
			continue;
		(*tasks)++;
		for (unsigned s = 0; s < WALL_STATES; s++) {
			ns[s] += w->tasks[i].ns[s];
			all += w->tasks[i].ns[s];
		}
	}
	return all;
}

static void wall_print_head(struct out *o, const struct wall_keep *k)
{
	const struct prof_data *d = k->d;
	const struct prof_wall *w = d->wall;
	uint64_t ns[WALL_STATES], all, hidden = wall_hidden_ns(k);
	unsigned tasks;

	all = wall_totals(k, ns, &tasks);
	out_printf(o, "profiled %llu ms, wall\n", (unsigned long long)prof_window_ms(d));
	wall_print_ms(o, all);
	out_printf(o, " of task time in %u task%s:", tasks, tasks == 1 ? "" : "s");
	for (unsigned s = 0; s < WALL_STATES; s++) {
		out_printf(o, "%s %s ", s ? "," : "", wall_state_name(s));
		prof_print_percent(o, ns[s], all);
	}
	out_printf(o, "; %llu switches dropped\n", (unsigned long long)w->dropped);
	if (hidden) {
		wall_print_ms(o, hidden);
		out_puts(o, " of kprof's service tasks (" WALL_SERVICES_TEXT ") hidden; services shows them\n");
	}
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

/* One state's chains of the tasks @k keeps without their task, exact
 * callers kept. */
static int wall_refold(struct fold *t, const struct fold *f,
		       const struct wall_keep *k)
{
	return fold_without_task_if(t, f, wall_chain_kept, k, wall_leaf_exact);
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
			unsigned chains, unsigned how)
{
	const struct prof_wall *w = d->wall;
	struct wall_keep k = wall_keep_of(d, pid, how);
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
		if (wall_refold(&t[s], &w->fold[s], &k) < 0)
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
	all = wall_totals(&k, ns, &tasks);
	wall_print_head(o, &k);
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

int prof_view_wall_tasks(struct out *o, const struct prof_data *d,
			 unsigned how)
{
	const struct prof_wall *w = d->wall;
	struct wall_keep k = wall_keep_of(d, d->pid, how);

	wall_print_head(o, &k);
	for (unsigned i = 0; i < w->ntasks; i++) {
		const struct wall_task *t = &w->tasks[i];
		uint64_t all = wall_task_ns(t);

		if (!wall_pid_kept(&k, t->pid) || !all)
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
 * counts that are microseconds; the service tasks' time it leaves out;
 * in the address form, the image's build-id. */
void prof_wall_folded_head(struct folded_head *h, const struct prof_data *d,
			   int pid, unsigned how)
{
	const struct prof_wall *w = d->wall;
	struct wall_keep k = wall_keep_of(d, pid, how);
	uint64_t hidden = wall_hidden_ns(&k);

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
	if (hidden)
		folded_head_set(h, FOLDED_F_HIDDEN_NS, hidden);
	/* The address form: frames of the image with this build-id, for
	 * kprof-report --elf to give off-CPU stacks their lines. */
	if (how & FOLD_VIEW_ADDR) {
		h->have |= FOLDED_HAS(FOLDED_F_FRAMES_ADDR);
		if (build_id_hex(h->build_id, sizeof(h->build_id)))
			h->have |= FOLDED_HAS(FOLDED_F_BUILD_ID);
	}
}

/* A frame of a wall line: the function's name, or (FOLD_VIEW_ADDR) the
 * address as recorded. */
static void wall_put_frame(struct out *o, uintptr_t a, unsigned how)
{
	char name[FOLD_NAME_MAX];

	if (how & FOLD_VIEW_ADDR) {
		fold_print_addr(o, a);
		return;
	}
	fold_frame_name(name, sizeof(name), a);
	out_printf(o, ";%s", name);
}

/* One chain of state @s in a table of @depth: the task, the state,
 * `[truncated]` where the chain met the depth (as the sampled views
 * mark it), the frames, root first, and its time in microseconds. */
static void wall_folded_line(struct folded_writer *fw, const struct prof_data *d,
			     const struct fold_chain *c, enum wall_state s,
			     unsigned depth, unsigned how)
{
	uint64_t us = (c->weight + 500) / 1000;

	/* Under a microsecond rounds to nothing: no line. */
	if (!us)
		return;
	fold_print_task(fw->o, d, c->pid);
	out_printf(fw->o, ";[%s]", wall_state_name(s));
	if ((unsigned)c->ncallers + 1 >= depth)
		out_puts(fw->o, ";" FOLD_TRUNCATED);
	for (uint32_t j = c->ncallers; j-- > 0;)
		wall_put_frame(fw->o, c->callers[j], how);
	wall_put_frame(fw->o, c->leaf, how);
	folded_write_count(fw, us, 0);
}

/* State @s's lines: by function, or as recorded (each leaf a function's
 * start, each caller its return address) in the address form. */
static int wall_folded_state(struct folded_writer *fw, const struct wall_keep *k,
			     enum wall_state s, unsigned how)
{
	const struct fold *f = &k->d->wall->fold[s];
	struct fold t;

	if (how & FOLD_VIEW_ADDR) {
		for (size_t i = 0; i < f->nchains; i++)
			if (wall_pid_kept(k, f->chains[i].pid))
				wall_folded_line(fw, k->d, &f->chains[i], s,
						 f->depth, how);
		return 0;
	}
	if (fold_by_function(&t, f, k->pid, false) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < t.nchains; i++)
		if (wall_pid_kept(k, t.chains[i].pid))
			wall_folded_line(fw, k->d, &t.chains[i], s, t.depth, how);
	fold_free(&t);
	return 0;
}

int prof_view_wall_folded_as(struct out *o, const struct prof_data *d, int pid,
			     unsigned how)
{
	struct wall_keep k = wall_keep_of(d, pid, how);
	struct folded_writer fw;
	struct folded_head h;

	prof_wall_folded_head(&h, d, pid, how);
	folded_write_begin(&fw, o, &h);
	for (unsigned s = 0; s < WALL_STATES; s++)
		if (wall_folded_state(&fw, &k, s, how) < 0)
			return -ENOMEM;
	folded_write_end(&fw);
	return 0;
}

int prof_view_wall_folded(struct out *o, const struct prof_data *d, int pid)
{
	return prof_view_wall_folded_as(o, d, pid, 0);
}
