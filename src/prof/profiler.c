/* SPDX-License-Identifier: BSD-2-Clause */
/* The profiler's session: who holds it, a run's start (its rings, depth,
 * rate and generation published to the sampler), the wait for every CPU
 * to arm, the stop and the wait for every CPU to answer it, and the end.
 * The drain that takes the samples is prof/drain.c, the choice of what
 * to sample on prof/source.c.  Task context. */
#include "prof/profiler.h"
#include "prof/profiler_test.h"

#include "hal/cpu.h"
#include "hal/pmu.h"
#include "kernel/cmdline.h"
#include "prof/fold.h"
#include "kernel/heap.h"
#include "prof/report.h"
#include "prof/run.h"
#include "prof/sampler.h"
#include "prof/stat.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "kernel/tick.h"
#include "prof/throttle.h"
#include "prof/tick_ask.h"
#include "prof/offcpu.h"
#include "prof/wall.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/race_point.h"
#include "lib/spinlock.h"
#include "lib/ticks.h"


/* The run as the session publishes it, for the sampler (sampler.h).
 * The running generation, 0 when stopped, and the one last stopped.
 * Published with release stores, read with acquire loads. */
unsigned prof_gen;
unsigned prof_stop_gen;
/* The run whose window is open: every CPU of it armed (or the wait for
 * them ended).  Samples are stored only while it names the running
 * generation; before that, overflows are late. */
unsigned prof_open_gen;
/* The run's sample source; written before the generation is published. */
bool prof_use_counter;
uint64_t prof_period;
/* Frames per record, and records per ring at that depth. */
unsigned prof_depth = PROF_DEPTH_DEFAULT;
uint64_t prof_cap = PROF_BUF;

/* The one profile lock: who holds the session. */
static struct spinlock prof_lock = SPINLOCK_INIT;
static bool prof_busy;

/* The session's run and its data (prof/run.h). */
struct prof_run prof_run;
struct prof_data prof_data;
unsigned prof_data_gen, prof_collected_gen;
struct prof_data *prof_open_interval;
static unsigned last_gen;
static size_t prof_fold_chains = PROF_FOLD_CHAINS;

/* ---- the session: task context ---- */

/* Rings for every running CPU, once: a straggler may still be inside a
 * sample of an old run, so they are never freed.  The session's holder
 * only, with no spinlock held (the heap may need pages). */
static int prof_alloc_buffers(void)
{
	unsigned n = hal_cpu_count();

	if (n > HAL_MAX_CPUS)
		n = HAL_MAX_CPUS;
	for (unsigned cpu = 0; cpu < n; cpu++) {
		struct prof_cpu *c = &prof_cpus[cpu];

		if (c->ring)
			continue;
		c->ring = kmalloc(PROF_RING_WORDS * sizeof(*c->ring));
		if (!c->ring)
			return -ENOMEM;
	}
	return 0;
}

static void prof_release(void)
{
	unsigned long flags = spin_lock_irqsave(&prof_lock);

	prof_busy = false;
	spin_unlock_irqrestore(&prof_lock, flags);
}

int prof_counters_claim(void)
{
	unsigned long flags = spin_lock_irqsave(&prof_lock);
	int r = 0;

	if (prof_busy)
		r = -EBUSY;
	else
		prof_busy = true;
	spin_unlock_irqrestore(&prof_lock, flags);
	return r;
}

void prof_counters_release(void)
{
	prof_release();
}

/* A fresh fold table and books for the run about to start. */
static int prof_data_reset(const struct prof_options *opt, const char *source)
{
	fold_free(&prof_data.fold);
	wall_free(prof_data.wall);
	kmemset(&prof_data, 0, sizeof(prof_data));
	if (fold_init(&prof_data.fold, prof_fold_chains, opt->depth) < 0)
		return -ENOMEM;
	prof_data.depth = opt->depth;
	prof_data.hz = prof_run.hz;
	prof_data.source = source;
	prof_data.counter = prof_use_counter;
	prof_data.pid = opt->pid;
	/* The address view prints the leaves as sampled, the views by CPU
	 * each CPU's chains. */
	prof_data.fold.exact_leaf = true;
	prof_data.fold.by_cpu = true;
	prof_data.weight_per_sec = prof_use_counter ? prof_pmu_info()->events_per_sec
						    : 1000000000u;
	return 0;
}

int prof_start(void)
{
	struct prof_options opt = { PROF_DEPTH_DEFAULT, PROF_COUNTER_HZ, PROF_PID_ALL,
				    PROF_RUN_BOOT, false };

	return prof_start_with(&opt);
}

/* True while a CPU of the last run has not acknowledged its stop: it
 * may still be inside a sample, writing a record of the last depth at a
 * slot of the last ring layout, so prof_depth and prof_cap must not
 * change under it.  The session's holder. */
static bool prof_last_run_unsettled(void)
{
	unsigned stopped = __atomic_load_n(&prof_stop_gen, __ATOMIC_ACQUIRE);

	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		if (prof_cpus[cpu].ring &&
		    __atomic_load_n(&prof_cpus[cpu].ack, __ATOMIC_ACQUIRE) != stopped)
			return true;
	return false;
}

/* The kept session was made by a guest (prof_start_as()), which may
 * replace it again.  The session's holder. */
static bool prof_last_by_guest;

int prof_start_with(const struct prof_options *opt)
{
	return prof_start_as(opt, false);
}

int prof_start_as(const struct prof_options *opt, bool guest)
{
	unsigned long flags = spin_lock_irqsave(&prof_lock);
	const struct hal_pmu_info *info;
	unsigned depth = opt->depth, hz = opt->hz;

	if (prof_busy) {
		spin_unlock_irqrestore(&prof_lock, flags);
		return -EBUSY;
	}
	/* `stat`'s claim outlives its session while a CPU that missed the
	 * stop still counts (stat.h). */
	if (stat_cpus_still_open()) {
		spin_unlock_irqrestore(&prof_lock, flags);
		return -EINPROGRESS;
	}
	prof_busy = true;
	spin_unlock_irqrestore(&prof_lock, flags);
	info = prof_pmu_info();

	/* Checked holding the profiler, so no session can be kept between
	 * this look and the reset below. */
	if (guest && prof_last() && !prof_last_by_guest) {
		prof_release();
		return -EPERM;
	}

	if (opt->source == PROF_RUN_PMU && !prof_counter_counts(info)) {
		prof_release();
		return -ENODEV;
	}
	if (depth < PROF_DEPTH_MIN || depth > PROF_MAX_FRAMES)
		depth = PROF_DEPTH_DEFAULT;
	if (depth != prof_depth && prof_last_run_unsettled()) {
		prof_release();
		return -EAGAIN;
	}
	if (prof_alloc_buffers() < 0) {
		prof_release();
		return -ENOMEM;
	}
	prof_run.cpus = 0;
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		if (prof_cpus[cpu].ring)
			prof_run.cpus |= 1u << cpu;
	if (hz < PROF_HZ_MIN || hz > PROF_HZ_MAX)
		hz = PROF_COUNTER_HZ;
	/* The run's parameters are the sampler's too, which a CPU still in
	 * the last run's tick or overflow may be reading: relaxed stores,
	 * published by the generation's release (sampler.h). */
	__atomic_store_n(&prof_use_counter, prof_run_uses_counter(info, opt->source),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&prof_period, prof_use_counter ? info->events_per_sec / hz : 0,
			 __ATOMIC_RELAXED);
	prof_run.hz = prof_use_counter ? hz : tick_hz();
	/* A drain of the last run may still be reading the rings at their
	 * depth and folding into the tables this frees. */
	prof_drain_wait_claim();
	__atomic_store_n(&prof_depth, depth, __ATOMIC_RELAXED);
	__atomic_store_n(&prof_cap, PROF_RING_WORDS / (PROF_RECORD_HEAD + depth),
			 __ATOMIC_RELAXED);
	if (prof_data_reset(&(struct prof_options){ depth, hz, opt->pid, opt->source, opt->wall },
			    prof_use_counter ? info->source : tick_source()) < 0) {
		prof_data_gen = 0;
		prof_drain_release();
		prof_release();
		return -ENOMEM;
	}
	prof_last_by_guest = guest;
	if (++last_gen == 0)
		last_gen = 1;
	prof_run.gen = last_gen;
	if (opt->wall && !(prof_data.wall = wall_begin(prof_run.gen, depth, prof_run.cpus))) {
		prof_data_gen = 0;
		prof_drain_release();
		prof_release();
		return -ENOMEM;
	}
	prof_run.missing = 0;
	prof_run.unarmed = 0;
	prof_run.wait_ns = 0;
	prof_run.arm_wait_ns = 0;
	prof_run.start_ns = 0;
	prof_run.stop_ns = 0;
	prof_data_gen = prof_run.gen;
	prof_collected_gen = 0;
	prof_open_interval = NULL;
	prof_drain_release();
	__atomic_store_n(&prof_gen, prof_run.gen, __ATOMIC_RELEASE);
	return 0;
}

/* The run's CPUs, asked to answer on their tick (armed, or stopped),
 * waited for up to @budget_ns: how many did not answer, kept in
 * *@pending, and the budget in *@waited_ns, for the run's header. */
static uint32_t prof_wait_answer(const unsigned *answer, uint64_t budget_ns,
				 void (*pause)(void *ctx), void *ctx,
				 uint32_t *pending, uint64_t *waited_ns)
{
	struct tick_ask ask = { prof_run.cpus, prof_run.gen, answer, sizeof(prof_cpus[0]) };

	*pending = tick_ask_wait(&ask, budget_ns, pause, ctx);
	*waited_ns = budget_ns;
	return *pending;
}

uint32_t prof_wait_armed(uint64_t budget_ns, void (*pause)(void *ctx),
			 void *ctx)
{
	uint32_t pending = prof_wait_answer(&prof_cpus[0].armed_gen, budget_ns, pause, ctx,
					    &prof_run.unarmed, &prof_run.arm_wait_ns);

	prof_run.start_ns = prof_data.wall ? wall_open(prof_data.wall) : hal_clock_ns();
	/* From here on the run's samples are stored. */
	__atomic_store_n(&prof_open_gen, prof_run.gen, __ATOMIC_RELEASE);
	return pending;
}

void prof_stop(void)
{
	if (!__atomic_load_n(&prof_gen, __ATOMIC_RELAXED))
		return;
	/* For prof_cpu_stopped(): a CPU that sees generation 0 must also
	 * see which run stopped, or it would acknowledge (and empty its
	 * buffer for) the run before, erasing this run's samples of a CPU
	 * that missed that earlier stop.  So the stop generation first... */
	__atomic_store_n(&prof_stop_gen, prof_run.gen, __ATOMIC_RELEASE);
	prof_run.stop_ns = prof_data.wall ? wall_close(prof_data.wall) : hal_clock_ns();
	/* A window that never opened measured nothing. */
	if (__atomic_load_n(&prof_open_gen, __ATOMIC_RELAXED) != prof_run.gen)
		prof_run.start_ns = prof_run.stop_ns;
	/* ...then, for prof_tick() and prof_nmi(), the end of sampling. */
	__atomic_store_n(&prof_gen, 0, __ATOMIC_RELEASE);
}

uint32_t prof_wait_stopped(uint64_t budget_ns, void (*pause)(void *ctx),
			   void *ctx)
{
	return prof_wait_answer(&prof_cpus[0].ack, budget_ns, pause, ctx, &prof_run.missing,
				&prof_run.wait_ns);
}

const struct prof_data *prof_last(void)
{
	return prof_collected_gen && prof_collected_gen == prof_data_gen ? &prof_data : NULL;
}

int prof_report(struct out *o, int pid, unsigned chains)
{
	prof_collect();
	return prof_view_text(o, &prof_data, pid, chains);
}

void prof_set_fold_chains(size_t chains)
{
	prof_fold_chains = chains ? chains : PROF_FOLD_CHAINS;
}

void prof_end(void)
{
	prof_stop();
	prof_release();
}
