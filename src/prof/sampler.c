/* SPDX-License-Identifier: BSD-2-Clause */
/* Everything the profiler runs in tick or NMI context, and nothing
 * else: a reviewer checks these rules in this one file.
 *
 *   - No lock, not even a try: an NMI may land inside any holder.
 *   - No allocation, no symbol lookup, no printing: frames are stored
 *     as addresses and resolved later, in task context (fold.c).
 *   - Only this CPU's state: prof_cpus[hal_cpu_id()], written by this
 *     CPU's interrupts alone; the run's parameters (sampler.h) are
 *     read, never written.  `stat`'s share of the tick is stat_cpu.c,
 *     under the same rules.
 *   - Bounded: the only wait is hal_pmu_disarm()'s, tens of us.
 *
 * What it calls outside this file keeps the same rules:
 * stacktrace_from_trap() (reads the stack, never faults), this CPU's
 * scheduler state (this_cpu()->current, sched_idle_ns()), the throttle's
 * arithmetic on this CPU's window (throttle.c), kmemset, and the
 * platform's hal_pmu_*, hal_clock_ns() and hal_cpu_time(), each
 * callable from the overflow interrupt (hal/pmu.h).
 *
 * The kernel reaches this file only through the hooks prof_init()
 * registers (kernel/kernel.h): the profiler sits above the kernel and
 * the kernel never calls it by name (doc/internals.md, "Rooms and the
 * dispatch"). */
#include "prof/sampler.h"

#include "hal/cpu.h"
#include "hal/pmu.h"
#include "hal/timer.h"
#include "kernel/kernel.h"
#include "kernel/sched.h"
#include "kernel/stacktrace.h"
#include "kernel/task.h"
#include "lib/kstring.h"
#include "lib/race_point.h"
#include "prof/profiler.h"
#include "prof/profiler_test.h"
#include "prof/offcpu.h"
#include "prof/throttle.h"

struct prof_cpu prof_cpus[HAL_MAX_CPUS];

/* Add one to a count this CPU's overflow interrupt and its tick both
 * write, and task context reads: one writer at a time (the NMI nests
 * inside the tick, never the reverse), so a relaxed load and store, but
 * never a plain access the compiler may split or cache. */
static void prof_count_one(uint64_t *count)
{
	__atomic_store_n(count, __atomic_load_n(count, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

/* ---- sampling: interrupts off, lock-free, allocation-free ---- */

static void prof_sample(struct prof_cpu *c, const struct trap_frame *tf,
			uint64_t weight)
{
	uint64_t head = __atomic_load_n(&c->head, __ATOMIC_RELAXED);
	uint64_t start = __atomic_load_n(&c->start, __ATOMIC_RELAXED);
	uint64_t tail = __atomic_load_n(&c->tail, __ATOMIC_ACQUIRE);
	unsigned depth = __atomic_load_n(&prof_depth, __ATOMIC_RELAXED);
	uint64_t cap = __atomic_load_n(&prof_cap, __ATOMIC_RELAXED);
	uint64_t stride = PROF_RECORD_HEAD + depth;
	uintptr_t *slot;
	struct task *t;
	size_t n;
	int pid;

	/* Until the drain has caught up with this run, what it has not
	 * taken of an older one does not count against this one. */
	if ((int64_t)(tail - start) < 0)
		tail = start;
	if (head - tail >= cap) {
		prof_count_one(&c->dropped);
		return;
	}
	slot = c->ring + (head % cap) * stride;
	/* The interrupted task: an interrupt runs on its CPU's current. */
	t = this_cpu()->current;
	pid = t ? t->pid : 0;
	n = stacktrace_from_trap(tf, slot + PROF_RECORD_HEAD, depth);
	slot[0] = (uintptr_t)(uint32_t)pid | (uintptr_t)n << 32;
	slot[1] = (uintptr_t)weight;
	/* The record is whole before the drain can take it. */
	__atomic_store_n(&c->head, head + 1, __ATOMIC_RELEASE);
}

/* Empty this CPU's buffer for run @gen.  The overflow handler samples
 * only once gen_seen names the running generation, so it must be the
 * last thing written: an overflow nested into the reset drops its sample
 * rather than mixing it into either run. */
static void prof_cpu_reset(struct prof_cpu *c, unsigned gen)
{
	__atomic_store_n(&c->start, __atomic_load_n(&c->head, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&c->dropped, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&c->late, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&c->errors, 0, __ATOMIC_RELAXED);
	c->arm_failed = false;
	__atomic_store_n(&c->throttled, 0, __ATOMIC_RELAXED);
	/* The drain reads start once it sees the new generation. */
	__atomic_store_n(&c->gen_seen, gen, __ATOMIC_RELEASE);
}

/* A refusal (the counter busy counting, or unproven on this CPU) leaves
 * the CPU unarmed, so that its next tick tries again, and marks it for
 * the report's header: counted as an error once per run, never silently
 * absent. */
static void prof_cpu_arm(struct prof_cpu *c)
{
	uint64_t period = __atomic_load_n(&prof_period, __ATOMIC_RELAXED);

	/* The throttle's window starts with the counter, at the run's
	 * period.  From the armed store on it is the overflow interrupt's
	 * alone (prof_pmu_took()): the tick never writes it while armed. */
	throttle_open(&c->throttle, period, hal_clock_ns());
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* Set before the counter starts and cleared after it stops: an
	 * overflow already in flight when we disarm is still ours, and must
	 * not be taken for a genuine NMI. */
	__atomic_store_n(&c->armed, true, __ATOMIC_RELAXED);
	race_point("prof-armed");
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (hal_pmu_arm(period) == 0) {
		c->arm_failed = false;
		__atomic_store_n(&c->counter_gen,
				 __atomic_load_n(&c->gen_seen, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
		return;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&c->armed, false, __ATOMIC_RELAXED);
	race_point("prof-armed");
	if (!c->arm_failed)
		prof_count_one(&c->errors);
	c->arm_failed = true;
}

static void prof_cpu_disarm(struct prof_cpu *c)
{
	/* May deliver a late overflow through kernel_nmi() while it waits:
	 * armed is still set, so that one is claimed. */
	if (hal_pmu_disarm() < 0)
		prof_count_one(&c->errors);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&c->armed, false, __ATOMIC_RELAXED);
	race_point("prof-armed");
}

/* The tick after a stop: disarm, then acknowledge.  A CPU that never saw
 * the run it acknowledges empties its buffer first, so the report never
 * reads an older run's samples. */
static void prof_cpu_stopped(struct prof_cpu *c)
{
	unsigned stopped;

	if (__atomic_load_n(&c->armed, __ATOMIC_RELAXED))
		prof_cpu_disarm(c);
	stopped = __atomic_load_n(&prof_stop_gen, __ATOMIC_ACQUIRE);
	if (!stopped || !c->ring || c->ack == stopped)
		return;
	if (__atomic_load_n(&c->gen_seen, __ATOMIC_RELAXED) != stopped)
		prof_cpu_reset(c, stopped);
	c->t1 = hal_clock_ns();
	c->ct1 = hal_cpu_time();
	c->idle1 = sched_idle_ns();
	__atomic_store_n(&c->ack, stopped, __ATOMIC_RELEASE);
}

/* What a tick's sample stands for: the time since this CPU's last tick,
 * not the nominal period -- a tick that came late (a busy host, an
 * emulator) stands for more.  In a wall run, only the part the
 * interrupted task has been running: the run splits each task's exact
 * running time by its samples' weights, and a tick held back behind a
 * switch (the switch-in runs with interrupts off; a host that stalls the
 * CPU there delays it) lands just after the switch-in, carrying the time
 * before it, which was another task's or the task's own wait. */
static uint64_t prof_tick_weight(const struct prof_cpu *c, uint64_t now)
{
	const struct task *t = this_cpu()->current;
	uint64_t from = c->tick_ns;

	if (__atomic_load_n(&offcpu_gen, __ATOMIC_RELAXED) && t && !t->is_idle &&
	    t->wall.in_ns > from && t->wall.in_ns <= now)
		from = t->wall.in_ns;
	return now - from;
}

void prof_tick(struct trap_frame *tf)
{
	struct prof_cpu *c = &prof_cpus[hal_cpu_id()];
	unsigned gen = __atomic_load_n(&prof_gen, __ATOMIC_ACQUIRE);
	uint64_t now, since;

	if (!gen) {
		prof_cpu_stopped(c);
		return;
	}
	if (!c->ring)
		return;		/* not running when the run started */
	if (__atomic_load_n(&c->gen_seen, __ATOMIC_RELAXED) != gen) {
		/* A CPU that missed the last stop is still armed for that
		 * run, at that run's period: it answers that stop first
		 * (disarm, acknowledge), so that this run arms it afresh --
		 * or, sampling on the tick, leaves it disarmed. */
		prof_cpu_stopped(c);
		/* The stop it just answered is this run's own when the run
		 * stopped after gen was read: it is done with the run, and
		 * arming now would leave the counter running past the
		 * report. */
		if (c->ack == gen)
			return;
		prof_cpu_reset(c, gen);
	}
	/* The counter samples; the tick only arms it, never samples,
	 * before or after arming, so nothing is counted twice. */
	if (__atomic_load_n(&prof_use_counter, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&c->armed, __ATOMIC_RELAXED))
		prof_cpu_arm(c);
	if (c->armed_gen != gen) {
		c->t0 = hal_clock_ns();
		c->ct0 = hal_cpu_time();
		c->tick_ns = c->t0;
		c->idle0 = sched_idle_ns();
		/* The session opens the window once every CPU got here. */
		__atomic_store_n(&c->armed_gen, gen, __ATOMIC_RELEASE);
		return;
	}
	if (__atomic_load_n(&prof_use_counter, __ATOMIC_RELAXED))
		return;
	now = hal_clock_ns();
	since = prof_tick_weight(c, now);
	c->tick_ns = now;
	if (__atomic_load_n(&prof_open_gen, __ATOMIC_ACQUIRE) == gen)
		prof_sample(c, tf, since);
}

bool prof_nmi(struct trap_frame *tf)
{
	struct prof_cpu *c = &prof_cpus[hal_cpu_id()];
	uint64_t weight;
	unsigned gen;

	if (!__atomic_load_n(&c->armed, __ATOMIC_RELAXED) || !hal_pmu_ack())
		return false;
	/* Taken for every claimed overflow, kept or not: what a dropped one
	 * counted must not be added to the next sample's weight. */
	weight = hal_pmu_sample_events();
	gen = __atomic_load_n(&prof_gen, __ATOMIC_ACQUIRE);
	/* Before the window opened, between the stop and disarm, or before
	 * this CPU's tick has seen a new run: acknowledged above, and
	 * dropped. */
	if (gen && gen == __atomic_load_n(&c->gen_seen, __ATOMIC_RELAXED) &&
	    gen == __atomic_load_n(&prof_open_gen, __ATOMIC_ACQUIRE))
		prof_sample(c, tf, weight);
	else
		prof_count_one(&c->late);
	return true;
}

/* ---- the throttle: in the overflow interrupt ---- */

/* The throttle is the tick's while the CPU is disarmed and this
 * handler's while it is armed (prof_cpu_arm() opens it, then fences,
 * then stores armed): it is read only once armed is seen. */
void prof_pmu_took(uint64_t ns)
{
	struct prof_cpu *c = &prof_cpus[hal_cpu_id()];
	uint64_t period;

	if (!__atomic_load_n(&c->armed, __ATOMIC_RELAXED))
		return;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	period = c->throttle.period;
	if (!period || !throttle_add(&c->throttle, ns))
		return;
	/* The backend refuses a period its counter cannot hold, or a
	 * counter no longer running (a late overflow while disarming). */
	if (throttle_close(&c->throttle, hal_clock_ns()) && period <= UINT64_MAX / 2 &&
	    hal_pmu_set_period(period * 2) == 0) {
		c->throttle.period = period * 2;
		if (period * 2 > __atomic_load_n(&c->throttled, __ATOMIC_RELAXED))
			__atomic_store_n(&c->throttled, period * 2, __ATOMIC_RELAXED);
	}
}

/* ---- the kernel's hooks ---- */

/* The tick's share of profiling and of counting.  Each answers a stop
 * it missed before the other may start: a stale `stat` closes its events
 * first, then the profiler disarms a stale run or arms a new one (which
 * it answers its own stale stop before), and only then may `stat` open.
 * So on one CPU the counter is never armed and counting at once, in
 * whatever order the sessions came and went (the backends refuse both
 * besides: hal/pmu.h). */
static void sampler_tick(struct trap_frame *tf)
{
	stat_answer_stop();
	prof_tick(tf);
	stat_tick();
}

void prof_init(void)
{
	kernel_on_tick(sampler_tick);
	kernel_on_nmi(prof_nmi);
	kernel_on_pmu_took(prof_pmu_took);
	offcpu_init();
}
