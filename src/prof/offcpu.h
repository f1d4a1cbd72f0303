/* SPDX-License-Identifier: BSD-2-Clause */
/* Off-CPU and wall-clock profiles from the scheduler (doc/profiler.md,
 * "Where the time goes when nothing runs: wall profiles"): what the
 * switch hook (offcpu.c: the switching CPU, interrupts off) shares with
 * the session that reads it (wall*.c: task context).  Private to src/prof.
 *
 * The hook is registered only while a wall run is on.  At each switch
 * it adds the interval that ends (the outgoing task's run, the incoming
 * task's wait: blocked from its switch-out to its wake, runnable from
 * the wake), clipped to the window, to that task's books in its own
 * slot (task->wall.ns): the books need nothing else, at any switch
 * rate.  It also writes one record into the switching CPU's ring: the
 * same nanoseconds with the stack the task ran or waited at.  A record
 * the ring has no room for loses only its stack: the collect charges
 * the time the records left out to "[unknown stack]".  The one
 * interval of each task that the window's end cuts is charged once: by
 * the switch that ends it or by the session's collect, whichever claims
 * it first (task->wall.crossed). */
#ifndef KPROF_PROF_OFFCPU_H
#define KPROF_PROF_OFFCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "kernel/task.h"
#include "prof/profiler.h"

_Static_assert(TASK_OFF_FRAMES >= PROF_MAX_FRAMES,
	       "a task's slot holds the deepest walk a profile asks for");

/* A record: pid and frame count, the run, its kind and flags, two
 * nanosecond counts (running; or blocked and runnable), then
 * PROF_MAX_FRAMES frames. */
#define OFFCPU_RECORD_HEAD 4
#define OFFCPU_STRIDE (OFFCPU_RECORD_HEAD + PROF_MAX_FRAMES)
/* Records a CPU's ring holds: drained every PROF_DRAIN_MS, so 2048
 * records of 50 ms each CPU, 40000 a second; past that only stacks are
 * lost, never time.  bench/switch-icount's KPROF_BENCH_WALL_STORE_ALL
 * kernel holds 65536 drained every 5 ms (18.9 MB a CPU): room for a
 * one-CPU ping-pong's records between drains, so that the bench
 * measures the path of a switch that stores them (it prints the drops
 * it saw: none). */
#ifndef KPROF_BENCH_WALL_STORE_ALL
#define OFFCPU_RING_RECORDS 2048
#else
#define OFFCPU_RING_RECORDS 65536
#endif

enum offcpu_kind {
	OFFCPU_RUN,	/* ns_a running, of it ns_b after a tick held back */
	OFFCPU_WAIT,	/* ns_a blocked, then ns_b runnable */
};
/* A wait whose stack the window's start walked (wall_start.c keeps it): the
 * task went off its CPU before the hook was registered. */
#define OFFCPU_START_STACK 1u
/* A wait at the stack of the task's run record before it: its
 * switch-out walked that stack and wrote it there, earlier in the same
 * ring (tasks are pinned), so the wait's record carries no frames --
 * the frames are copied once, not twice (the drain keeps each task's
 * last run stack: wall_books.c). */
#define OFFCPU_RUN_STACK 2u

/* A task's off_nframes when its switch-out did not walk its stack (its
 * CPU's ring had no room for the record): the switch-in that records
 * its wait walks it then, and the collect through its saved context. */
#define OFFCPU_UNWALKED UINT32_MAX

/* offcpu_start before the window opens (no interval is charged) and
 * offcpu_until while it is open; OFFCPU_PENDING for the instant the
 * session reads the clock to set one of them (offcpu_window()). */
#define OFFCPU_UNSET UINT64_MAX
#define OFFCPU_PENDING (UINT64_MAX - 1)

struct offcpu_cpu {
	/* OFFCPU_RING_RECORDS * OFFCPU_STRIDE words (589,824 bytes), at
	 * the first wall session, never freed: a switch that read the
	 * run's generation before it was cleared may still be writing. */
	uintptr_t *ring;
	/* Written by one side, read by the other: atomics, all three. */
	uint64_t head;		/* records written: this CPU, release store */
	uint64_t tail;		/* records the drain took: release store */
	uint64_t dropped;	/* ring full, every run: this CPU, relaxed */
	/* Odd while this CPU is inside the hook: the session's grace
	 * periods (wall.c) wait for a CPU seen odd to move on. */
	unsigned hook_seq;
} __attribute__((aligned(HAL_CACHELINE)));

extern struct offcpu_cpu offcpu_cpus[HAL_MAX_CPUS];

/* The wall run, as the session publishes it: its generation (0: none,
 * the hook does nothing), its window [start, until) and the frames a
 * walk takes. */
extern unsigned offcpu_gen;
extern uint64_t offcpu_start, offcpu_until;
extern unsigned offcpu_depth;
/* The tick's period in ns: when the CPU's next tick is due. */
extern uint64_t offcpu_tick_period_ns;

/* One record, unpacked. */
struct offcpu_record {
	int32_t pid;
	uint32_t nframes;
	unsigned gen;
	enum offcpu_kind kind;
	unsigned flags;
	uint64_t ns_a, ns_b;
	const uintptr_t *frames;
};

static inline void offcpu_unpack(const uintptr_t *slot, struct offcpu_record *r)
{
	r->pid = (int32_t)(uint32_t)slot[0];
	r->nframes = (uint32_t)(slot[0] >> 32);
	if (r->nframes > PROF_MAX_FRAMES)
		r->nframes = PROF_MAX_FRAMES;
	r->gen = (unsigned)(uint32_t)slot[1];
	r->kind = (enum offcpu_kind)((slot[1] >> 32) & 0xff);
	r->flags = (unsigned)((slot[1] >> 40) & 0xff);
	r->ns_a = slot[2];
	r->ns_b = slot[3];
	r->frames = slot + OFFCPU_RECORD_HEAD;
}

/* Claim @t's interval that crosses the end of run @gen: true for the
 * first caller only (the switch hook or the collect). */
static inline bool offcpu_claim_crossing(struct task *t, unsigned gen)
{
	unsigned old = __atomic_load_n(&t->wall.crossed, __ATOMIC_ACQUIRE);

	while (old != gen)
		if (__atomic_compare_exchange_n(&t->wall.crossed, &old, gen, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

/* Boot: no hook.  prof_init(). */
void offcpu_init(void);

/* Register the switch hook (sched_on_switch()) for run @gen, or
 * (@gen 0) take it away.  The session, task context. */
void offcpu_register(unsigned gen);

/* The switch hook itself, for tests and the bench. */
void offcpu_switch(struct task *prev, struct task *next);

/* The stack @t leaves its CPU with, @depth frames at most, into its
 * slot (wall.off_frames): the preempted state's chain, else from the frame
 * of the scheduler call it made, frame 0 being that call.  On @t's CPU
 * at its switch-out. */
void offcpu_walk_leaving(struct task *t, unsigned depth);

#endif
