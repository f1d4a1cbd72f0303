/* SPDX-License-Identifier: BSD-2-Clause */
/* The sampling profiler (doc/profiler.md, "How a sample is taken").
 * Sampling is lock-free and allocation-free; start, stop and the report
 * run in task context under the one profile lock.
 *
 * A profile is a session of these calls, made by one task:
 *
 *     prof_start_with(&opt);            a new run generation
 *     prof_wait_armed(budget, ...);     every CPU armed: the window opens
 *     ... the window passes ...
 *     prof_stop();                      generation 0
 *     prof_wait_stopped(budget, ...);   every CPU disarmed and acknowledged
 *     prof_collect();                   the rest folded: prof_last()
 *     prof_view_text(out, prof_last(), ...);  and the other views
 *     prof_end();                       the next profile may start
 *
 * The shell's `profile` composes them with a sleep; tests drive them
 * with the fake platform, playing each CPU's tick and overflow. */
#ifndef KPROF_PROF_PROFILER_H
#define KPROF_PROF_PROFILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/timer.h"

struct hal_pmu_info;
struct out;
struct trap_frame;

/* Records per CPU ring at the default depth: 4 s at the counter's
 * default 1 kHz, and the ring is drained at least every
 * PROF_DRAIN_MS.  Deeper records take more room each: the ring is
 * PROF_RING_WORDS words whatever the depth. */
#define PROF_BUF 4096
/* The most frames a sample keeps: frame 0 (the interrupted
 * instruction) and up to 31 callers (`depth=`). */
#define PROF_MAX_FRAMES 32
#define PROF_DEPTH_MIN 1
#define PROF_DEPTH_DEFAULT 8
/* A record is one word of pid and frame count, one of its weight, then
 * its frames. */
#define PROF_RECORD_HEAD 2
#define PROF_RING_WORDS (PROF_BUF * (PROF_RECORD_HEAD + PROF_DEPTH_DEFAULT))
/* How often a session's samples move from the rings into its fold
 * table, at most: from task context, while the window runs.  (5 in
 * bench/switch-icount's KPROF_BENCH_WALL_STORE_ALL kernel: with its
 * larger wall rings, no switch record is dropped.) */
#ifndef KPROF_BENCH_WALL_STORE_ALL
#define PROF_DRAIN_MS 50
#else
#define PROF_DRAIN_MS 5
#endif
/* Distinct chains a session's fold table holds; samples of chains
 * beyond it are counted as `other`.  Memory is bounded by this, not by
 * how long a session runs. */
#define PROF_FOLD_CHAINS 16384

#define PROF_WINDOW_MIN_MS 1
#define PROF_WINDOW_MAX_MS 2000
#define PROF_WINDOW_DEFAULT_MS 1000
#define PROF_CHAINS_MIN 1
#define PROF_CHAINS_MAX 128		/* the report keeps this many chains */
#define PROF_CHAINS_DEFAULT 8
/* The counter's sampling rate per CPU (`hz=`, default); the period is
 * derived from it. */
#define PROF_COUNTER_HZ 1000
#define PROF_HZ_MIN 10
#define PROF_HZ_MAX 10000
/* How long the report waits for every CPU to acknowledge the stop, at
 * least: a CPU answers on its next tick (10 ms at 100 Hz), plus disarm's tens of
 * us.  A platform whose CPUs may answer later says so
 * (tick_answer_ns()), and the longer of the two is used. */
#define PROF_STOP_WAIT_MS 200
/* "No pid filter". */
#define PROF_PID_ALL (-1)


/* One sample: the task it is charged to and its call chain, unresolved.
 * frames[0] is the interrupted instruction, the rest return addresses.
 * The rings hold records of the session's depth; this is the unpacked
 * form the fold and the tests use. */
struct prof_record {
	int32_t pid;
	uint32_t nframes;
	/* What the sample stands for: the events the counter counted
	 * since the last one (hal_pmu_sample_events()), or the nanoseconds
	 * since this CPU's last tick when the tick samples. */
	uint64_t weight;
	uintptr_t frames[PROF_MAX_FRAMES];
};

/* The PMU probe's answer.  The probe runs once, on the first call (from
 * `profile` or `lscpu`), under the profile lock; later calls return the
 * cached answer.  Task context. */
const struct hal_pmu_info *prof_pmu_info(void);

/* True when @info describes a counter the profiler can sample with: it
 * was proven to count and its rate is known, whatever source the boot
 * asked for. */
bool prof_counter_counts(const struct hal_pmu_info *info);

/* True when the profiler samples with @info's counter when a run asks
 * for nothing else: it counts, and the boot did not ask for the tick. */
bool prof_counter_usable(const struct hal_pmu_info *info);

/* True when the source asked for is the counter and it cannot count:
 * `profile` refuses rather than sampling something else. */
bool prof_counter_required_but_absent(const struct hal_pmu_info *info);

/* The source a profile would use with @info: the counter's name, or
 * the tick (tick_source()). */
const char *prof_source_name(const struct hal_pmu_info *info);

/* The source one run asks for (`profile ... source=`): what the boot
 * chose (profile.source=), the counter, or the tick. */
enum prof_run_source { PROF_RUN_BOOT, PROF_RUN_PMU, PROF_RUN_TICK };

/* True when a run asking for @source samples with @info's counter.
 * PROF_RUN_PMU where the counter does not count is false: such a run is
 * refused (prof_start_with() returns -ENODEV). */
bool prof_run_uses_counter(const struct hal_pmu_info *info,
			   enum prof_run_source source);

/* What a session samples with: frames per sample and samples per second
 * per CPU (the counter's rate; with the tick as the source it is the
 * tick's own rate whatever is asked), and the source. */
struct prof_options {
	unsigned depth;		/* PROF_DEPTH_MIN..PROF_MAX_FRAMES */
	unsigned hz;		/* PROF_HZ_MIN..PROF_HZ_MAX */
	int pid;		/* the views' task, or PROF_PID_ALL */
	enum prof_run_source source;	/* 0: the boot's choice */
	/* A wall profile besides the samples: every task's time running,
	 * runnable and blocked, from the scheduler (prof/wall.h). */
	bool wall;
};

/* Begin a session: run the probe if it has not run, allocate the per-CPU
 * rings the first time (never freed) and the session's fold table, and
 * publish a new run generation.  Returns 0, -EBUSY when another session
 * holds the profiler, -EINPROGRESS while a CPU of the last `stat` has
 * not closed its events (stat_cpus_still_open(): nothing changed, try
 * again), -ENODEV when it asks for the counter
 * (PROF_RUN_PMU) and the counter does not count, -EAGAIN when it asks
 * for another depth while a CPU of the last run has not acknowledged its
 * stop (it may still be writing a sample at the last depth), or
 * -ENOMEM.  Task context. */
int prof_start_with(const struct prof_options *opt);

/* As prof_start_with(), for a @guest when true: a caller that may change
 * nothing (a UDP shell without a key), refused with -EPERM when it would
 * replace a kept session (prof_last()) that a non-guest made. */
int prof_start_as(const struct prof_options *opt, bool guest);

/* Move what the CPUs have sampled so far from their rings into the
 * session's fold table, so that the rings never fill however long it
 * runs.  Returns 0, or -EBUSY when another task is draining (its drain
 * takes these samples).  Task context, while a session runs. */
int prof_drain(void);

/* Wait until every CPU of the run has armed for it on its own tick, at
 * most @budget_ns by hal_clock_ns(), calling @pause(@ctx) between polls
 * (NULL: spin), then open the window: samples are stored from now on,
 * and the milliseconds the report prints start here.  Returns the mask of
 * CPUs that never armed; the report names them and they contribute
 * nothing.  Task context, the session's holder, after prof_start(). */
uint32_t prof_wait_armed(uint64_t budget_ns, void (*pause)(void *ctx),
			 void *ctx);

/* How long a session waits for every CPU to acknowledge its stop:
 * PROF_STOP_WAIT_MS, or longer where the platform's CPUs may answer later
 * (tick_answer_ns()).  Any context. */
uint64_t prof_answer_budget_ns(void);

/* Take the counters for a session that is not a profile (`stat`):
 * counting and sampling share them.  Returns 0, or -EBUSY while a
 * profile or another session holds them.  Task context. */
int prof_counters_claim(void);

/* Give them back (after prof_counters_claim()). */
void prof_counters_release(void);

/* End the sampling window: publish generation 0.  Each CPU disarms and
 * acknowledges on its next tick.  Task context, the session's holder. */
void prof_stop(void);

/* Wait until every CPU of the run has acknowledged the stop, at most
 * @budget_ns by hal_clock_ns(), calling @pause(@ctx) between polls (NULL:
 * spin).  Returns the mask of CPUs that never answered; the report names
 * them and leaves their samples out.  Task context, after prof_stop(). */
uint32_t prof_wait_stopped(uint64_t budget_ns, void (*pause)(void *ctx),
			   void *ctx);

/* Take the run's last samples into its fold table and close its
 * books (window, missing CPUs, drops, idle time): from now on the
 * session's data (prof_last()) is whole and stays until the next
 * prof_start().  Idempotent.  Task context, after prof_wait_stopped(). */
void prof_collect(void);

struct prof_data;

/* Intervals of a session that rotates (`profile rotate`, session.c).
 * Make @iv an empty interval of the running session: its parameters
 * the session's, a fold table of at most @limit chains.  @iv must not
 * be the open interval.  Returns 0 or -ENOMEM.  Task context, the
 * session's holder. */
int prof_interval_prepare(struct prof_data *iv, size_t limit);

/* The cut: drain every CPU's ring up to its head at this instant into
 * the session's table and the open interval @closing (NULL: none is
 * open yet), close @closing's books (its drops, its CPUs), and fold
 * from now on into @opening (prepared; NULL: none) besides the
 * session's table.  Each sample is drained once, so it belongs to
 * exactly one interval.  *@at_ns is the cut's time on hal_clock_ns(),
 * or the time sampling stopped where the run is already collected.
 * Returns 0, or -ESTALE when @closing is not the open interval or no
 * run has data.  Task context, the session's holder. */
int prof_interval_cut(struct prof_data *closing, struct prof_data *opening,
		      uint64_t *at_ns);

/* The data of the last collected session, or NULL when there is none.
 * Stable until the next prof_start(). */
const struct prof_data *prof_last(void);

/* End the session (stopping the run if it still runs): the next
 * prof_start() may begin.  Task context. */
void prof_end(void);

/* Register the profiler's hooks on the kernel's tick and counter
 * interrupt (kernel_on_tick() and the rest, kernel/kernel.h): until
 * then no CPU arms, samples or counts.  The boot story, once, before
 * the first profile or stat. */
void prof_init(void);

/* A CPU's view of the current or last run, for tests and diagnostics. */
struct prof_cpu_stats {
	uint32_t stored;	/* records it wrote in the run */
	uint64_t dropped;	/* samples lost to a full buffer */
	uint64_t late;		/* overflows claimed outside the window, not stored */
	uint64_t errors;	/* hal_pmu_arm()/hal_pmu_disarm() failures */
	unsigned gen;		/* the run its buffer belongs to */
	bool armed;
	/* Its counter armed for that run: the backend's counts since its
	 * last arm (lscpu's "last run") are that run's only then. */
	bool counter_armed;
};
void prof_cpu_stats(unsigned cpu, struct prof_cpu_stats *st);


#endif
