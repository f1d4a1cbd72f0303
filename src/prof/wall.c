/* SPDX-License-Identifier: BSD-2-Clause */
/* A wall run's life (prof/wall.h): its rings and books made at the
 * begin, the switch hook registered and taken away, the grace periods
 * that wait the hook out on the other CPUs, and the window's bounds as
 * the hook reads them.  What happens inside the window is wall_start.c
 * (its start), wall_books.c (the drain) and wall_collect.c (its end);
 * the views are wall_views.c. */
#include "prof/wall_internal.h"

#include "kernel/heap.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "kernel/tick.h"
#include "lib/errno.h"
#include "prof/offcpu.h"

static const char *const wall_names[WALL_STATES] = { "cpu", "runnable", "blocked" };

const char *wall_state_name(enum wall_state s)
{
	return s < WALL_STATES ? wall_names[s] : "?";
}

uint64_t wall_task_ns(const struct wall_task *t)
{
	return t->ns[WALL_CPU] + t->ns[WALL_RUNNABLE] + t->ns[WALL_BLOCKED];
}

/* ---- the rings ---- */

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
void wall_grace(struct prof_wall *w)
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

static void wall_release_hold(struct task *t, void *ctx)
{
	(void)ctx;
	if (__atomic_load_n(&t->wall.hold, __ATOMIC_RELAXED))
		__atomic_store_n(&t->wall.hold, 0, __ATOMIC_RELEASE);
}

/* The hook away, and every task it held for the books let go. */
void wall_unregister(struct prof_wall *w)
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
