/* SPDX-License-Identifier: BSD-2-Clause */
/* Off-CPU and wall-clock profiles from the scheduler (DESIGN §8): what
 * the switch hook (offcpu.c: the switching CPU, interrupts off) shares
 * with the session that reads it (wall.c: task context).  Private to
 * src/prof.
 *
 * Every switch stamps the tasks' slots (kernel/task.h): when each came
 * on and went off its CPU, and the stack a task leaves with.  While a
 * wall run is on, each switch also writes two records into the
 * switching CPU's ring: the running interval that ends, and the wait
 * that ends (off -> wake blocked, wake -> in runnable) with the stack
 * it waited at.  The session clips them to its window.  The one
 * interval of each task that the window's end cuts is charged once:
 * by the switch that ends it or by the session's collect, whichever
 * claims it first (task->wall_crossed). */
#ifndef KPROF_PROF_OFFCPU_H
#define KPROF_PROF_OFFCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "kernel/task.h"
#include "prof/profiler.h"

_Static_assert(TASK_OFF_FRAMES >= PROF_MAX_FRAMES,
	       "a task's slot holds the deepest walk a profile asks for");

/* A record: pid and frame count, the run and its kind, three times
 * (a, b, end), then PROF_MAX_FRAMES frames. */
#define OFFCPU_RECORD_HEAD 5
#define OFFCPU_STRIDE (OFFCPU_RECORD_HEAD + PROF_MAX_FRAMES)
/* Records a CPU's ring holds: drained every PROF_DRAIN_MS, so 2048
 * switches of 50 ms each CPU, 40000 a second. */
#define OFFCPU_RING_RECORDS 2048

enum offcpu_kind {
	OFFCPU_RUN,	/* on its CPU from a to end; b unused */
	OFFCPU_WAIT,	/* off from a, woken at b, back on at end */
};
/* A run ended by the task's exit; a wait that began at its birth. */
#define OFFCPU_DIED 1u
#define OFFCPU_BORN 2u

struct offcpu_cpu {
	/* OFFCPU_RING_RECORDS * OFFCPU_STRIDE words (606,208 bytes), at
	 * the first wall session, never freed: a switch that read the
	 * run's generation before it was cleared may still be writing. */
	uintptr_t *ring;
	uint64_t head;		/* records written: release store */
	uint64_t tail;		/* records the drain took: release store */
	uint64_t dropped;	/* ring full, every run */
} __attribute__((aligned(HAL_CACHELINE)));

extern struct offcpu_cpu offcpu_cpus[HAL_MAX_CPUS];

/* The wall run, as the session publishes it: its generation (0: none,
 * no record written), the end of its window (UINT64_MAX while open) and
 * the frames a walk takes. */
extern unsigned offcpu_gen;
extern uint64_t offcpu_until;
extern unsigned offcpu_depth;

/* One record, unpacked. */
struct offcpu_record {
	int32_t pid;
	uint32_t nframes;
	unsigned gen;
	enum offcpu_kind kind;
	unsigned flags;
	uint64_t a, b, end;
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
	r->a = slot[2];
	r->b = slot[3];
	r->end = slot[4];
	r->frames = slot + OFFCPU_RECORD_HEAD;
}

/* Claim @t's interval that crosses the end of run @gen: true for the
 * first caller only (the switch hook or the collect). */
static inline bool offcpu_claim_crossing(struct task *t, unsigned gen)
{
	unsigned old = __atomic_load_n(&t->wall_crossed, __ATOMIC_ACQUIRE);

	while (old != gen)
		if (__atomic_compare_exchange_n(&t->wall_crossed, &old, gen, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

/* Register the switch hook (sched_on_switch()).  prof_init(). */
void offcpu_init(void);

/* The switch hook itself, for tests and the bench. */
struct task;
void offcpu_switch(struct task *prev, struct task *next);

#endif
