/* SPDX-License-Identifier: BSD-2-Clause */
/* `stat` on each CPU: its tick opens the session's events, rotates the
 * sets when they outnumber the counters, and reads the end and closes;
 * the task followed (`stat pid=`) has its counts saved and restored at
 * its switches.  Tick and switch context, interrupts off, under the
 * sampler's rules (sampler.c's head): no lock, no allocation, only this
 * CPU's state -- stat_cpus[hal_cpu_id()], this CPU's own bit of
 * stat_open_cpus (an atomic or/and), and stat_task on the task's own CPU
 * only; the plan (sampler.h) is read, never written.
 *
 * Each CPU counts in segments: from one open, rotation or switch of the
 * followed task to the next.  At each boundary the events counting are
 * read and their differences and the segment's length are added to the
 * events that counted (and to the task, when it was the one running).
 * So an event's count over its running time, scaled by the window's
 * length, is what a steady load would have given it alone -- the
 * enabled / running scaling perf does. */
#include "prof/sampler.h"

#include "hal/cpu.h"
#include "hal/pmu.h"
#include "hal/timer.h"
#include "kernel/kevents.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/kstring.h"
#include "prof/stat_test.h"

struct stat_cpu stat_cpus[HAL_MAX_CPUS];
uint32_t stat_open_cpus;
struct stat_run_plan stat_run_plan;
struct stat_task_books stat_task;

/* This CPU's bit in stat_open_cpus: set before its events open, cleared
 * once they are closed, so that no session sees the counters free while
 * this CPU still counts.  The last CPU to close releases `stat`'s claim
 * this way, lock-free, from its tick. */
static void stat_cpu_mark_open(bool open)
{
	uint32_t bit = 1u << hal_cpu_id();

	if (open)
		__atomic_fetch_or(&stat_open_cpus, bit, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&stat_open_cpus, ~bit, __ATOMIC_RELEASE);
}

/* The task followed is the one running here now. */
static bool stat_task_running(unsigned cpu)
{
	const struct stat_run_plan *p = &stat_run_plan;
	const struct task *cur = cpus[cpu].current;

	return p->task_pid && p->task_cpu == cpu && cur && cur->pid == p->task_pid;
}

/* Event @i's raw count now, or false when the set programmed does not
 * count it. */
static bool stat_raw(const struct stat_cpu *c, unsigned cpu, unsigned i,
		     const uint64_t *raw, uint64_t *v)
{
	const struct stat_run_plan *p = &stat_run_plan;
	int pos;

	if (p->kernel[i]) {
		*v = kevent_read(cpu, (enum kevent)p->id[i]);
		return true;
	}
	pos = p->pos[c->set][i];
	if (pos < 0 || !c->open[pos])
		return false;
	*v = raw[pos];
	return true;
}

/* Close the segment that ends now: its counts and its length to the
 * events that counted, and to the task when @task_on. */
static void stat_cpu_settle(struct stat_cpu *c, unsigned cpu, bool task_on)
{
	const struct stat_run_plan *p = &stat_run_plan;
	uint64_t raw[HAL_PMU_COUNT_MAX], now = hal_clock_ns(), dt = now - c->seg_ns, v;

	if (p->set_n[c->set])
		hal_pmu_count_read(raw);
	for (unsigned i = 0; i < p->n; i++) {
		uint64_t d;

		if (!stat_raw(c, cpu, i, raw, &v))
			continue;
		d = stat_delta(c->base[i], v, p->bits[i]);
		c->base[i] = v;
		c->count[i] += d;
		c->run_ns[i] += dt;
		if (task_on) {
			stat_task.count[i] += d;
			stat_task.run_ns[i] += dt;
		}
	}
	if (task_on)
		stat_task.enabled_ns += dt;
	c->seg_ns = now;
}

/* Program set @set and take its events' starting counts. */
static void stat_cpu_program(struct stat_cpu *c, unsigned cpu, unsigned set)
{
	const struct stat_run_plan *p = &stat_run_plan;
	uint64_t raw[HAL_PMU_COUNT_MAX] = { 0 }, v;

	c->set = set;
	kmemset(c->open, 0, sizeof(c->open));
	/* Opened even with nothing of the platform's to count: each CPU's
	 * open is where it probes its own counter (hal/pmu.h). */
	hal_pmu_count_open(p->set_hal[set], p->set_n[set], c->open);
	if (p->set_n[set])
		hal_pmu_count_read(raw);
	for (unsigned i = 0; i < p->n; i++) {
		if (p->kernel[i] || !stat_raw(c, cpu, i, raw, &v))
			continue;
		c->base[i] = v;
		c->ever_open[i] = true;
	}
}

static void stat_cpu_close(struct stat_cpu *c)
{
	hal_pmu_count_close();
	c->is_open = false;
	stat_cpu_mark_open(false);
}

static void stat_cpu_open(struct stat_cpu *c)
{
	unsigned cpu = hal_cpu_id();
	uint64_t v;

	/* A CPU that missed the last session's stop still holds its events. */
	if (c->is_open)
		stat_cpu_close(c);
	kmemset(c->ever_open, 0, sizeof(c->ever_open));
	kmemset(c->count, 0, sizeof(c->count));
	kmemset(c->run_ns, 0, sizeof(c->run_ns));
	c->rotations = 0;
	stat_cpu_mark_open(true);
	for (unsigned i = 0; i < stat_run_plan.n; i++)
		if (stat_run_plan.kernel[i] && stat_raw(c, cpu, i, NULL, &v)) {
			c->base[i] = v;
			c->ever_open[i] = true;
		}
	stat_cpu_program(c, cpu, 0);
	c->is_open = true;
	c->t0 = c->seg_ns = hal_clock_ns();
	c->idle0 = sched_idle_ns();
	c->ct0 = hal_cpu_time();
}

static void stat_cpu_read_end(struct stat_cpu *c)
{
	stat_cpu_settle(c, hal_cpu_id(), stat_task_running(hal_cpu_id()));
	c->t1 = c->seg_ns;
	c->idle1 = sched_idle_ns();
	c->ct1 = hal_cpu_time();
	stat_cpu_close(c);
}

/* The next set's turn: the one counting is read and closed first. */
static void stat_cpu_rotate(struct stat_cpu *c)
{
	unsigned cpu = hal_cpu_id();

	stat_cpu_settle(c, cpu, stat_task_running(cpu));
	hal_pmu_count_close();
	stat_cpu_program(c, cpu, (c->set + 1) % stat_run_plan.nsets);
	c->rotations++;
}

/* A CPU whose events are still open from a session that has stopped
 * (it missed the stop, or the session gave up waiting) closes them
 * before anything else on its tick.  `stat`'s claim holds until it has
 * (stat_open_cpus), so no profile starts meanwhile; closing first keeps
 * arming from ever finding the counters counting, nor a stale close
 * stopping a counter a run just armed, should one start all the same.
 * The end is read only for the session that stopped last. */
void stat_answer_stop(void)
{
	struct stat_cpu *c = &stat_cpus[hal_cpu_id()];
	unsigned stopped;

	if (!c->is_open || __atomic_load_n(&stat_gen, __ATOMIC_ACQUIRE))
		return;
	stopped = __atomic_load_n(&stat_stop_gen, __ATOMIC_ACQUIRE);
	if (stopped && c->open_gen == stopped && c->close_gen != stopped) {
		stat_cpu_read_end(c);
		__atomic_store_n(&c->close_gen, stopped, __ATOMIC_RELEASE);
		return;
	}
	stat_cpu_close(c);
}

/* Open for a new session; while one is open, its next set. */
void stat_tick(void)
{
	struct stat_cpu *c = &stat_cpus[hal_cpu_id()];
	unsigned gen = __atomic_load_n(&stat_gen, __ATOMIC_ACQUIRE);

	if (!gen)
		return;
	if (c->open_gen != gen) {
		stat_cpu_open(c);
		__atomic_store_n(&c->open_gen, gen, __ATOMIC_RELEASE);
		return;
	}
	if (c->is_open && stat_run_plan.nsets > 1)
		stat_cpu_rotate(c);
}

/* The followed task leaves its CPU or comes onto it: the segment it
 * ran (or did not) ends here.  Its counts live in stat_task, so they
 * follow it from switch to switch: saved at its switch-out and started
 * again from the counters' values at its switch-in, 64 bits. */
void stat_switch(struct task *prev, struct task *next)
{
	const struct stat_run_plan *p = &stat_run_plan;
	unsigned cpu = hal_cpu_id();
	struct stat_cpu *c = &stat_cpus[cpu];

	/* Open is enough: a session that stopped counts on to this CPU's
	 * close, and no other opens before it (stat_open_cpus). */
	if (!p->task_pid || p->task_cpu != cpu || !c->is_open)
		return;
	if (prev->pid != p->task_pid && next->pid != p->task_pid)
		return;
	stat_cpu_settle(c, cpu, prev->pid == p->task_pid);
	if (next->pid == p->task_pid)
		stat_task.switches_in++;
}
