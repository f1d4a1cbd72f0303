/* SPDX-License-Identifier: BSD-2-Clause */
/* The scheduler's switch hook: everything off-CPU profiling does at a
 * switch, on the switching CPU with interrupts off, still on the
 * outgoing task's stack.  The sampler's rules hold here too: no lock,
 * no allocation, no symbol lookup, only this CPU's ring and the two
 * tasks' slots (only this CPU switches them: tasks are pinned).
 *
 * Always, wall run or not: the times in each task's slot and the stack
 * a task leaves with, so that a wait that began before a window opens
 * still has both.  While a wall run is on: the records (offcpu.h). */
#include "prof/offcpu.h"

#include "hal/timer.h"
#include "kernel/sched.h"
#include "kernel/stacktrace.h"
#include "kernel/task.h"
#include "lib/kstring.h"

struct offcpu_cpu offcpu_cpus[HAL_MAX_CPUS];
unsigned offcpu_gen;
uint64_t offcpu_until = UINT64_MAX;
unsigned offcpu_depth = PROF_DEPTH_DEFAULT;

/* The stack @t leaves its CPU with: after a preemption the preempted
 * state's chain, else from the frame of the scheduler call it made, so
 * that frame 0 is that call (its return address - 1). */
static void offcpu_walk(const struct cpu *c, struct task *t)
{
	unsigned depth = __atomic_load_n(&offcpu_depth, __ATOMIC_RELAXED);
	struct stack_bounds b = { t->stack_lo, t->stack_hi };
	size_t n = 0;

	if (depth > PROF_MAX_FRAMES)
		depth = PROF_MAX_FRAMES;
	if (c->switch_tf) {
		n = stacktrace_from_trap(c->switch_tf, t->off_frames, depth);
	} else if (c->switch_fp) {
		n = stacktrace_from_fp(c->switch_fp, &b, t->off_frames, depth);
		/* Frame 0 is a leaf, looked up where it lies, but here it is
		 * the scheduler call's return address: the call is the byte
		 * before, and a call that ends its function (a wait that
		 * never returns) returns into the next function. */
		if (n)
			t->off_frames[0] -= 1;
	}
	t->off_nframes = (uint32_t)n;
}

/* One record into this CPU's ring, unless the interval began after the
 * window closed, or crosses its end and the collect charged it. */
static void offcpu_emit(unsigned gen, struct task *t, enum offcpu_kind kind,
			unsigned flags, uint64_t a, uint64_t b, uint64_t end,
			const uintptr_t *frames, uint32_t n)
{
	struct offcpu_cpu *oc = &offcpu_cpus[hal_cpu_id()];
	uint64_t until = __atomic_load_n(&offcpu_until, __ATOMIC_ACQUIRE);
	uint64_t head = oc->head, tail;
	uintptr_t *slot;

	if (!oc->ring || a >= until)
		return;
	if (end > until && !offcpu_claim_crossing(t, gen))
		return;
	tail = __atomic_load_n(&oc->tail, __ATOMIC_ACQUIRE);
	if (head - tail >= OFFCPU_RING_RECORDS) {
		oc->dropped++;
		return;
	}
	slot = oc->ring + (head % OFFCPU_RING_RECORDS) * OFFCPU_STRIDE;
	slot[0] = (uintptr_t)(uint32_t)t->pid | (uintptr_t)n << 32;
	slot[1] = (uintptr_t)gen | (uintptr_t)kind << 32 | (uintptr_t)flags << 40;
	slot[2] = a;
	slot[3] = b;
	slot[4] = end;
	for (uint32_t i = 0; i < n; i++)
		slot[OFFCPU_RECORD_HEAD + i] = frames[i];
	/* The record is whole before the drain can take it. */
	__atomic_store_n(&oc->head, head + 1, __ATOMIC_RELEASE);
}

static void offcpu_leave(const struct cpu *c, struct task *t, uint64_t now,
			 unsigned gen)
{
	bool dead = t->state == TASK_DEAD;

	if (!dead)
		offcpu_walk(c, t);
	if (gen)
		offcpu_emit(gen, t, OFFCPU_RUN, dead ? OFFCPU_DIED : 0, t->in_ns, 0,
			    now, t->off_frames, dead ? 0 : t->off_nframes);
	t->off_ns = now;
	/* Preempted or yielding: runnable from now on. */
	if (t->state == TASK_RUNNABLE)
		t->wake_ns = now;
	__atomic_store_n(&t->on_cpu, false, __ATOMIC_RELEASE);
}

static void offcpu_enter(struct task *t, uint64_t now, unsigned gen)
{
	/* A task's first run ends the wait it was born into: its stack is
	 * its entry function's, which has not run yet. */
	bool born = t->in_ns == 0;
	uintptr_t entry = (uintptr_t)t->fn;

	if (gen)
		offcpu_emit(gen, t, OFFCPU_WAIT, born ? OFFCPU_BORN : 0, t->off_ns,
			    t->wake_ns, now, born ? &entry : t->off_frames,
			    born ? 1 : t->off_nframes);
	t->in_ns = now;
	__atomic_store_n(&t->on_cpu, true, __ATOMIC_RELEASE);
}

void offcpu_switch(struct task *prev, struct task *next)
{
	unsigned gen = __atomic_load_n(&offcpu_gen, __ATOMIC_ACQUIRE);
	uint64_t now = hal_clock_ns();

	if (!prev->is_idle)
		offcpu_leave(this_cpu(), prev, now, gen);
	if (!next->is_idle)
		offcpu_enter(next, now, gen);
}

void offcpu_init(void)
{
	sched_on_switch(offcpu_switch);
}
