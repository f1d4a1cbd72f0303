/* SPDX-License-Identifier: BSD-2-Clause */
/* A wall-clock profile's books and views (prof/wall.h): the switch
 * hook's records (prof/offcpu.h) clipped to the window and folded by
 * state, each task's open interval charged at the end, and running time
 * split over the task's sampled chains -- by their weight, never a
 * nominal period. */
#include "prof/wall.h"

#include "kernel/backtrace.h"
#include "kernel/heap.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "kernel/tick.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/race_point.h"
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

/* ---- grace periods: waiting out the hook on the other CPUs ---- */

/* How long a grace period waits for a CPU to leave the hook: far longer
 * than a switch, even on a host that deschedules the CPU inside it. */
#define WALL_GRACE_NS 2000000000ull

struct wall_grace {
	unsigned seq[HAL_MAX_CPUS];
	uint32_t inside;
};

static uint32_t wall_grace_left(void *arg)
{
	struct wall_grace *g = arg;
	uint32_t left = 0;

	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		if (((g->inside >> cpu) & 1) &&
		    __atomic_load_n(&offcpu_cpus[cpu].hook_seq, __ATOMIC_ACQUIRE) == g->seq[cpu])
			left |= 1u << cpu;
	g->inside = left;
	return left;
}

/* Wait until every CPU inside the hook now has left it: whatever it
 * read of the run before this call, it has finished writing.  A hook
 * that enters after it sees everything the session stored before
 * (offcpu_switch()'s fence and this one). */
static void wall_grace(struct prof_wall *w)
{
	struct wall_grace g = { { 0 }, 0 };

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		unsigned seq = __atomic_load_n(&offcpu_cpus[cpu].hook_seq, __ATOMIC_ACQUIRE);

		if (seq & 1) {
			g.seq[cpu] = seq;
			g.inside |= 1u << cpu;
		}
	}
	if (g.inside)
		w->grace_missed |= sched_wait_cpus(wall_grace_left, &g, WALL_GRACE_NS,
						   sched_pause_tick, NULL);
}

/* ---- the run's life ---- */

/* A task off its CPU at the window's start, and the stack it waits at. */
struct wall_start {
	int32_t pid;
	bool on_cpu;
	bool blocked;			/* off and not woken */
	bool walked;			/* else its stack is unknown */
	uint64_t wake_ns;		/* its last wake then */
	uint32_t nframes;
	uintptr_t frames[PROF_MAX_FRAMES];
};

#define WALL_STARTS (2 * WALL_TASKS)

static void wall_release_hold(struct task *t, void *ctx)
{
	(void)ctx;
	if (__atomic_load_n(&t->wall.hold, __ATOMIC_RELAXED))
		__atomic_store_n(&t->wall.hold, 0, __ATOMIC_RELEASE);
}

/* The hook away, and every task it held for the books let go. */
static void wall_unregister(struct prof_wall *w)
{
	if (__atomic_load_n(&offcpu_gen, __ATOMIC_ACQUIRE) != w->gen)
		return;
	offcpu_register(0);
	wall_grace(w);
	task_for_each_all(wall_release_hold, NULL);
}

void wall_free(struct prof_wall *w)
{
	if (!w)
		return;
	wall_unregister(w);
	for (unsigned s = 0; s < WALL_STATES; s++)
		fold_free(&w->fold[s]);
	fold_free(&w->run_stacks);
	kfree(w->starts);
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
	w->starts = kmalloc(WALL_STARTS * sizeof(*w->starts));
	if (!ok || !w->starts) {
		wall_free(w);
		return NULL;
	}
	w->gen = gen;
	w->cpus = cpus;
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		struct offcpu_cpu *oc = &offcpu_cpus[cpu];

		w->dropped0[cpu] = __atomic_load_n(&oc->dropped, __ATOMIC_RELAXED);
		/* What an older run left unread is not this run's. */
		if (oc->ring)
			__atomic_store_n(&oc->tail, __atomic_load_n(&oc->head, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
	}
	__atomic_store_n(&offcpu_depth, depth, __ATOMIC_RELAXED);
	__atomic_store_n(&offcpu_tick_period_ns, 1000000000ull / tick_hz(), __ATOMIC_RELAXED);
	__atomic_store_n(&offcpu_start, OFFCPU_UNSET, __ATOMIC_RELEASE);
	__atomic_store_n(&offcpu_until, OFFCPU_UNSET, __ATOMIC_RELEASE);
	/* From here on every switch keeps the books of this run. */
	offcpu_register(gen);
	return w;
}

/* Under the task list lock: a task off its CPU since before the hook's
 * first switch of it, and the stack it waits at, walked while its CPU
 * cannot pick it (offcpu_walk_waiting()). */
static void wall_walk_start(struct task *t, void *ctx)
{
	struct prof_wall *w = ctx;
	struct wall_start *e;
	unsigned spins = 0;
	int n;

	if (t->is_idle || t->state == TASK_DEAD ||
	    __atomic_load_n(&t->wall.gen, __ATOMIC_ACQUIRE) == w->gen)
		return;		/* the hook has its stamps */
	if (!__atomic_load_n(&t->wall.started, __ATOMIC_ACQUIRE) && t->state != TASK_RUNNING)
		return;		/* never ran: it waits at its entry */
	if (w->nstarts == WALL_STARTS)
		return;
	e = &w->starts[w->nstarts++];
	e->pid = t->pid;
	e->on_cpu = false;
	e->walked = false;
	e->nframes = 0;
	e->blocked = t->state == TASK_SLEEPING || t->state == TASK_BLOCKED;
	e->wake_ns = __atomic_load_n(&t->wall.wake_ns, __ATOMIC_RELAXED);
	/* Leaving its CPU right now: its switch-out is a few instructions. */
	while ((n = offcpu_walk_waiting(t, e->frames,
					__atomic_load_n(&offcpu_depth, __ATOMIC_RELAXED))) ==
		       OFFCPU_WALK_LEAVING && spins++ < 100000)
		hal_cpu_relax();
	if (n < 0) {
		/* Running (or still leaving): its interval is open. */
		e->on_cpu = true;
		return;
	}
	e->nframes = (uint32_t)n;
	e->walked = true;
}

static const struct wall_start *wall_start_of(const struct prof_wall *w, int32_t pid)
{
	for (unsigned i = 0; i < w->nstarts; i++)
		if (w->starts[i].pid == pid)
			return &w->starts[i];
	return NULL;
}

/* Take the clock into a bound of the window the hook reads
 * (offcpu_window()): the pending mark first, so that a hook reading the
 * old value read its own clock before this one. */
static uint64_t wall_publish_now(uint64_t *bound)
{
	unsigned long flags = hal_irq_save();
	uint64_t now;

	__atomic_store_n(bound, OFFCPU_PENDING, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	now = hal_clock_ns();
	__atomic_store_n(bound, now, __ATOMIC_RELEASE);
	hal_irq_restore(flags);
	return now;
}

uint64_t wall_open(struct prof_wall *w)
{
	/* Every switch that began before the hook was there is over: a
	 * task's parity is now whether it is on its CPU. */
	wall_grace(w);
	task_for_each(wall_walk_start, w);
	w->start_ns = wall_publish_now(&offcpu_start);
	return w->start_ns;
}

uint64_t wall_close(struct prof_wall *w)
{
	w->stop_ns = wall_publish_now(&offcpu_until);
	if (!w->start_ns)
		w->start_ns = w->stop_ns;
	return w->stop_ns;
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

/* @ns of task @pid in state @s at @frames: the stacks' side of the
 * books (running time goes to the run stacks until the collect splits
 * it). */
static void wall_stack(struct prof_wall *w, enum wall_state s, int32_t pid,
		       const uintptr_t *frames, uint32_t n, uint64_t ns, unsigned cpu)
{
	struct wall_task *t;
	struct prof_record r;

	if (!ns)
		return;
	t = wall_task_of(w, pid);
	if (!t)
		return;		/* its books go to other_ns */
	t->stacked[s] += ns;
	r.pid = pid;
	r.nframes = n;
	r.weight = ns;
	kmemcpy(r.frames, frames, n * sizeof(r.frames[0]));
	/* A chain the table has no room for keeps its time in the task's
	 * books; the views count the difference as other. */
	(void)fold_add_cpu(s == WALL_CPU ? &w->run_stacks : &w->fold[s], &r, cpu);
}

static const uintptr_t wall_unknown_frame = FOLD_UNKNOWN;

/* A run's time after a tick it held back (offcpu_held_back()): no
 * sample of the task's stands for it, so it is charged where the task
 * left its CPU, and kept out of the split over its samples. */
static void wall_held_back(struct prof_wall *w, const struct offcpu_record *r, unsigned cpu)
{
	struct wall_task *t;
	struct prof_record k;

	if (!r->ns_b)
		return;
	t = wall_task_of(w, r->pid);
	if (!t)
		return;		/* its books go to other_ns */
	t->stacked[WALL_CPU] += r->ns_b;
	t->held_ns += r->ns_b;
	k.pid = r->pid;
	k.nframes = r->nframes ? r->nframes : 1;
	k.weight = r->ns_b;
	if (r->nframes)
		kmemcpy(k.frames, r->frames, r->nframes * sizeof(k.frames[0]));
	else
		k.frames[0] = FOLD_UNKNOWN;
	(void)fold_add_cpu(&w->fold[WALL_CPU], &k, cpu);
}

/* A wait's stack: the record's own, or the one the window's start
 * walked, or unknown. */
static void wall_wait_frames(const struct prof_wall *w, const struct offcpu_record *r,
			     const uintptr_t **frames, uint32_t *n)
{
	const struct wall_start *e;

	*frames = r->frames;
	*n = r->nframes;
	if (!(r->flags & OFFCPU_START_STACK))
		return;
	e = wall_start_of(w, r->pid);
	if (e && e->walked && e->nframes) {
		*frames = e->frames;
		*n = e->nframes;
	} else {
		*frames = &wall_unknown_frame;
		*n = 1;
	}
}

static void wall_take(struct prof_wall *w, const struct offcpu_record *r, unsigned cpu)
{
	const uintptr_t *frames;
	uint32_t n;

	if (r->kind == OFFCPU_RUN) {
		wall_stack(w, WALL_CPU, r->pid, r->frames, r->nframes, r->ns_a - r->ns_b, cpu);
		wall_held_back(w, r, cpu);
		return;
	}
	wall_wait_frames(w, r, &frames, &n);
	wall_stack(w, WALL_BLOCKED, r->pid, frames, n, r->ns_a, cpu);
	wall_stack(w, WALL_RUNNABLE, r->pid, frames, n, r->ns_b, cpu);
}

/* A task's books as its slot kept them, and its birth and exit. */
struct wall_book {
	int32_t pid;
	uint64_t ns[WALL_STATES];
	uint64_t born_ns, died_ns;
	bool died;
};

static void wall_book(struct prof_wall *w, const struct wall_book *b)
{
	struct wall_task *t = wall_task_of(w, b->pid);
	/* A drain takes the books of tasks gone while the window is open. */
	uint64_t stop = w->stop_ns ? w->stop_ns : UINT64_MAX;

	if (!t) {
		for (unsigned s = 0; s < WALL_STATES; s++)
			w->other_ns += b->ns[s];
		return;
	}
	for (unsigned s = 0; s < WALL_STATES; s++)
		t->ns[s] += b->ns[s];
	if (b->born_ns >= w->start_ns && b->born_ns < stop) {
		t->born = true;
		t->born_ns = b->born_ns;
	}
	if (b->died && b->died_ns >= w->start_ns && b->died_ns <= stop) {
		t->died = true;
		t->died_ns = b->died_ns;
	}
}

/* Books copied under the task list lock, charged after it. */
struct wall_books {
	const struct prof_wall *w;
	struct wall_book *b;
	size_t n, cap;
	bool dead_only;		/* a drain: the tasks gone, whose books are final */
	uint64_t lost;
};

static void wall_copy_books(struct task *t, void *ctx)
{
	struct wall_books *bk = ctx;
	struct wall_book *b;
	bool dead = t->state == TASK_DEAD && __atomic_load_n(&t->off_cpu, __ATOMIC_ACQUIRE);

	if (t->is_idle || __atomic_load_n(&t->wall.gen, __ATOMIC_ACQUIRE) != bk->w->gen ||
	    (bk->dead_only && !dead))
		return;
	if (bk->n == bk->cap) {
		bk->lost++;
		return;
	}
	b = &bk->b[bk->n++];
	b->pid = t->pid;
	for (unsigned s = 0; s < WALL_STATES; s++)
		b->ns[s] = t->wall.ns[s];
	b->born_ns = t->wall.born_ns;
	b->died = dead;
	b->died_ns = __atomic_load_n(&t->wall.off_ns, __ATOMIC_RELAXED);
	if (dead) {
		/* Taken: never again, and the reaper may have it. */
		__atomic_store_n(&t->wall.gen, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&t->wall.hold, 0, __ATOMIC_RELEASE);
	}
}

/* Take the books of the tasks gone into @w, a few at a time (a drain
 * runs on a task's stack). */
static void wall_take_dead_books(struct prof_wall *w, void (*note)(int pid))
{
	struct wall_book buf[16];
	struct wall_books bk = { w, buf, 0, 16, true, 0 };

	do {
		bk.n = 0;
		bk.lost = 0;
		task_for_each_all(wall_copy_books, &bk);
		for (size_t i = 0; i < bk.n; i++) {
			note(bk.b[i].pid);
			wall_book(w, &bk.b[i]);
		}
		/* Each task taken is let go: a pass that had no room for
		 * all of them goes on with the rest. */
	} while (bk.lost);
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

static void wall_drain_rings(struct prof_wall *w, uint32_t cpus, void (*note)(int pid))
{
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		if ((cpus >> cpu) & 1)
			wall_drain_cpu(w, cpu, note);
}

void wall_drain(struct prof_wall *w, uint32_t cpus, void (*note)(int pid))
{
	/* Nothing is charged before the window opens. */
	if (!w || !w->start_ns)
		return;
	wall_drain_rings(w, cpus, note);
	/* The books of tasks gone, so that the reaper may free them. */
	wall_take_dead_books(w, note);
}

/* ---- the collect: intervals the window's end cut ---- */

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
		if (!on) {
			uint32_t n = __atomic_load_n(&t->wall.off_nframes, __ATOMIC_RELAXED);

			e->nframes = n > PROF_MAX_FRAMES ? PROF_MAX_FRAMES : n;
			kmemcpy(e->frames, t->wall.off_frames, e->nframes * sizeof(e->frames[0]));
		}
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
