/* SPDX-License-Identifier: BSD-2-Clause */
/* What the sampler (sampler.c: tick and NMI context) shares with the
 * sessions that start and read it (profiler.c and stat.c: task
 * context).  Private to src/prof.
 *
 * Each CPU's share (struct prof_cpu, struct stat_cpu) is written by that
 * CPU's interrupts only, and read by the session once the CPU has
 * answered (armed, acknowledged a stop, closed).  The run's parameters
 * (prof_gen and the rest) are written by the session's holder only and
 * published with release stores before the generation that uses them;
 * the sampler reads them with acquire loads.  Every field the overflow
 * interrupt shares with another context is a relaxed atomic at every
 * access (a CPU still in the last run's tick or overflow may read the
 * parameters as the next run writes them), save the throttle, which the
 * armed store hands from the tick to the overflow interrupt. */
#ifndef KPROF_PROF_SAMPLER_H
#define KPROF_PROF_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

struct task;

#include "hal/cpu.h"
#include "hal/pmu.h"
#include "prof/stat_plan.h"
#include "prof/throttle.h"

/* One CPU's share.  Only that CPU writes it while a run is on (from its
 * tick and its overflow interrupt); the report reads it once the CPU has
 * acknowledged the stop.  What the overflow interrupt writes and other
 * contexts read (dropped, late, throttled, and the atomics marked) is
 * accessed with relaxed atomics everywhere.  Each CPU's share starts a cache line of its
 * own: a sample on one CPU must not pull the line another CPU is
 * writing its own sample into. */
struct prof_cpu {
	uintptr_t *ring;		/* PROF_RING_WORDS, never freed */
	uint64_t head;			/* records written: release store */
	uint64_t start;			/* head when this CPU began the run */
	uint64_t tail;			/* records the drain took: release store */
	uint64_t dropped;		/* ring full */
	uint64_t late;			/* claimed outside the window, not kept */
	uint64_t errors;		/* the platform failed to arm or disarm */
	uint64_t throttled;		/* the longest throttled period, 0 if none */
	/* The counter's period and its window: the tick's while disarmed,
	 * the overflow interrupt's while armed (handed over by the armed
	 * store, prof_cpu_arm()). */
	struct throttle throttle;
	unsigned gen_seen;		/* the run the buffer belongs to */
	unsigned armed_gen;		/* the last run it acknowledged arming for */
	unsigned counter_gen;		/* the last run its counter armed for */
	unsigned ack;			/* the last run whose stop it acknowledged */
	bool armed;			/* the counter's overflows are ours */
	bool arm_failed;		/* the backend refused its last arm */
	/* The clock and the scheduler's idle time when it armed and when
	 * it acknowledged the stop: its idle share of the window. */
	uint64_t t0, idle0, t1, idle1;
	uint64_t tick_ns;		/* the clock at its last tick */
	uint64_t ct0, ct1;		/* hal_cpu_time() at t0 and t1 */
} __attribute__((aligned(HAL_CACHELINE)));

/* A ring record is a word of pid and frame count, a word of weight,
 * then its frames (PROF_RECORD_HEAD). */
_Static_assert(sizeof(uintptr_t) == 8, "a record's first word packs pid and count");
extern struct prof_cpu prof_cpus[HAL_MAX_CPUS];

/* The run, as profiler.c publishes it. */
extern unsigned prof_gen, prof_stop_gen, prof_open_gen;
extern bool prof_use_counter;
extern uint64_t prof_period;
extern unsigned prof_depth;
extern uint64_t prof_cap;

/* `stat`'s plan as the CPUs read it: written by the session's holder
 * before it publishes stat_gen (release), read after it (acquire).
 * Event i is the kernel's own (id: enum kevent) or the platform's (id:
 * its table index); set s programs set_n[s] platform events,
 * set_hal[s][0..n), and pos[s][i] is event i's place in that open, or
 * -1 when set s does not count it.  task_pid: counts follow that task
 * (on task_cpu), 0 for per-CPU counts only. */
struct stat_run_plan {
	unsigned n, nsets;
	bool kernel[STAT_EVENTS_MAX];
	bool exact[STAT_EVENTS_MAX];	/* a zero is a true zero */
	unsigned id[STAT_EVENTS_MAX];
	unsigned bits[STAT_EVENTS_MAX];
	unsigned set_n[STAT_EVENTS_MAX];
	unsigned set_hal[STAT_EVENTS_MAX][HAL_PMU_COUNT_MAX];
	int8_t pos[STAT_EVENTS_MAX][STAT_EVENTS_MAX];
	int task_pid;
	unsigned task_cpu;
};
extern struct stat_run_plan stat_run_plan;

/* One CPU's share: written only by that CPU, on its tick and at its
 * switches, interrupts off, between the session's open and its close;
 * read by the session once it answered.  The window is cut into
 * segments at each rotation (and each switch of the task followed):
 * each segment adds its counts and its length to the events it counted
 * (count, run_ns). */
struct stat_cpu {
	unsigned open_gen;		/* the session it opened for */
	unsigned close_gen;		/* the session it read the end of */
	bool is_open;			/* its events are open now */
	unsigned set;			/* the rotation set programmed */
	bool open[HAL_PMU_COUNT_MAX];	/* that set's opens that succeeded */
	bool ever_open[STAT_EVENTS_MAX];
	uint64_t base[STAT_EVENTS_MAX];	/* raw counts at the segment's start */
	uint64_t seg_ns;		/* the clock at the segment's start */
	uint64_t count[STAT_EVENTS_MAX], run_ns[STAT_EVENTS_MAX];
	uint64_t rotations;
	uint64_t t0, t1, idle0, idle1, ct0, ct1;
} __attribute__((aligned(HAL_CACHELINE)));

extern struct stat_cpu stat_cpus[HAL_MAX_CPUS];

/* The task `stat pid=` follows: its counts and its time on its CPU
 * while the window was open (enabled) and while each event counted
 * (run_ns).  Written by the task's CPU alone, read once it closed. */
struct stat_task_books {
	uint64_t count[STAT_EVENTS_MAX], run_ns[STAT_EVENTS_MAX];
	uint64_t enabled_ns;
	uint64_t switches_in;		/* times it came on its CPU in the window */
};
extern struct stat_task_books stat_task;

/* The CPUs whose `stat` events are open now: each CPU sets its own bit
 * on its tick before it opens and clears it after it closes (atomic or
 * and and); the sessions read it.  While any bit is set, `stat`'s claim
 * on the counters holds, whatever the session did since (stat.h). */
extern uint32_t stat_open_cpus;

/* The `stat` session, as stat.c publishes it. */
extern unsigned stat_gen, stat_stop_gen;

/* `stat`'s share of the tick (stat_cpu.c): close what a stopped session
 * left open, then open for a new one or rotate the sets. */
void stat_answer_stop(void);
void stat_tick(void);

/* `stat pid=`'s save and restore at a switch of the task followed, on
 * its CPU, interrupts off (sched_on_switch_count()). */
void stat_switch(struct task *prev, struct task *next);

#endif
