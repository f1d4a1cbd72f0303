/* SPDX-License-Identifier: BSD-2-Clause */
/* The drain: what the CPUs' rings hold, taken into the session's fold
 * table (and a rotating session's open interval) one drain at a time;
 * the session's books closed at its end (prof_collect()); the cut
 * between two intervals.  Task context; the session's state is
 * prof/run.h's. */
#include "prof/profiler.h"

#include "hal/cpu.h"
#include "hal/pmu.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/race_point.h"
#include "lib/ticks.h"
#include "prof/fold.h"
#include "prof/report.h"
#include "prof/run.h"
#include "prof/sampler.h"
#include "prof/wall.h"

/* The one drain that may read the rings at a time (each ring has one
 * consumer). */
static bool prof_draining;
static unsigned drain_synced[HAL_MAX_CPUS];	/* run whose start it read */
/* Each CPU's drop count when the open interval opened. */
static uint64_t interval_dropped0[HAL_MAX_CPUS];
/* Each CPU's drop count as the collect took it into the session's total:
 * the last interval closes against the same figures. */
static uint64_t collect_dropped[HAL_MAX_CPUS];

static bool prof_drain_claim(void)
{
	return !__atomic_exchange_n(&prof_draining, true, __ATOMIC_ACQUIRE);
}

void prof_drain_wait_claim(void)
{
	while (!prof_drain_claim()) {
		race_point("prof-drain-wait");
		sched_yield_cpu();
	}
}

void prof_drain_release(void)
{
	__atomic_store_n(&prof_draining, false, __ATOMIC_RELEASE);
}

/* ---- draining the rings into the session's fold table ---- */

/* The name of @pid, copied while the task list is held. */
struct prof_name_find {
	int pid;
	char *name;
};

static void prof_name_match(struct task *t, void *ctx)
{
	struct prof_name_find *f = ctx;

	if (t->pid == f->pid)
		kstrlcpy(f->name, t->name, PROF_TASK_NAME_MAX);
}

/* Remember @pid's name the first time @d sees it: a task may be gone by
 * the time a view prints. */
static void prof_note_task(struct prof_data *d, int pid)
{
	struct prof_name_find f;

	for (unsigned i = d->ntasks; i-- > 0;)
		if (d->tasks[i].pid == pid)
			return;
	if (d->ntasks == PROF_TASK_NAMES)
		return;
	d->tasks[d->ntasks].pid = pid;
	kstrlcpy(d->tasks[d->ntasks].name, "?", PROF_TASK_NAME_MAX);
	f.pid = pid;
	f.name = d->tasks[d->ntasks].name;
	task_for_each(prof_name_match, &f);
	d->ntasks++;
}

/* The wall books name the tasks they charge in the session's data. */
static void prof_note_session_task(int pid)
{
	prof_note_task(&prof_data, pid);
}

/* Count and fold record @r, taken on @cpu, into @d. */
static void prof_data_add(struct prof_data *d, unsigned cpu,
			  const struct prof_record *r)
{
	d->samples++;
	d->cpu_samples[cpu]++;
	if (!d->ntasks || r->pid != d->tasks[d->ntasks - 1].pid)
		prof_note_task(d, r->pid);
	if (fold_add_cpu(&d->fold, r, cpu) < 0) {
		/* A new chain the table has no room for: counted, never lost. */
		d->other++;
		d->other_weight += r->weight;
		d->other_cpus |= 1u << cpu;
		d->cpu_other[cpu]++;
		d->cpu_other_weight[cpu] += r->weight;
	}
}

static void prof_take(unsigned cpu, const uintptr_t *slot)
{
	struct prof_record r;
	uint32_t n = (uint32_t)(slot[0] >> 32);

	r.pid = (int32_t)(uint32_t)slot[0];
	r.nframes = n < prof_depth ? n : prof_depth;
	r.weight = slot[1];
	kmemcpy(r.frames, slot + PROF_RECORD_HEAD, r.nframes * sizeof(r.frames[0]));
	prof_data_add(&prof_data, cpu, &r);
	/* A rotating session's open interval takes it too: each sample is
	 * taken once, so it lands in exactly one interval. */
	if (prof_open_interval)
		prof_data_add(prof_open_interval, cpu, &r);
}

/* Take what @cpu has published since the last drain.  A CPU is read once
 * its tick has begun this run (its start is then this run's). */
static void prof_drain_cpu(unsigned cpu)
{
	struct prof_cpu *c = &prof_cpus[cpu];
	uint64_t stride = PROF_RECORD_HEAD + prof_depth, head, tail;

	if (__atomic_load_n(&c->gen_seen, __ATOMIC_ACQUIRE) != prof_data_gen)
		return;
	if (drain_synced[cpu] != prof_data_gen) {
		__atomic_store_n(&c->tail, __atomic_load_n(&c->start, __ATOMIC_RELAXED),
				 __ATOMIC_RELEASE);
		drain_synced[cpu] = prof_data_gen;
	}
	tail = __atomic_load_n(&c->tail, __ATOMIC_RELAXED);
	head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
	for (; tail != head; tail++) {
		race_point("prof-drain-take");
		prof_take(cpu, c->ring + (tail % prof_cap) * stride);
	}
	/* The slots are the sampler's again. */
	__atomic_store_n(&c->tail, tail, __ATOMIC_RELEASE);
}

/* Under the drain flag: every CPU of the run that armed, and that
 * answered the stop once the stop was waited for. */
static void prof_drain_locked(uint32_t skip)
{
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		if (((prof_run.cpus & ~skip) >> cpu) & 1)
			prof_drain_cpu(cpu);
	wall_drain(prof_data.wall, prof_run.cpus & ~skip, prof_note_session_task);
}

int prof_drain(void)
{
	race_point("prof-drain-claim");
	if (!prof_drain_claim())
		return -EBUSY;
	if (prof_data_gen && prof_collected_gen != prof_data_gen)
		prof_drain_locked(prof_run.unarmed);
	prof_drain_release();
	return 0;
}

/* @t of hal_cpu_time() in nanoseconds, integers only. */
static uint64_t prof_cpu_time_ns(uint64_t t)
{
	uint64_t per = hal_cpu_time_per_sec();

	return per ? count_to_ns(t, per) : 0;
}

/* The CPUs whose drops the books count: every CPU of the run whose
 * samples the drains take (all but those that never armed in time, which
 * contribute nothing), whether or not it answered the stop -- what a
 * CPU that missed the stop dropped before it was left out was counted in
 * an interval already.  One mask for the session's total and for every
 * interval of a rotating session, so that the intervals' drops add up to
 * the total's. */
static uint32_t prof_drop_cpus(void)
{
	return prof_run.cpus & ~prof_run.unarmed;
}

/* @cpu's drops in this run so far: 0 for a CPU outside the books, or one
 * whose tick has not begun the run (its count is an older run's). */
static uint64_t prof_cpu_dropped_now(unsigned cpu)
{
	const struct prof_cpu *c = &prof_cpus[cpu];

	if (!((prof_drop_cpus() >> cpu) & 1) ||
	    __atomic_load_n(&c->gen_seen, __ATOMIC_ACQUIRE) != prof_data_gen)
		return 0;
	return __atomic_load_n(&c->dropped, __ATOMIC_RELAXED);
}

void prof_collect(void)
{
	struct prof_data *d = &prof_data;
	uint32_t skip = prof_run.missing | prof_run.unarmed;
	uint64_t throttled = 0;

	if (!prof_data_gen || prof_collected_gen == prof_data_gen)
		return;
	/* A periodic drain may be under way on another CPU: it finishes
	 * soon, and the rest is ours. */
	prof_drain_wait_claim();
	prof_drain_locked(skip);
	d->window_ns = prof_run.stop_ns - prof_run.start_ns;
	d->missing = prof_run.missing;
	d->wait_ns = prof_run.wait_ns;
	d->unarmed = prof_run.unarmed & ~prof_run.missing;
	d->arm_wait_ns = prof_run.arm_wait_ns;
	d->run_cpus = prof_run.cpus & ~skip;
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		collect_dropped[cpu] = prof_cpu_dropped_now(cpu);
		d->dropped += collect_dropped[cpu];
	}
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		struct prof_cpu *c = &prof_cpus[cpu];

		if (!((d->run_cpus >> cpu) & 1))
			continue;
		if (c->arm_failed)
			d->arm_failed |= 1u << cpu;
		d->errors += __atomic_load_n(&c->errors, __ATOMIC_RELAXED);
		if (__atomic_load_n(&c->throttled, __ATOMIC_RELAXED) > throttled)
			throttled = __atomic_load_n(&c->throttled, __ATOMIC_RELAXED);
		if (c->t1 > c->t0 && c->idle1 >= c->idle0) {
			d->cpu_ns[cpu] = c->t1 - c->t0;
			d->cpu_idle_ns[cpu] = c->idle1 - c->idle0;
			d->cpu_run_ns[cpu] = prof_cpu_time_ns(c->ct1 - c->ct0);
		}
	}
	/* The slowest CPU's rate: the one the header names. */
	if (throttled)
		d->throttled_hz = prof_pmu_info()->events_per_sec / throttled;
	/* Every sample is in: the wall books split running time by them. */
	if (d->wall && wall_collect(d->wall, d, prof_note_session_task) < 0)
		d->wall->incomplete = true;
	/* Closed before a drain can look again. */
	prof_collected_gen = prof_data_gen;
	prof_drain_release();
}

/* ---- intervals of a rotating session (session.c) ---- */

int prof_interval_prepare(struct prof_data *iv, size_t limit)
{
	fold_free(&iv->fold);
	kmemset(iv, 0, sizeof(*iv));
	if (fold_init(&iv->fold, limit, prof_data.depth) < 0)
		return -ENOMEM;
	iv->depth = prof_data.depth;
	iv->hz = prof_data.hz;
	iv->source = prof_data.source;
	iv->counter = prof_data.counter;
	iv->pid = prof_data.pid;
	iv->weight_per_sec = prof_data.weight_per_sec;
	iv->fold.exact_leaf = true;
	return 0;
}

/* Close @iv's books at the cut: the CPUs whose samples count, and the
 * drops since the last cut (each CPU's count only grows within a run,
 * from 0 once gen_seen names it).  Under the drain claim. */
static void prof_interval_close_books(struct prof_data *iv)
{
	bool collected = prof_collected_gen == prof_data_gen;

	iv->run_cpus = prof_run.cpus & ~(prof_run.unarmed | prof_run.missing);
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		uint64_t now = collected ? collect_dropped[cpu] : prof_cpu_dropped_now(cpu);

		iv->dropped += now - interval_dropped0[cpu];
		interval_dropped0[cpu] = now;
	}
}

int prof_interval_cut(struct prof_data *closing, struct prof_data *opening,
		      uint64_t *at_ns)
{
	prof_drain_wait_claim();
	if (!prof_data_gen || closing != prof_open_interval) {
		prof_drain_release();
		return -ESTALE;
	}
	/* Every CPU's ring up to its head now: what they publish from here
	 * on is the next interval's.  A collected run has nothing left, and
	 * its last interval ends where sampling stopped. */
	if (prof_collected_gen != prof_data_gen) {
		prof_drain_locked(prof_run.unarmed);
		*at_ns = hal_clock_ns();
	} else {
		*at_ns = prof_run.stop_ns;
	}
	if (closing)
		prof_interval_close_books(closing);
	else
		kmemset(interval_dropped0, 0, sizeof(interval_dropped0));
	prof_open_interval = opening;
	prof_drain_release();
	return 0;
}
