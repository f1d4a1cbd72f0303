/* SPDX-License-Identifier: BSD-2-Clause */
#include "prof/profiler.h"
#include "prof/profiler_test.h"

#include "hal/cpu.h"
#include "hal/pmu.h"
#include "kernel/cmdline.h"
#include "prof/fold.h"
#include "kernel/heap.h"
#include "prof/report.h"
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

/* What the boot asked for: profile.source=auto|pmu|tick. */
enum prof_source { PROF_SOURCE_AUTO, PROF_SOURCE_PMU, PROF_SOURCE_TICK };
static enum prof_source prof_source_asked = PROF_SOURCE_AUTO;

/* The one profile lock: the probe and who holds the session. */
static struct spinlock prof_lock = SPINLOCK_INIT;
static bool prof_busy;
static bool pmu_ready;
static struct hal_pmu_info pmu_info;

/* The session's run: only the session's holder touches these. */
static unsigned run_gen, last_gen;
static uint32_t run_cpus, run_missing, run_unarmed;
static uint64_t run_start_ns, run_stop_ns, run_wait_ns, run_arm_wait_ns;
static unsigned run_hz;

/* The session's folded data, and the one drain that may read the rings
 * at a time (each ring has one consumer). */
static struct prof_data prof_data;
static bool prof_draining;
static unsigned data_gen;		/* the run prof_data is filling */
static unsigned collected_gen;		/* the run whose books are closed */
static unsigned drain_synced[HAL_MAX_CPUS];	/* run whose start it read */
static size_t prof_fold_chains = PROF_FOLD_CHAINS;
/* A rotating session's open interval (session.c), folded into beside
 * prof_data, and each CPU's drop count when it opened; NULL when none.
 * Changed under the drain claim only. */
static struct prof_data *prof_open_interval;
static uint64_t interval_dropped0[HAL_MAX_CPUS];
/* Each CPU's drop count as the collect took it into the session's total:
 * the last interval closes against the same figures. */
static uint64_t collect_dropped[HAL_MAX_CPUS];

/* ---- the probe and the session: task context ---- */

/* Under prof_lock. */
static void prof_probe_locked(void)
{
	if (pmu_ready)
		return;
	kmemset(&pmu_info, 0, sizeof(pmu_info));
	hal_pmu_probe(&pmu_info);
	/* Other CPUs arm on the strength of this answer. */
	__atomic_store_n(&pmu_ready, true, __ATOMIC_RELEASE);
}

const struct hal_pmu_info *prof_pmu_info(void)
{
	unsigned long flags;

	if (!__atomic_load_n(&pmu_ready, __ATOMIC_ACQUIRE)) {
		flags = spin_lock_irqsave(&prof_lock);
		prof_probe_locked();
		spin_unlock_irqrestore(&prof_lock, flags);
	}
	return &pmu_info;
}

int prof_set_source(const char *name)
{
	if (kstreq(name, "auto"))
		prof_source_asked = PROF_SOURCE_AUTO;
	else if (kstreq(name, "pmu"))
		prof_source_asked = PROF_SOURCE_PMU;
	else if (kstreq(name, "tick"))
		prof_source_asked = PROF_SOURCE_TICK;
	else
		return -EINVAL;
	return 0;
}

/* profile.source=auto|pmu|tick, as ksim's --source. */
static int prof_key_source(const char *value, size_t len, struct out *err)
{
	char name[8];

	if (!cmdline_value_copy(name, sizeof(name), value, len) ||
	    prof_set_source(name) < 0) {
		out_printf(err, "cmdline: profile.source= must be auto, pmu or tick (got '%.*s'); ignored\n",
			   (int)len, value);
		return -EINVAL;
	}
	return 0;
}

CMDLINE_KEY(prof_key_source_entry, .name = "profile.source", .set = prof_key_source,
	    .help = "auto|pmu|tick  what profile samples on (default auto)");

bool prof_counter_counts(const struct hal_pmu_info *info)
{
	return info->counts && info->events_per_sec >= PROF_COUNTER_HZ &&
	       info->source[0];
}

bool prof_counter_usable(const struct hal_pmu_info *info)
{
	return prof_source_asked != PROF_SOURCE_TICK && prof_counter_counts(info);
}

bool prof_run_uses_counter(const struct hal_pmu_info *info,
			   enum prof_run_source source)
{
	if (source == PROF_RUN_TICK)
		return false;
	if (source == PROF_RUN_PMU)
		return prof_counter_counts(info);
	return prof_counter_usable(info);
}

bool prof_counter_required_but_absent(const struct hal_pmu_info *info)
{
	return prof_source_asked == PROF_SOURCE_PMU && !prof_counter_usable(info);
}

const char *prof_source_name(const struct hal_pmu_info *info)
{
	return prof_counter_usable(info) ? info->source : tick_source();
}

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

/* The drain claim guards prof_data and the books: a drain reads which
 * run they are for only once it holds the claim, and the session's
 * holder closes them (prof_collect()) or frees them for the next run
 * (prof_start_with()) only while it holds it. */
static bool prof_drain_claim(void)
{
	return !__atomic_exchange_n(&prof_draining, true, __ATOMIC_ACQUIRE);
}

static void prof_drain_wait_claim(void)
{
	while (!prof_drain_claim()) {
		race_point("prof-drain-wait");
		sched_yield_cpu();
	}
}

static void prof_drain_release(void)
{
	__atomic_store_n(&prof_draining, false, __ATOMIC_RELEASE);
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
	prof_data.hz = run_hz;
	prof_data.source = source;
	prof_data.counter = prof_use_counter;
	prof_data.pid = opt->pid;
	/* The address view prints the leaves as sampled, the views by CPU
	 * each CPU's chains. */
	prof_data.fold.exact_leaf = true;
	prof_data.fold.by_cpu = true;
	prof_data.weight_per_sec = prof_use_counter ? pmu_info.events_per_sec
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
	const struct hal_pmu_info *info = &pmu_info;
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
	prof_probe_locked();
	spin_unlock_irqrestore(&prof_lock, flags);

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
	run_cpus = 0;
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		if (prof_cpus[cpu].ring)
			run_cpus |= 1u << cpu;
	if (hz < PROF_HZ_MIN || hz > PROF_HZ_MAX)
		hz = PROF_COUNTER_HZ;
	/* The run's parameters are the sampler's too, which a CPU still in
	 * the last run's tick or overflow may be reading: relaxed stores,
	 * published by the generation's release (sampler.h). */
	__atomic_store_n(&prof_use_counter, prof_run_uses_counter(info, opt->source),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&prof_period, prof_use_counter ? info->events_per_sec / hz : 0,
			 __ATOMIC_RELAXED);
	run_hz = prof_use_counter ? hz : tick_hz();
	/* A drain of the last run may still be reading the rings at their
	 * depth and folding into the tables this frees. */
	prof_drain_wait_claim();
	__atomic_store_n(&prof_depth, depth, __ATOMIC_RELAXED);
	__atomic_store_n(&prof_cap, PROF_RING_WORDS / (PROF_RECORD_HEAD + depth),
			 __ATOMIC_RELAXED);
	if (prof_data_reset(&(struct prof_options){ depth, hz, opt->pid, opt->source, opt->wall },
			    prof_use_counter ? info->source : tick_source()) < 0) {
		data_gen = 0;
		prof_drain_release();
		prof_release();
		return -ENOMEM;
	}
	prof_last_by_guest = guest;
	if (++last_gen == 0)
		last_gen = 1;
	run_gen = last_gen;
	if (opt->wall && !(prof_data.wall = wall_begin(run_gen, depth, run_cpus))) {
		data_gen = 0;
		prof_drain_release();
		prof_release();
		return -ENOMEM;
	}
	run_missing = 0;
	run_unarmed = 0;
	run_wait_ns = 0;
	run_arm_wait_ns = 0;
	run_start_ns = 0;
	run_stop_ns = 0;
	data_gen = run_gen;
	collected_gen = 0;
	prof_open_interval = NULL;
	prof_drain_release();
	__atomic_store_n(&prof_gen, run_gen, __ATOMIC_RELEASE);
	return 0;
}

/* The run's CPUs, asked to answer on their tick: armed, or stopped. */
static struct tick_ask prof_ask(const unsigned *answer)
{
	return (struct tick_ask){ run_cpus, run_gen, answer, sizeof(prof_cpus[0]) };
}

uint32_t prof_wait_armed(uint64_t budget_ns, void (*pause)(void *ctx),
			 void *ctx)
{
	struct tick_ask ask = prof_ask(&prof_cpus[0].armed_gen);
	uint32_t pending = tick_ask_wait(&ask, budget_ns, pause, ctx);

	run_unarmed = pending;
	run_arm_wait_ns = budget_ns;
	run_start_ns = prof_data.wall ? wall_open(prof_data.wall) : hal_clock_ns();
	/* From here on the run's samples are stored. */
	__atomic_store_n(&prof_open_gen, run_gen, __ATOMIC_RELEASE);
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
	__atomic_store_n(&prof_stop_gen, run_gen, __ATOMIC_RELEASE);
	run_stop_ns = prof_data.wall ? wall_close(prof_data.wall) : hal_clock_ns();
	/* A window that never opened measured nothing. */
	if (__atomic_load_n(&prof_open_gen, __ATOMIC_RELAXED) != run_gen)
		run_start_ns = run_stop_ns;
	/* ...then, for prof_tick() and prof_nmi(), the end of sampling. */
	__atomic_store_n(&prof_gen, 0, __ATOMIC_RELEASE);
}

uint32_t prof_wait_stopped(uint64_t budget_ns, void (*pause)(void *ctx),
			   void *ctx)
{
	struct tick_ask ask = prof_ask(&prof_cpus[0].ack);
	uint32_t pending = tick_ask_wait(&ask, budget_ns, pause, ctx);

	run_missing = pending;
	run_wait_ns = budget_ns;
	return pending;
}

/* ---- draining the rings into the session's fold table ---- */

/* The name of @pid, copied while the task list is held. */
struct prof_name_find {
	int pid;
	char *name;
};

static void prof_name_match(struct task *t, void *ctx)
{
	struct prof_name_find *f = ctx;

	if (t->pid == f->pid)
		kstrlcpy(f->name, t->name, PROF_TASK_NAME_MAX);
}

/* Remember @pid's name the first time @d sees it: a task may be gone by
 * the time a view prints. */
static void prof_note_task(struct prof_data *d, int pid)
{
	struct prof_name_find f;

	for (unsigned i = d->ntasks; i-- > 0;)
		if (d->tasks[i].pid == pid)
			return;
	if (d->ntasks == PROF_TASK_NAMES)
		return;
	d->tasks[d->ntasks].pid = pid;
	kstrlcpy(d->tasks[d->ntasks].name, "?", PROF_TASK_NAME_MAX);
	f.pid = pid;
	f.name = d->tasks[d->ntasks].name;
	task_for_each(prof_name_match, &f);
	d->ntasks++;
}

/* The wall books name the tasks they charge in the session's data. */
static void prof_note_session_task(int pid)
{
	prof_note_task(&prof_data, pid);
}

/* Count and fold record @r, taken on @cpu, into @d. */
static void prof_data_add(struct prof_data *d, unsigned cpu,
			  const struct prof_record *r)
{
	d->samples++;
	d->cpu_samples[cpu]++;
	if (!d->ntasks || r->pid != d->tasks[d->ntasks - 1].pid)
		prof_note_task(d, r->pid);
	if (fold_add_cpu(&d->fold, r, cpu) < 0) {
		/* A new chain the table has no room for: counted, never lost. */
		d->other++;
		d->other_weight += r->weight;
		d->other_cpus |= 1u << cpu;
		d->cpu_other[cpu]++;
		d->cpu_other_weight[cpu] += r->weight;
	}
}

static void prof_take(unsigned cpu, const uintptr_t *slot)
{
	struct prof_record r;
	uint32_t n = (uint32_t)(slot[0] >> 32);

	r.pid = (int32_t)(uint32_t)slot[0];
	r.nframes = n < prof_depth ? n : prof_depth;
	r.weight = slot[1];
	kmemcpy(r.frames, slot + PROF_RECORD_HEAD, r.nframes * sizeof(r.frames[0]));
	prof_data_add(&prof_data, cpu, &r);
	/* A rotating session's open interval takes it too: each sample is
	 * taken once, so it lands in exactly one interval. */
	if (prof_open_interval)
		prof_data_add(prof_open_interval, cpu, &r);
}

/* Take what @cpu has published since the last drain.  A CPU is read once
 * its tick has begun this run (its start is then this run's). */
static void prof_drain_cpu(unsigned cpu)
{
	struct prof_cpu *c = &prof_cpus[cpu];
	uint64_t stride = PROF_RECORD_HEAD + prof_depth, head, tail;

	if (__atomic_load_n(&c->gen_seen, __ATOMIC_ACQUIRE) != data_gen)
		return;
	if (drain_synced[cpu] != data_gen) {
		__atomic_store_n(&c->tail, __atomic_load_n(&c->start, __ATOMIC_RELAXED),
				 __ATOMIC_RELEASE);
		drain_synced[cpu] = data_gen;
	}
	tail = __atomic_load_n(&c->tail, __ATOMIC_RELAXED);
	head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
	for (; tail != head; tail++) {
		race_point("prof-drain-take");
		prof_take(cpu, c->ring + (tail % prof_cap) * stride);
	}
	/* The slots are the sampler's again. */
	__atomic_store_n(&c->tail, tail, __ATOMIC_RELEASE);
}

/* Under the drain flag: every CPU of the run that armed, and that
 * answered the stop once the stop was waited for. */
static void prof_drain_locked(uint32_t skip)
{
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		if (((run_cpus & ~skip) >> cpu) & 1)
			prof_drain_cpu(cpu);
	wall_drain(prof_data.wall, run_cpus & ~skip, prof_note_session_task);
}

int prof_drain(void)
{
	race_point("prof-drain-claim");
	if (!prof_drain_claim())
		return -EBUSY;
	if (data_gen && collected_gen != data_gen)
		prof_drain_locked(run_unarmed);
	prof_drain_release();
	return 0;
}

/* @t of hal_cpu_time() in nanoseconds, integers only. */
static uint64_t prof_cpu_time_ns(uint64_t t)
{
	uint64_t per = hal_cpu_time_per_sec();

	return per ? count_to_ns(t, per) : 0;
}

/* The CPUs whose drops the books count: every CPU of the run whose
 * samples the drains take (all but those that never armed in time, which
 * contribute nothing), whether or not it answered the stop -- what a
 * CPU that missed the stop dropped before it was left out was counted in
 * an interval already.  One mask for the session's total and for every
 * interval of a rotating session, so that the intervals' drops add up to
 * the total's. */
static uint32_t prof_drop_cpus(void)
{
	return run_cpus & ~run_unarmed;
}

/* @cpu's drops in this run so far: 0 for a CPU outside the books, or one
 * whose tick has not begun the run (its count is an older run's). */
static uint64_t prof_cpu_dropped_now(unsigned cpu)
{
	const struct prof_cpu *c = &prof_cpus[cpu];

	if (!((prof_drop_cpus() >> cpu) & 1) ||
	    __atomic_load_n(&c->gen_seen, __ATOMIC_ACQUIRE) != data_gen)
		return 0;
	return __atomic_load_n(&c->dropped, __ATOMIC_RELAXED);
}

void prof_collect(void)
{
	struct prof_data *d = &prof_data;
	uint32_t skip = run_missing | run_unarmed;
	uint64_t throttled = 0;

	if (!data_gen || collected_gen == data_gen)
		return;
	/* A periodic drain may be under way on another CPU: it finishes
	 * soon, and the rest is ours. */
	prof_drain_wait_claim();
	prof_drain_locked(skip);
	d->window_ns = run_stop_ns - run_start_ns;
	d->missing = run_missing;
	d->wait_ns = run_wait_ns;
	d->unarmed = run_unarmed & ~run_missing;
	d->arm_wait_ns = run_arm_wait_ns;
	d->run_cpus = run_cpus & ~skip;
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		collect_dropped[cpu] = prof_cpu_dropped_now(cpu);
		d->dropped += collect_dropped[cpu];
	}
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		struct prof_cpu *c = &prof_cpus[cpu];

		if (!((d->run_cpus >> cpu) & 1))
			continue;
		if (c->arm_failed)
			d->arm_failed |= 1u << cpu;
		d->errors += __atomic_load_n(&c->errors, __ATOMIC_RELAXED);
		if (__atomic_load_n(&c->throttled, __ATOMIC_RELAXED) > throttled)
			throttled = __atomic_load_n(&c->throttled, __ATOMIC_RELAXED);
		if (c->t1 > c->t0 && c->idle1 >= c->idle0) {
			d->cpu_ns[cpu] = c->t1 - c->t0;
			d->cpu_idle_ns[cpu] = c->idle1 - c->idle0;
			d->cpu_run_ns[cpu] = prof_cpu_time_ns(c->ct1 - c->ct0);
		}
	}
	/* The slowest CPU's rate: the one the header names. */
	if (throttled)
		d->throttled_hz = pmu_info.events_per_sec / throttled;
	/* Every sample is in: the wall books split running time by them. */
	if (d->wall && wall_collect(d->wall, d, prof_note_session_task) < 0)
		d->wall->incomplete = true;
	/* Closed before a drain can look again. */
	collected_gen = data_gen;
	prof_drain_release();
}

/* ---- intervals of a rotating session (session.c) ---- */

int prof_interval_prepare(struct prof_data *iv, size_t limit)
{
	fold_free(&iv->fold);
	kmemset(iv, 0, sizeof(*iv));
	if (fold_init(&iv->fold, limit, prof_data.depth) < 0)
		return -ENOMEM;
	iv->depth = prof_data.depth;
	iv->hz = prof_data.hz;
	iv->source = prof_data.source;
	iv->counter = prof_data.counter;
	iv->pid = prof_data.pid;
	iv->weight_per_sec = prof_data.weight_per_sec;
	iv->fold.exact_leaf = true;
	return 0;
}

/* Close @iv's books at the cut: the CPUs whose samples count, and the
 * drops since the last cut (each CPU's count only grows within a run,
 * from 0 once gen_seen names it).  Under the drain claim. */
static void prof_interval_close_books(struct prof_data *iv)
{
	bool collected = collected_gen == data_gen;

	iv->run_cpus = run_cpus & ~(run_unarmed | run_missing);
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		uint64_t now = collected ? collect_dropped[cpu] : prof_cpu_dropped_now(cpu);

		iv->dropped += now - interval_dropped0[cpu];
		interval_dropped0[cpu] = now;
	}
}

int prof_interval_cut(struct prof_data *closing, struct prof_data *opening,
		      uint64_t *at_ns)
{
	prof_drain_wait_claim();
	if (!data_gen || closing != prof_open_interval) {
		prof_drain_release();
		return -ESTALE;
	}
	/* Every CPU's ring up to its head now: what they publish from here
	 * on is the next interval's.  A collected run has nothing left, and
	 * its last interval ends where sampling stopped. */
	if (collected_gen != data_gen) {
		prof_drain_locked(run_unarmed);
		*at_ns = hal_clock_ns();
	} else {
		*at_ns = run_stop_ns;
	}
	if (closing)
		prof_interval_close_books(closing);
	else
		kmemset(interval_dropped0, 0, sizeof(interval_dropped0));
	prof_open_interval = opening;
	prof_drain_release();
	return 0;
}

const struct prof_data *prof_last(void)
{
	return collected_gen && collected_gen == data_gen ? &prof_data : NULL;
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

/* ---- introspection ---- */

void prof_cpu_stats(unsigned cpu, struct prof_cpu_stats *st)
{
	const struct prof_cpu *c = &prof_cpus[cpu];

	st->stored = (uint32_t)(__atomic_load_n(&c->head, __ATOMIC_ACQUIRE) -
				__atomic_load_n(&c->start, __ATOMIC_RELAXED));
	st->dropped = __atomic_load_n(&c->dropped, __ATOMIC_RELAXED);
	st->late = __atomic_load_n(&c->late, __ATOMIC_RELAXED);
	st->errors = __atomic_load_n(&c->errors, __ATOMIC_RELAXED);
	st->gen = __atomic_load_n(&c->gen_seen, __ATOMIC_ACQUIRE);
	st->armed = __atomic_load_n(&c->armed, __ATOMIC_RELAXED);
	st->counter_armed = st->gen &&
			    __atomic_load_n(&c->counter_gen, __ATOMIC_RELAXED) == st->gen;
}

bool prof_cpu_record(unsigned cpu, size_t i, struct prof_record *r)
{
	const struct prof_cpu *c = &prof_cpus[cpu];
	uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
	uint64_t idx = __atomic_load_n(&c->start, __ATOMIC_RELAXED) + i;
	const uintptr_t *slot;

	if (!c->ring || idx >= head || head - idx > prof_cap)
		return false;
	slot = c->ring + (idx % prof_cap) * (PROF_RECORD_HEAD + prof_depth);
	r->pid = (int32_t)(uint32_t)slot[0];
	r->nframes = (uint32_t)(slot[0] >> 32);
	if (r->nframes > prof_depth)
		r->nframes = prof_depth;
	r->weight = slot[1];
	kmemcpy(r->frames, slot + PROF_RECORD_HEAD, r->nframes * sizeof(r->frames[0]));
	return true;
}

bool prof_cpu_armed(unsigned cpu)
{
	return __atomic_load_n(&prof_cpus[cpu].armed, __ATOMIC_RELAXED);
}

uint64_t prof_answer_budget_ns(void)
{
	uint64_t floor = (uint64_t)PROF_STOP_WAIT_MS * 1000000u;
	uint64_t platform = tick_answer_ns();

	return platform > floor ? platform : floor;
}

const void *prof_cpu_state(unsigned cpu)
{
	return &prof_cpus[cpu];
}
