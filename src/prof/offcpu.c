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
#include "prof/sampler.h"
#include "prof/wall.h"

struct offcpu_cpu offcpu_cpus[HAL_MAX_CPUS];
unsigned offcpu_gen;
uint64_t offcpu_start = OFFCPU_UNSET;
uint64_t offcpu_until = OFFCPU_UNSET;
unsigned offcpu_depth = PROF_DEPTH_DEFAULT;
uint64_t offcpu_tick_period_ns;

/* The walk of @t's stack as it left its CPU (offcpu_walk_leaving()),
 * inlined into the hook: at its switch-out, or at its switch-in when
 * the switch-out did not walk (its stack has held still since: only
 * @t writes its frame records).  The bounds are @t's own, not the
 * switching CPU's current task's.  The count, also kept in the slot. */
static inline __attribute__((always_inline)) uint32_t
offcpu_walk_out(struct task *t, unsigned depth)
{
	uintptr_t why = t->wall.off_why, fp;
	const struct trap_frame *tf = task_off_trap(why);
	struct stack_bounds b = { t->stack_lo, t->stack_hi };
	size_t n = 0;

	if (depth > PROF_MAX_FRAMES)
		depth = PROF_MAX_FRAMES;
	if (tf) {
		n = stacktrace_from_trap_on(tf, &b, t->wall.off_frames, depth);
	} else if ((fp = task_off_frame(why, b.lo, b.hi)) != 0) {
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
	return (uint32_t)n;
}

void offcpu_walk_leaving(struct task *t, unsigned depth)
{
	(void)offcpu_walk_out(t, depth);
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

/* Room for one record in this CPU's ring: the slot, its number in
 * *@head; or NULL when the ring is full, the drop counted -- before
 * anything is walked for it: the record's time is in the task's books
 * already, only its stack is lost. */
static inline __attribute__((always_inline)) uintptr_t *
offcpu_slot(struct offcpu_cpu *oc, uint64_t *head)
{
	/* Only this CPU writes head and dropped; the session reads them. */
	uint64_t h = __atomic_load_n(&oc->head, __ATOMIC_RELAXED);
	uintptr_t *ring = oc->ring;

	if (!ring)
		return NULL;
	if (h - __atomic_load_n(&oc->tail, __ATOMIC_ACQUIRE) >= OFFCPU_RING_RECORDS) {
		__atomic_store_n(&oc->dropped,
				 __atomic_load_n(&oc->dropped, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
		return NULL;
	}
	*head = h;
	return ring + (h % OFFCPU_RING_RECORDS) * OFFCPU_STRIDE;
}

/* The record into @slot (offcpu_slot()'s, number @head), then
 * published. */
static inline __attribute__((always_inline)) void
offcpu_put(struct offcpu_cpu *oc, uintptr_t *slot, uint64_t head, unsigned gen,
	   const struct task *t, enum offcpu_kind kind, unsigned flags, uint64_t ns_a,
	   uint64_t ns_b, const uintptr_t *frames, uint32_t n)
{
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

/* Of @t's run from @a to now, the part after a tick came due that
 * interrupts have held back since: from the later of the due time and
 * the moment the CPU masked them (hal_irq_masked_ns()) -- in the call @t
 * leaves by, where a host that holds the CPU's thread (in ksim, inside
 * the masking system call) holds the tick.  That tick lands after the
 * switch, in another task (prof_tick_weight()), so no sample of @t's
 * stands for that stretch: the collect charges it at the stack @t
 * leaves with instead of splitting it over @t's samples, which would
 * give a stall in a sleep call to the task's computing.  A tick that is
 * only late (due while interrupts were on: a starved host's timer) is
 * not charged here: its stretch was not masked.  Nothing where the
 * platform does not keep the moment, or while the tick does not sample
 * this run on this CPU. */
static inline uint64_t offcpu_held_back(const struct offcpu_at *at, uint64_t a)
{
	uint64_t masked = hal_irq_masked_ns(), due;
	const struct prof_cpu *c;

	if (masked == UINT64_MAX)
		return 0;
	c = &prof_cpus[at->oc - offcpu_cpus];
	if (__atomic_load_n(&prof_use_counter, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&c->armed_gen, __ATOMIC_ACQUIRE) != at->gen)
		return 0;
	due = c->tick_ns + __atomic_load_n(&offcpu_tick_period_ns, __ATOMIC_RELAXED);
	if (due < masked)
		due = masked;
	if (due < a)
		due = a;
	return at->now > due ? offcpu_clip(due, at->now, at->start, at->until) : 0;
}

/* @t leaves its CPU: its run charged, and recorded with the stack it
 * leaves with -- walked only when the ring has room for the record;
 * else the slot says so (OFFCPU_UNWALKED) and whoever needs the stack
 * next walks it: the switch-in that records the wait, or the collect. */
static inline __attribute__((always_inline)) void
offcpu_leave(struct task *t, const struct offcpu_at *at)
{
	unsigned gen = at->gen, was = t->wall.gen;
	bool dead = t->state == TASK_DEAD;
	/* A run that began before the hook was registered began before
	 * the window: clipped to its start. */
	uint64_t a = was == gen ? __atomic_load_n(&t->wall.in_ns, __ATOMIC_RELAXED) : 0;
	uint64_t ns = offcpu_clip(a, at->now, at->start, at->until), head;
	/* A dead task waits for nothing: no stack. */
	uint32_t n = dead ? 0 : OFFCPU_UNWALKED;
	uintptr_t *slot;

	if (was != gen)
		offcpu_books_of(t, gen);
	if (ns && offcpu_may_charge(t, gen, at->now, at->until)) {
		t->wall.ns[WALL_CPU] += ns;
		if ((slot = offcpu_slot(at->oc, &head)) != NULL) {
			uint64_t held = offcpu_held_back(at, a);

			n = dead ? 0 : offcpu_walk_out(t, at->depth);
			offcpu_put(at->oc, slot, head, gen, t, OFFCPU_RUN, 0, ns,
				   held < ns ? held : ns, t->wall.off_frames, n);
		}
	}
	/* Before the task is seen off its CPU (the collect reads them). */
	if (n == OFFCPU_UNWALKED || dead)
		__atomic_store_n(&t->wall.off_nframes, n, __ATOMIC_RELAXED);
	__atomic_store_n(&t->wall.off_ns, at->now, __ATOMIC_RELAXED);
	/* Until the run has taken its books, the reaper leaves it. */
	if (dead)
		__atomic_store_n(&t->wall.hold, gen, __ATOMIC_RELEASE);
	if (was != gen)
		__atomic_store_n(&t->wall.gen, gen, __ATOMIC_RELEASE);
	__atomic_store_n(&t->wall.on_cpu, false, __ATOMIC_RELEASE);
}

/* The record of @t's wait into @slot: at its entry function when it
 * was born into it, at the stack it went off with (walked now if its
 * switch-out did not), or marked as the window start's stack. */
static inline __attribute__((always_inline)) void
offcpu_put_wait(struct task *t, const struct offcpu_at *at, uintptr_t *slot, uint64_t head,
		bool born, bool fresh, uint64_t blocked, uint64_t runnable)
{
	uintptr_t entry = (uintptr_t)t->fn;
	uint32_t n;

	if (born) {
		offcpu_put(at->oc, slot, head, at->gen, t, OFFCPU_WAIT, 0, blocked, runnable,
			   &entry, 1);
	} else if (fresh) {
		/* Walked at its switch-out only for the run record stored
		 * then (offcpu_leave()), which carries the frames. */
		if (t->wall.off_nframes != OFFCPU_UNWALKED) {
			offcpu_put(at->oc, slot, head, at->gen, t, OFFCPU_WAIT, OFFCPU_RUN_STACK,
				   blocked, runnable, NULL, 0);
			return;
		}
		n = offcpu_walk_out(t, at->depth);
		offcpu_put(at->oc, slot, head, at->gen, t, OFFCPU_WAIT, 0, blocked, runnable,
			   t->wall.off_frames, n);
	} else {
		offcpu_put(at->oc, slot, head, at->gen, t, OFFCPU_WAIT, OFFCPU_START_STACK,
			   blocked, runnable, NULL, 0);
	}
}

static inline __attribute__((always_inline)) void
offcpu_enter(struct task *t, const struct offcpu_at *at)
{
	unsigned gen = at->gen;
	/* Its first run ends the wait it was born into, at its entry
	 * function, which has not run yet. */
	bool born = !__atomic_load_n(&t->wall.started, __ATOMIC_RELAXED);
	bool fresh = t->wall.gen == gen;
	uint64_t a = born ? t->wall.born_ns : fresh ? __atomic_load_n(&t->wall.off_ns, __ATOMIC_RELAXED) : 0;
	uint64_t wake = __atomic_load_n(&t->wall.wake_ns, __ATOMIC_RELAXED);
	uint64_t now = at->now, blocked, runnable, head;
	uintptr_t *slot;

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
	/* Walked only once the interval is this switch's to charge: the
	 * collect may be reading the slot. */
	if ((blocked || runnable) && offcpu_may_charge(t, gen, now, at->until)) {
		t->wall.ns[WALL_BLOCKED] += blocked;
		t->wall.ns[WALL_RUNNABLE] += runnable;
		if ((slot = offcpu_slot(at->oc, &head)) != NULL)
			offcpu_put_wait(t, at, slot, head, born, fresh, blocked, runnable);
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
