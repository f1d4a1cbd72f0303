/* SPDX-License-Identifier: BSD-2-Clause */
/* The scheduler's switch hook while a wall run is on: everything
 * off-CPU profiling does at a switch, on the switching CPU with
 * interrupts off, still on the outgoing task's stack.  The sampler's
 * rules hold here too: no lock, no allocation, no symbol lookup, only
 * this CPU's ring and the two tasks' slots (only this CPU switches
 * them: tasks are pinned).
 *
 * Nothing runs here without a wall run: the hook is registered by the
 * run's begin and taken away by its collect (offcpu_register()), and
 * the stacks of the waits that began before the window are walked at
 * the window's start through the tasks' saved contexts (wall_start.c),
 * not at every switch of the machine's life.  tests/check-layers holds
 * this file to what it may call (OFFCPU_MAY_USE). */
#include "prof/offcpu.h"

#include "hal/timer.h"
#include "kernel/sched.h"
#include "kernel/stacktrace.h"
#include "kernel/task.h"
#include "lib/kstring.h"
#include "lib/race_point.h"
#include "prof/wall.h"

struct offcpu_cpu offcpu_cpus[HAL_MAX_CPUS];
unsigned offcpu_gen;
uint64_t offcpu_start = OFFCPU_UNSET;
uint64_t offcpu_until = OFFCPU_UNSET;
unsigned offcpu_depth = PROF_DEPTH_DEFAULT;

/* The walk of @t's stack as it leaves its CPU (offcpu_walk_leaving()),
 * inlined into the hook. */
static inline __attribute__((always_inline)) void
offcpu_walk_out(struct task *t, unsigned depth)
{
	uintptr_t why = t->wall.off_why, fp;
	const struct trap_frame *tf = task_off_trap(why);
	size_t n = 0;

	if (depth > PROF_MAX_FRAMES)
		depth = PROF_MAX_FRAMES;
	if (tf) {
		n = stacktrace_from_trap(tf, t->wall.off_frames, depth);
	} else if ((fp = task_off_frame(why, t->stack_lo, t->stack_hi)) != 0) {
		struct stack_bounds b = { t->stack_lo, t->stack_hi };

		n = stacktrace_from_fp(fp, &b, t->wall.off_frames, depth);
		/* Frame 0 is a leaf, looked up where it lies, but here it is
		 * the scheduler call's return address: the call is the byte
		 * before, and a call that ends its function (a wait that
		 * never returns) returns into the next function. */
		if (n)
			t->wall.off_frames[0] -= 1;
	}
	/* A timed probe's return trampoline: the real return address. */
	stacktrace_probe_fix(t, t->wall.off_frames, n);
	/* The collect may read it racing a switch after the window. */
	__atomic_store_n(&t->wall.off_nframes, (uint32_t)n, __ATOMIC_RELAXED);
}

void offcpu_walk_leaving(struct task *t, unsigned depth)
{
	offcpu_walk_out(t, depth);
}

/* The window as the session published it, [*start, *until).  The
 * session sets either bound with interrupts off: OFFCPU_PENDING, the
 * clock, the value.  A hook that read the clock before this load and
 * still sees the old value read it before the session did: its
 * interval ended before the bound.  One that sees the pending mark
 * waits the few instructions until the value is there. */
static void offcpu_window(uint64_t *start, uint64_t *until)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	while ((*start = __atomic_load_n(&offcpu_start, __ATOMIC_ACQUIRE)) == OFFCPU_PENDING)
		hal_cpu_relax();
	while ((*until = __atomic_load_n(&offcpu_until, __ATOMIC_ACQUIRE)) == OFFCPU_PENDING)
		hal_cpu_relax();
}

/* The part of [a, b) inside [start, until); nothing before the window
 * opens. */
static inline uint64_t offcpu_clip(uint64_t a, uint64_t b, uint64_t start, uint64_t until)
{
	/* Inside the window, as nearly every interval of a run is (an
	 * unset start is UINT64_MAX: no a is at or above it). */
	if (__builtin_expect(a >= start && b <= until && b >= a, 1))
		return b - a;
	if (start == OFFCPU_UNSET)
		return 0;
	if (a < start)
		a = start;
	if (b > until)
		b = until;
	return b > a ? b - a : 0;
}

/* The books of run @gen in @t's slot: another run's are left behind. */
static void offcpu_books_of(struct task *t, unsigned gen)
{
	if (t->wall.gen == gen)
		return;
	for (unsigned s = 0; s < WALL_STATES; s++)
		t->wall.ns[s] = 0;
}

/* One record into this CPU's ring; a full ring loses the stack only:
 * the time is in the task's books already. */
static inline __attribute__((always_inline)) void
offcpu_emit(struct offcpu_cpu *oc, unsigned gen, const struct task *t,
	    enum offcpu_kind kind, unsigned flags, uint64_t ns_a, uint64_t ns_b,
	    const uintptr_t *frames, uint32_t n)
{
	/* Only this CPU writes head and dropped; the session reads them. */
	uint64_t head = __atomic_load_n(&oc->head, __ATOMIC_RELAXED), tail;
	uintptr_t *slot = oc->ring;

	if (!slot)
		return;
	tail = __atomic_load_n(&oc->tail, __ATOMIC_ACQUIRE);
	if (head - tail >= OFFCPU_RING_RECORDS) {
		__atomic_store_n(&oc->dropped,
				 __atomic_load_n(&oc->dropped, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
		return;
	}
	slot += (head % OFFCPU_RING_RECORDS) * OFFCPU_STRIDE;
	slot[0] = (uintptr_t)(uint32_t)t->pid | (uintptr_t)n << 32;
	slot[1] = (uintptr_t)gen | (uintptr_t)kind << 32 | (uintptr_t)flags << 40;
	slot[2] = ns_a;
	slot[3] = ns_b;
	/* Unrolled: the copy is a record's largest part. */
#pragma GCC unroll 4
	for (uint32_t i = 0; i < n; i++)
		slot[OFFCPU_RECORD_HEAD + i] = frames[i];
	/* The record is whole before the drain can take it. */
	__atomic_store_n(&oc->head, head + 1, __ATOMIC_RELEASE);
}

/* May the interval of @t that ends at @end be charged?  One that
 * crosses the window's end only by whichever claims it first, this
 * switch or the collect.  Claimed before any stamp of the slot changes
 * (the collect reads them before its own claim). */
static bool offcpu_may_charge(struct task *t, unsigned gen, uint64_t end, uint64_t until)
{
	if (end <= until)
		return true;
	if (!offcpu_claim_crossing(t, gen))
		return false;
	/* A test widens the window between the claim and the record. */
	race_point("offcpu-claimed");
	return true;
}

/* What one switch of a wall run reads once and both halves use. */
struct offcpu_at {
	struct offcpu_cpu *oc;
	uint64_t now, start, until;
	unsigned gen, depth;
};

static inline __attribute__((always_inline)) void
offcpu_leave(struct task *t, const struct offcpu_at *at)
{
	unsigned gen = at->gen, was = t->wall.gen;
	bool dead = t->state == TASK_DEAD;
	/* A run that began before the hook was registered began before
	 * the window: clipped to its start. */
	uint64_t a = was == gen ? __atomic_load_n(&t->wall.in_ns, __ATOMIC_RELAXED) : 0;
	uint64_t ns = offcpu_clip(a, at->now, at->start, at->until);

	if (!dead)
		offcpu_walk_out(t, at->depth);
	if (was != gen)
		offcpu_books_of(t, gen);
	if (ns && offcpu_may_charge(t, gen, at->now, at->until)) {
		t->wall.ns[WALL_CPU] += ns;
		offcpu_emit(at->oc, gen, t, OFFCPU_RUN, 0, ns, 0,
			    t->wall.off_frames, dead ? 0 : t->wall.off_nframes);
	}
	__atomic_store_n(&t->wall.off_ns, at->now, __ATOMIC_RELAXED);
	/* Until the run has taken its books, the reaper leaves it. */
	if (dead)
		__atomic_store_n(&t->wall.hold, gen, __ATOMIC_RELEASE);
	if (was != gen)
		__atomic_store_n(&t->wall.gen, gen, __ATOMIC_RELEASE);
	__atomic_store_n(&t->wall.on_cpu, false, __ATOMIC_RELEASE);
}

static inline __attribute__((always_inline)) void
offcpu_enter(struct task *t, const struct offcpu_at *at)
{
	unsigned gen = at->gen;
	/* Its first run ends the wait it was born into, at its entry
	 * function, which has not run yet. */
	bool born = !__atomic_load_n(&t->wall.started, __ATOMIC_RELAXED);
	bool fresh = t->wall.gen == gen;
	uintptr_t entry = (uintptr_t)t->fn;
	uint64_t a = born ? t->wall.born_ns : fresh ? __atomic_load_n(&t->wall.off_ns, __ATOMIC_RELAXED) : 0;
	uint64_t wake = __atomic_load_n(&t->wall.wake_ns, __ATOMIC_RELAXED);
	uint64_t now = at->now, blocked, runnable;

	/* Woken before it went off (preempted, or yielding): runnable
	 * from the switch-out. */
	if (wake < a)
		wake = a;
	if (wake > now)
		wake = now;
	blocked = offcpu_clip(a, wake, at->start, at->until);
	runnable = offcpu_clip(wake, now, at->start, at->until);
	if (!fresh)
		offcpu_books_of(t, gen);
	if ((blocked || runnable) && offcpu_may_charge(t, gen, now, at->until)) {
		t->wall.ns[WALL_BLOCKED] += blocked;
		t->wall.ns[WALL_RUNNABLE] += runnable;
		if (born)
			offcpu_emit(at->oc, gen, t, OFFCPU_WAIT, 0, blocked, runnable, &entry, 1);
		else if (fresh)
			offcpu_emit(at->oc, gen, t, OFFCPU_WAIT, 0, blocked, runnable,
				    t->wall.off_frames, t->wall.off_nframes);
		else
			offcpu_emit(at->oc, gen, t, OFFCPU_WAIT, OFFCPU_START_STACK, blocked,
				    runnable, NULL, 0);
	}
	__atomic_store_n(&t->wall.in_ns, now, __ATOMIC_RELAXED);
	if (!fresh)
		__atomic_store_n(&t->wall.gen, gen, __ATOMIC_RELEASE);
	__atomic_store_n(&t->wall.on_cpu, true, __ATOMIC_RELEASE);
}

void offcpu_switch(struct task *prev, struct task *next)
{
	struct offcpu_at at;

	at.oc = &offcpu_cpus[hal_cpu_id()];
	/* Odd from before anything of the run is read: the session's grace
	 * periods wait for it (wall.c).  Only this CPU writes it. */
	__atomic_store_n(&at.oc->hook_seq, __atomic_load_n(&at.oc->hook_seq, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	at.gen = __atomic_load_n(&offcpu_gen, __ATOMIC_ACQUIRE);
	if (at.gen) {
		at.now = hal_clock_ns();
		offcpu_window(&at.start, &at.until);
		at.depth = __atomic_load_n(&offcpu_depth, __ATOMIC_RELAXED);
		if (!prev->is_idle)
			offcpu_leave(prev, &at);
		if (!next->is_idle)
			offcpu_enter(next, &at);
	}
	__atomic_store_n(&at.oc->hook_seq, __atomic_load_n(&at.oc->hook_seq, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELEASE);
}

void offcpu_init(void)
{
	/* Nothing to do at a switch until a wall run registers the hook. */
	offcpu_register(0);
}

void offcpu_register(unsigned gen)
{
	if (gen) {
		/* The run's generation before the hook that reads it. */
		__atomic_store_n(&offcpu_gen, gen, __ATOMIC_RELEASE);
		sched_on_switch(offcpu_switch);
	} else {
		sched_on_switch(NULL);
		/* A hook that loaded the pointer before it went may still
		 * run: it finds no run and does nothing. */
		__atomic_store_n(&offcpu_gen, 0, __ATOMIC_RELEASE);
	}
}
