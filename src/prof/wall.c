/* SPDX-License-Identifier: BSD-2-Clause */
/* A wall-clock profile's books and views (prof/wall.h): the switch
 * hook's records (prof/offcpu.h) clipped to the window and folded by
 * state, each task's open interval charged at the end, and running time
 * split over the task's sampled chains -- by their weight, never a
 * nominal period. */
#include "prof/wall.h"

#include "kernel/backtrace.h"
#include "kernel/heap.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "prof/offcpu.h"
#include "prof/report.h"

static const char *const wall_names[WALL_STATES] = { "cpu", "runnable", "blocked" };

const char *wall_state_name(enum wall_state s)
{
	return s < WALL_STATES ? wall_names[s] : "?";
}

uint64_t wall_task_ns(const struct wall_task *t)
{
	return t->ns[WALL_CPU] + t->ns[WALL_RUNNABLE] + t->ns[WALL_BLOCKED];
}

/* ---- the books ---- */

static int wall_rings_alloc(uint32_t cpus)
{
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		struct offcpu_cpu *oc = &offcpu_cpus[cpu];

		if (!((cpus >> cpu) & 1) || oc->ring)
			continue;
		oc->ring = kmalloc(OFFCPU_RING_RECORDS * OFFCPU_STRIDE * sizeof(*oc->ring));
		if (!oc->ring)
			return -ENOMEM;
		/* Published after the rest: the hook writes only to a ring. */
		__atomic_store_n(&oc->tail, __atomic_load_n(&oc->head, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	}
	return 0;
}

void wall_free(struct prof_wall *w)
{
	if (!w)
		return;
	for (unsigned s = 0; s < WALL_STATES; s++)
		fold_free(&w->fold[s]);
	fold_free(&w->run_stacks);
	kfree(w);
}

struct prof_wall *wall_begin(unsigned gen, unsigned depth, uint32_t cpus)
{
	struct prof_wall *w;
	bool ok = true;

	if (wall_rings_alloc(cpus) < 0)
		return NULL;
	w = kzalloc(sizeof(*w));
	if (!w)
		return NULL;
	for (unsigned s = 0; s < WALL_STATES; s++)
		ok &= fold_init(&w->fold[s], PROF_FOLD_CHAINS, depth) == 0;
	ok &= fold_init(&w->run_stacks, PROF_FOLD_CHAINS, depth) == 0;
	if (!ok) {
		wall_free(w);
		return NULL;
	}
	w->gen = gen;
	w->cpus = cpus;
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		struct offcpu_cpu *oc = &offcpu_cpus[cpu];

		w->dropped0[cpu] = oc->dropped;
		/* What an older run left unread is not this run's. */
		if (oc->ring)
			__atomic_store_n(&oc->tail, __atomic_load_n(&oc->head, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
	}
	__atomic_store_n(&offcpu_depth, depth, __ATOMIC_RELAXED);
	__atomic_store_n(&offcpu_until, UINT64_MAX, __ATOMIC_RELEASE);
	/* From here on every switch writes records of this run. */
	__atomic_store_n(&offcpu_gen, gen, __ATOMIC_RELEASE);
	return w;
}

void wall_open(struct prof_wall *w, uint64_t start_ns)
{
	w->start_ns = start_ns;
}

void wall_close(struct prof_wall *w, uint64_t stop_ns)
{
	w->stop_ns = stop_ns;
	/* A switch that reads this charges only up to it, and an interval
	 * it cuts only once (offcpu_claim_crossing()). */
	__atomic_store_n(&offcpu_until, stop_ns, __ATOMIC_RELEASE);
}

/* The part of [a, b) inside the window. */
static uint64_t wall_clip(const struct prof_wall *w, uint64_t a, uint64_t b)
{
	uint64_t stop = w->stop_ns ? w->stop_ns : UINT64_MAX;

	if (a < w->start_ns)
		a = w->start_ns;
	if (b > stop)
		b = stop;
	return b > a ? b - a : 0;
}

static struct wall_task *wall_task_of(struct prof_wall *w, int32_t pid)
{
	for (unsigned i = w->ntasks; i-- > 0;)
		if (w->tasks[i].pid == pid)
			return &w->tasks[i];
	if (w->ntasks == WALL_TASKS)
		return NULL;
	w->tasks[w->ntasks].pid = pid;
	return &w->tasks[w->ntasks++];
}

/* @ns of task @pid in state @s, at @frames (running time goes to the
 * run stacks until the collect splits it). */
static void wall_charge(struct prof_wall *w, enum wall_state s, int32_t pid,
			const uintptr_t *frames, uint32_t n, uint64_t ns, unsigned cpu)
{
	struct wall_task *t;
	struct prof_record r;

	if (!ns)
		return;
	t = wall_task_of(w, pid);
	if (!t) {
		w->other_ns += ns;
		return;
	}
	t->ns[s] += ns;
	r.pid = pid;
	r.nframes = n;
	r.weight = ns;
	kmemcpy(r.frames, frames, n * sizeof(r.frames[0]));
	/* A chain the table has no room for keeps its time in the task's
	 * books; the views count the difference as other. */
	(void)fold_add_cpu(s == WALL_CPU ? &w->run_stacks : &w->fold[s], &r, cpu);
}

static void wall_take(struct prof_wall *w, const struct offcpu_record *r,
		      unsigned cpu)
{
	struct wall_task *t;
	uint64_t wake;

	if (r->kind == OFFCPU_RUN) {
		wall_charge(w, WALL_CPU, r->pid, r->frames, r->nframes,
			    wall_clip(w, r->a, r->end), cpu);
		if ((r->flags & OFFCPU_DIED) && r->end >= w->start_ns &&
		    (t = wall_task_of(w, r->pid))) {
			t->died = true;
			t->died_ns = r->end;
		}
		return;
	}
	/* Blocked from the switch-out to the wake, runnable from the wake
	 * (the switch-out itself after a preemption) to the switch-in. */
	wake = r->b < r->a ? r->a : r->b > r->end ? r->end : r->b;
	wall_charge(w, WALL_BLOCKED, r->pid, r->frames, r->nframes,
		    wall_clip(w, r->a, wake), cpu);
	wall_charge(w, WALL_RUNNABLE, r->pid, r->frames, r->nframes,
		    wall_clip(w, wake, r->end), cpu);
	if ((r->flags & OFFCPU_BORN) && r->a >= w->start_ns &&
	    (t = wall_task_of(w, r->pid))) {
		t->born = true;
		t->born_ns = r->a;
	}
}

static void wall_drain_cpu(struct prof_wall *w, unsigned cpu, void (*note)(int pid))
{
	struct offcpu_cpu *oc = &offcpu_cpus[cpu];
	uint64_t tail, head;
	struct offcpu_record r;

	if (!oc->ring)
		return;
	tail = oc->tail;
	head = __atomic_load_n(&oc->head, __ATOMIC_ACQUIRE);
	for (; tail != head; tail++) {
		offcpu_unpack(oc->ring + (tail % OFFCPU_RING_RECORDS) * OFFCPU_STRIDE, &r);
		/* A straggler of an older run. */
		if (r.gen != w->gen)
			continue;
		note(r.pid);
		wall_take(w, &r, cpu);
	}
	/* The slots are the hook's again. */
	__atomic_store_n(&oc->tail, tail, __ATOMIC_RELEASE);
}

void wall_drain(struct prof_wall *w, uint32_t cpus, void (*note)(int pid))
{
	/* Records before the window opened wait for its start. */
	if (!w || !w->start_ns)
		return;
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		if ((cpus >> cpu) & 1)
			wall_drain_cpu(w, cpu, note);
}

/* ---- the collect: intervals the window's end cut ---- */

/* A task's interval open at the window's end, copied under the task
 * list lock and charged after it (charging may allocate). */
struct wall_open {
	int32_t pid;
	struct offcpu_record r;
	uintptr_t frames[PROF_MAX_FRAMES];
};

struct wall_scan {
	const struct prof_wall *w;
	struct wall_open *open;
	size_t n, cap;
	uint64_t lost;
};

/* Under the task list lock, interrupts off.  A switch on another CPU
 * now ends after the window (the collect runs after it), so it claims
 * the interval before it charges it: of the two, the first claim
 * charges.  Its slot's times are written after its claim, and the
 * running flag after the times, so what is read here before the claim
 * is the interval the claim is for. */
static void wall_scan_task(struct task *t, void *ctx)
{
	struct wall_scan *sc = ctx;
	struct wall_open *e;
	bool on;

	if (t->is_idle)
		return;
	if (sc->n == sc->cap) {
		sc->lost++;
		return;
	}
	e = &sc->open[sc->n];
	on = __atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE);
	e->pid = t->pid;
	e->r.pid = t->pid;
	e->r.a = on ? t->in_ns : t->off_ns;
	e->r.end = sc->w->stop_ns;
	if (e->r.a >= e->r.end)
		return;		/* the switch that began it after the end charged the rest */
	e->r.kind = on ? OFFCPU_RUN : OFFCPU_WAIT;
	e->r.flags = !on && t->in_ns == 0 ? OFFCPU_BORN : 0;
	e->r.b = __atomic_load_n(&t->wake_ns, __ATOMIC_RELAXED);
	/* Not woken since it went off: blocked to the end. */
	if (e->r.b < e->r.a || e->r.b > e->r.end)
		e->r.b = e->r.end;
	if (on || t->in_ns == 0) {
		/* Running: the split takes its samples' chains; a task that
		 * has not run yet waits at its entry. */
		e->frames[0] = (uintptr_t)t->fn;
		e->r.nframes = 1;
	} else {
		e->r.nframes = t->off_nframes > PROF_MAX_FRAMES ? PROF_MAX_FRAMES
								: t->off_nframes;
		kmemcpy(e->frames, t->off_frames, e->r.nframes * sizeof(e->frames[0]));
	}
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
	uint64_t total = 0, given = 0, ns = t->ns[WALL_CPU];
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

int wall_collect(struct prof_wall *w, const struct prof_data *d,
		 void (*note)(int pid))
{
	struct wall_scan sc = { w, NULL, 0, 2 * WALL_TASKS, 0 };

	sc.open = kmalloc(sc.cap * sizeof(*sc.open));
	if (!sc.open)
		return -ENOMEM;
	task_for_each(wall_scan_task, &sc);
	w->open_lost = sc.lost;
	for (size_t i = 0; i < sc.n; i++) {
		sc.open[i].r.frames = sc.open[i].frames;
		note(sc.open[i].pid);
		wall_take(w, &sc.open[i].r, 0);
	}
	kfree(sc.open);
	/* A switch between the session's last drain and the scan may have
	 * claimed a task's crossing interval first (the scan then skipped
	 * it) and written its record after that drain: take it now.  No
	 * later switch writes one: the scan holds every other claim. */
	wall_drain(w, w->cpus, note);
	for (unsigned i = 0; i < w->ntasks; i++)
		if (!wall_split_task(w, &w->tasks[i], &d->fold))
			wall_split_by_stacks(w, &w->tasks[i]);
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		w->dropped += offcpu_cpus[cpu].dropped - w->dropped0[cpu];
	/* No switch writes records of this run any more. */
	__atomic_store_n(&offcpu_gen, 0, __ATOMIC_RELEASE);
	return 0;
}
