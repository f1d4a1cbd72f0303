/* SPDX-License-Identifier: BSD-2-Clause */
/* A wall run's collect: the interval of each task that the window's
 * end cut, claimed against a racing switch and charged; every task's
 * books; the time no record gave a stack charged to "[unknown stack]";
 * and each task's running time split over its sampled chains -- by
 * their weight, never a nominal period. */
#include "prof/wall_internal.h"

#include "kernel/heap.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/race_point.h"
#include "prof/offcpu.h"
#include "prof/report.h"

/* ---- the intervals the window's end cut ---- */

/* A task's interval open at the window's end, copied under the task
 * list lock and charged after it (charging may allocate). */
struct wall_open {
	struct wall_book b;
	enum wall_state s0, s1;		/* the states of b.ns[s0], b.ns[s1] */
	uint32_t nframes;
	uintptr_t frames[PROF_MAX_FRAMES];
};

struct wall_scan {
	const struct prof_wall *w;
	struct wall_open *open;
	size_t n, cap;
	uint64_t lost;
};

/* The part of [a, b) inside the window. */
static uint64_t wall_clip(const struct prof_wall *w, uint64_t a, uint64_t b)
{
	if (a < w->start_ns)
		a = w->start_ns;
	if (b > w->stop_ns)
		b = w->stop_ns;
	return b > a ? b - a : 0;
}

/* The stack @t waits at, off its CPU at the window's end: the one its
 * switch-out walked, else (its CPU's ring was full then: nothing was
 * walked, OFFCPU_UNWALKED) walked now through its saved context --
 * unknown if it is back on its CPU meanwhile: then the switch that put
 * it there ends the interval, and of the two the first claim charges. */
static void wall_open_stack(struct task *t, struct wall_open *e)
{
	uint32_t n = __atomic_load_n(&t->wall.off_nframes, __ATOMIC_RELAXED);
	int got;

	if (n != OFFCPU_UNWALKED) {
		e->nframes = n > PROF_MAX_FRAMES ? PROF_MAX_FRAMES : n;
		kmemcpy(e->frames, t->wall.off_frames, e->nframes * sizeof(e->frames[0]));
		return;
	}
	got = wall_walk_waiting(t, e->frames, __atomic_load_n(&offcpu_depth, __ATOMIC_RELAXED));
	if (got >= 0) {
		e->nframes = (uint32_t)got;
	} else {
		e->nframes = 1;
		e->frames[0] = FOLD_UNKNOWN;
	}
}

/* Where @t is at the window's end: on its CPU since @a, or off since
 * @a and woken at @wake (@a: not woken), and the stack it waits at;
 * from its stamps when the hook switched it in this run, else from the
 * window's start (it has not switched since). */
static bool wall_open_state(const struct wall_scan *sc, struct task *t, struct wall_open *e,
			    uint64_t *a, uint64_t *wake)
{
	const struct wall_start *st;
	bool blocked = t->state == TASK_SLEEPING || t->state == TASK_BLOCKED;
	bool on;

	e->nframes = 1;
	e->frames[0] = (uintptr_t)t->fn;
	*wake = __atomic_load_n(&t->wall.wake_ns, __ATOMIC_RELAXED);
	if (__atomic_load_n(&t->wall.gen, __ATOMIC_ACQUIRE) == sc->w->gen) {
		on = __atomic_load_n(&t->wall.on_cpu, __ATOMIC_ACQUIRE);
		/* Racing a switch after the end: kept only if the claim is
		 * ours (wall_scan_task()). */
		*a = __atomic_load_n(on ? &t->wall.in_ns : &t->wall.off_ns, __ATOMIC_RELAXED);
		if (!on)
			wall_open_stack(t, e);
		/* Not woken since it went off, or runnable from then on. */
		if (blocked || *wake < *a)
			*wake = blocked ? UINT64_MAX : *a;
		return on;
	}
	if (!__atomic_load_n(&t->wall.started, __ATOMIC_ACQUIRE) && t->state != TASK_RUNNING) {
		*a = t->wall.born_ns;	/* never ran: waits at its entry */
		if (*wake < *a)
			*wake = *a;
		return false;
	}
	*a = 0;				/* since before the window */
	st = wall_start_of(sc->w, t->pid);
	on = st ? st->on_cpu : t->state == TASK_RUNNING;
	if (on)
		return true;
	e->nframes = st && st->walked && st->nframes ? st->nframes : 0;
	if (e->nframes)
		kmemcpy(e->frames, st->frames, e->nframes * sizeof(e->frames[0]));
	else
		e->frames[e->nframes++] = FOLD_UNKNOWN;
	/* Blocked at the start: until a wake since, if any.  Runnable at
	 * the start: throughout. */
	if (st ? st->blocked && *wake == st->wake_ns : blocked)
		*wake = UINT64_MAX;
	else if (st && !st->blocked)
		*wake = 0;
	return false;
}

/* Under the task list lock, interrupts off, after a grace period: a
 * switch on another CPU now ends after the window, so it claims the
 * interval before it charges it: of the two, the first claim charges.
 * Its slot's times are written after its claim, and the running flag
 * and the run after the times, so what is read here before the claim
 * is the interval the claim is for.  A task that exits and has not
 * switched out yet is running its last interval. */
static void wall_scan_task(struct task *t, void *ctx)
{
	struct wall_scan *sc = ctx;
	struct wall_open *e;
	uint64_t a, wake, end = sc->w->stop_ns;
	bool on;

	if (t->is_idle ||
	    (t->state == TASK_DEAD && __atomic_load_n(&t->off_cpu, __ATOMIC_ACQUIRE)))
		return;
	if (sc->n == sc->cap) {
		sc->lost++;
		return;
	}
	e = &sc->open[sc->n];
	kmemset(&e->b, 0, sizeof(e->b));
	e->b.pid = t->pid;
	on = wall_open_state(sc, t, e, &a, &wake);
	if (on) {
		e->s0 = e->s1 = WALL_CPU;
		e->b.ns[WALL_CPU] = wall_clip(sc->w, a, end);
	} else {
		if (wake < a)
			wake = a;
		if (wake > end)
			wake = end;
		e->s0 = WALL_BLOCKED;
		e->s1 = WALL_RUNNABLE;
		e->b.ns[WALL_BLOCKED] = wall_clip(sc->w, a, wake);
		e->b.ns[WALL_RUNNABLE] = wall_clip(sc->w, wake, end);
	}
	e->b.born_ns = t->wall.born_ns;
	if (!e->b.ns[e->s0] && !e->b.ns[e->s1])
		return;		/* the switch that began it after the end charged the rest */
	if (!offcpu_claim_crossing(t, sc->w->gen))
		return;
	sc->n++;
}

/* @ns * @part / @whole without overflow: the shares lose the low bits
 * of weights too large to multiply. */
static uint64_t wall_share(uint64_t ns, uint64_t part, uint64_t whole)
{
	while (part && ns > UINT64_MAX / part) {
		part >>= 1;
		whole >>= 1;
	}
	return whole ? ns * part / whole : 0;
}

/* Task @t's running time over its sampled chains in @f, by weight;
 * false when it has none. */
static bool wall_split_task(struct prof_wall *w, const struct wall_task *t,
			    const struct fold *f)
{
	uint64_t total = 0, given = 0;
	/* What a held-back tick left unsampled is charged already. */
	uint64_t ns = t->ns[WALL_CPU] > t->held_ns ? t->ns[WALL_CPU] - t->held_ns : 0;
	size_t last = SIZE_MAX;

	for (size_t i = 0; i < f->nchains; i++)
		if (f->chains[i].pid == t->pid && f->chains[i].weight) {
			total += f->chains[i].weight;
			last = i;
		}
	if (!total)
		return false;
	for (size_t i = 0; i <= last; i++) {
		struct fold_chain k = f->chains[i];

		if (k.pid != t->pid || !k.weight)
			continue;
		/* The last takes what the rounding left. */
		k.weight = i == last ? ns - given : wall_share(ns, k.weight, total);
		given += k.weight;
		if (f->exact_leaf)
			k.leaf = fold_leaf_function(&k);
		k.lo = k.hi = 0;
		(void)fold_merge(&w->fold[WALL_CPU], &k);
	}
	return true;
}

/* A task without samples: its running time where it left its CPU. */
static void wall_split_by_stacks(struct prof_wall *w, const struct wall_task *t)
{
	for (size_t i = 0; i < w->run_stacks.nchains; i++)
		if (w->run_stacks.chains[i].pid == t->pid)
			(void)fold_merge(&w->fold[WALL_CPU], &w->run_stacks.chains[i]);
}

/* Time of each task's books that no record gave a stack: a record its
 * CPU's ring had no room for.  Charged to "[unknown stack]". */
static void wall_charge_unknown(struct prof_wall *w)
{
	for (unsigned i = 0; i < w->ntasks; i++) {
		struct wall_task *t = &w->tasks[i];

		for (unsigned s = 0; s < WALL_STATES; s++)
			if (t->ns[s] > t->stacked[s])
				wall_stack(w, s, t->pid, &wall_unknown_frame, 1,
					   t->ns[s] - t->stacked[s], 0);
	}
}

/* The intervals the window's end cut: claimed by the scan, charged to
 * the books and the stacks. */
static int wall_charge_open(struct prof_wall *w, void (*note)(int pid))
{
	struct wall_scan sc = { w, NULL, 0, 2 * WALL_TASKS, 0 };

	sc.open = kmalloc(sc.cap * sizeof(*sc.open));
	if (!sc.open)
		return -ENOMEM;
	task_for_each_all(wall_scan_task, &sc);
	w->open_lost = sc.lost;
	for (size_t i = 0; i < sc.n; i++) {
		struct wall_open *e = &sc.open[i];

		note(e->b.pid);
		wall_book(w, &e->b);
		wall_stack(w, e->s0, e->b.pid, e->frames, e->nframes, e->b.ns[e->s0], 0);
		if (e->s1 != e->s0)
			wall_stack(w, e->s1, e->b.pid, e->frames, e->nframes, e->b.ns[e->s1], 0);
	}
	kfree(sc.open);
	return 0;
}

/* Every task's books, copied at once. */
static int wall_take_all_books(struct prof_wall *w, void (*note)(int pid))
{
	struct wall_books bk = { w, NULL, 0, 4 * WALL_TASKS, false, 0 };

	bk.b = kmalloc(bk.cap * sizeof(*bk.b));
	if (!bk.b)
		return -ENOMEM;
	task_for_each_all(wall_copy_books, &bk);
	for (size_t i = 0; i < bk.n; i++) {
		note(bk.b[i].pid);
		wall_book(w, &bk.b[i]);
	}
	w->open_lost += bk.lost;
	kfree(bk.b);
	return 0;
}

int wall_collect(struct prof_wall *w, const struct prof_data *d,
		 void (*note)(int pid))
{
	int err;

	/* Every switch that read the window still open has finished. */
	wall_grace(w);
	/* A test holds the session here: switches meanwhile claim first. */
	race_point("wall-before-scan");
	err = wall_charge_open(w, note);
	race_point("wall-after-scan");
	/* Every switch that claimed an interval before the scan did has
	 * finished: its books and its record are in. */
	wall_grace(w);
	if (!err)
		err = wall_take_all_books(w, note);
	wall_drain_rings(w, w->cpus, note);
	wall_charge_unknown(w);
	for (unsigned i = 0; i < w->ntasks; i++)
		if (!wall_split_task(w, &w->tasks[i], &d->fold))
			wall_split_by_stacks(w, &w->tasks[i]);
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		w->dropped += __atomic_load_n(&offcpu_cpus[cpu].dropped, __ATOMIC_RELAXED) -
			      w->dropped0[cpu];
	/* No switch does anything for a wall run any more. */
	wall_unregister(w);
	return err;
}
