/* SPDX-License-Identifier: BSD-2-Clause */
/* The start/stop storm.  Runs inside the simulated machine:
 *
 *   - a spinner task on every CPU but 0 spins in one of four phase
 *     functions, the one named by the run number (run % 4), and says when
 *     it has entered it;
 *   - a driver task on CPU 0, alone there, sleeping through its waits,
 *     for each run: moves the spinners to the
 *     run's phase and waits until all of them are in it, then
 *     prof_start(), prof_wait_armed(), a window of 0..max us,
 *     prof_stop(), prof_wait_stopped(), checks, prof_report(),
 *     prof_end().  It goes on past the runs asked for until the runs
 *     have stored STORM_MIN_TAGGED samples in their own phase (at most
 *     STORM_MAX_RUNS_FACTOR times as many runs), so that a host that
 *     starves the CPU threads makes the storm longer, never vacuous.
 *
 * The checks of every run, on every CPU:
 *   - every CPU acknowledged the stop; its buffer belongs to the run (one
 *     generation after the last); it is disarmed;
 *   - accounting: with the counter, the overflows the platform delivered
 *     and the profiler claimed since the last run's stop are exactly
 *     stored + dropped + late; none was ever unclaimed.  With the tick,
 *     stored + dropped lies between the ticks counted inside the window
 *     less one and the ticks counted around it plus one (a tick in flight
 *     at each edge may fall either way);
 *   - no straggler: no stored record has a frame in another run's phase
 *     function (the spinners were all in this run's before it started);
 *   - the report's header counts exactly the stored and dropped samples. */
#define _GNU_SOURCE
#include "check_stress_storm.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hal/cpu.h"
#include "hal/timer.h"
#include "prof/profiler.h"
#include "prof/profiler_test.h"
#include "kernel/sched.h"
#include "kernel/symbols.h"
#include "kernel/task.h"
#include "lib/out.h"
#include "sim_fixture.h"

#define STORM_PHASES 4
/* Budgets inside the machine: generous, a loaded host may stall a CPU
 * thread for tens of ms, and once (load 20, run 583 of 2000) kept a
 * spinner out of its phase for 2 s; a real hang still ends the storm. */
#define STORM_STOP_WAIT_NS 10000000000ull
#define STORM_PHASE_WAIT_NS 10000000000ull

static struct {
	unsigned cpus, runs, max_window_us;
	bool counter;
} sc;

static volatile unsigned storm_phase;
static volatile unsigned storm_seen[HAL_MAX_CPUS];
static volatile bool storm_quit;
static volatile bool storm_done;
static volatile unsigned long storm_sink;
static char storm_why[512];
static struct storm_result storm_res;

#define STORM_MIN_TAGGED 200
#define STORM_MAX_RUNS_FACTOR 10

/* Four functions that differ (so no pass folds them into one), each
 * spinning until the run moves on: 200-1000 us of work, then a sleep to
 * the next tick, so that the CPU threads leave the host's cores some
 * room.  The work's length varies, or every tick would land just after
 * the sleep, on idle, and the tick storm would sample nothing of it. */
#define STORM_SPIN_NS 200000ull
#define STORM_SPIN_EXTRA_NS 800000ull
#define STORM_PHASE_FN(k)						\
	static __attribute__((noinline, noclone)) void			\
	stress_phase_##k(unsigned cpu, unsigned run)			\
	{								\
		uint64_t x = 0x9e3779b97f4a7c15ull * (cpu + 1);	\
									\
		__atomic_store_n(&storm_seen[cpu], run, __ATOMIC_RELEASE); \
		while (__atomic_load_n(&storm_phase, __ATOMIC_ACQUIRE) == run && \
		       !storm_quit) {					\
			uint64_t t0 = hal_clock_ns(), spin;		\
									\
			x ^= x << 13;					\
			x ^= x >> 7;					\
			x ^= x << 17;					\
			spin = STORM_SPIN_NS + x % STORM_SPIN_EXTRA_NS;	\
			while (hal_clock_ns() - t0 < spin)		\
				storm_sink += (k) + 1;			\
			sched_sleep_ns(1);				\
		}							\
	}
STORM_PHASE_FN(0)
STORM_PHASE_FN(1)
STORM_PHASE_FN(2)
STORM_PHASE_FN(3)

static void (*const storm_phase_fn[STORM_PHASES])(unsigned, unsigned) = {
	stress_phase_0, stress_phase_1, stress_phase_2, stress_phase_3,
};

static void storm_spinner(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;

	while (!storm_quit) {
		unsigned run = __atomic_load_n(&storm_phase, __ATOMIC_ACQUIRE);

		storm_phase_fn[run % STORM_PHASES](cpu, run);
	}
	for (;;)
		sched_sleep_ms(1000);
}

/* The first failure ends the storm; the test prints why. */
static void __attribute__((format(printf, 1, 2))) storm_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(storm_why, sizeof(storm_why), fmt, ap);
	va_end(ap);
	storm_quit = true;
}


/* Move every spinner into @run's phase function. */
static bool storm_enter_phase(unsigned run)
{
	uint64_t t0 = hal_clock_ns();

	__atomic_store_n(&storm_phase, run, __ATOMIC_RELEASE);
	for (unsigned cpu = 1; cpu < sc.cpus; cpu++) {
		while (__atomic_load_n(&storm_seen[cpu], __ATOMIC_ACQUIRE) != run) {
			if (hal_clock_ns() - t0 > STORM_PHASE_WAIT_NS) {
				storm_fail("run %u: the spinner of cpu %u never entered "
					   "its phase", run, cpu);
				return false;
			}
			sched_sleep_ns(1);
		}
	}
	return true;
}

/* The phase function a frame lies in, or -1. */
static int storm_frame_phase(uintptr_t frame, bool is_return)
{
	struct sym_hit hit;

	if (!sym_lookup(is_return ? frame - 1 : frame, &hit))
		return -1;
	for (int k = 0; k < STORM_PHASES; k++)
		if (hit.start == (uintptr_t)storm_phase_fn[k])
			return k;
	return -1;
}

static bool storm_check_records(unsigned run, unsigned cpu)
{
	struct prof_record rec, *r = &rec;

	for (size_t i = 0; prof_cpu_record(cpu, i, &rec); i++) {
		bool mine = false;

		for (uint32_t f = 0; f < r->nframes && f < PROF_MAX_FRAMES; f++) {
			int k = storm_frame_phase(r->frames[f], f != 0);

			if (k < 0)
				continue;
			if ((unsigned)k != run % STORM_PHASES) {
				storm_fail("run %u: cpu %u record %zu has frame %u in "
					   "stress_phase_%d, the phase of an earlier run",
					   run, cpu, i, f, k);
				return false;
			}
			mine = true;
		}
		storm_res.tagged += mine;
	}
	return true;
}

struct storm_counts {
	uint64_t ticks[HAL_MAX_CPUS];
	uint64_t claimed[HAL_MAX_CPUS];
	uint64_t unclaimed;
};

static void storm_snapshot(struct storm_counts *s)
{
	s->unclaimed = 0;
	for (unsigned cpu = 0; cpu < sc.cpus; cpu++) {
		struct ksim_cpu_stats st;

		ksim_cpu_stats(cpu, &st);
		s->ticks[cpu] = st.ticks;
		s->claimed[cpu] = st.overflows - st.unclaimed;
		s->unclaimed += st.unclaimed;
	}
}

/* The edges of one run, in the order they were taken. */
struct storm_edges {
	struct storm_counts before_start, after_start, before_stop, after_stop;
};

static bool storm_check_cpu(unsigned run, unsigned cpu, unsigned gen,
			    const struct storm_edges *e,
			    const struct storm_counts *acked,
			    const struct storm_counts *last_acked,
			    uint64_t *stored, uint64_t *dropped)
{
	struct prof_cpu_stats st;
	uint64_t taken;

	prof_cpu_stats(cpu, &st);
	if (st.gen != gen || st.armed) {
		storm_fail("run %u: cpu %u buffer of run gen %u (want %u), armed %d "
			   "after the stop", run, cpu, st.gen, gen, st.armed);
		return false;
	}
	taken = st.stored + st.dropped;
	if (sc.counter) {
		uint64_t claimed = acked->claimed[cpu] - last_acked->claimed[cpu];

		if (claimed != taken + st.late) {
			storm_fail("run %u: cpu %u claimed %llu overflows but stored %u "
				   "+ dropped %llu + late %llu", run, cpu,
				   (unsigned long long)claimed, st.stored,
				   (unsigned long long)st.dropped,
				   (unsigned long long)st.late);
			return false;
		}
		storm_res.empty_cpu_runs += claimed == 0;
	} else {
		uint64_t inner = e->before_stop.ticks[cpu] - e->after_start.ticks[cpu];
		uint64_t outer = e->after_stop.ticks[cpu] - e->before_start.ticks[cpu];

		if (taken + 1 < inner || taken > outer + 1 || st.late) {
			storm_fail("run %u: cpu %u took %llu tick samples (late %llu); "
				   "%llu ticks inside the window, %llu around it", run,
				   cpu, (unsigned long long)taken,
				   (unsigned long long)st.late,
				   (unsigned long long)inner, (unsigned long long)outer);
			return false;
		}
		storm_res.empty_cpu_runs += taken == 0;
	}
	*stored += st.stored;
	*dropped += st.dropped;
	storm_res.late += st.late;
	return storm_check_records(run, cpu);
}

static bool storm_check_report(unsigned run, uint64_t stored, uint64_t dropped)
{
	static char text[16384];
	static struct out_buf ob;
	unsigned long long n, d;
	const char *line;
	int rc;

	out_buf_init(&ob, text, sizeof(text));
	rc = prof_report(&ob.out, PROF_PID_ALL, PROF_CHAINS_MAX);
	line = strchr(text, '\n');
	if (rc != 0 || !line ||
	    sscanf(line + 1, "%llu samples on %*u cpus, %llu dropped", &n, &d) != 2 ||
	    n != stored || d != dropped) {
		storm_fail("run %u: report (rc %d) does not count %llu stored, %llu "
			   "dropped: %.300s", run, rc, (unsigned long long)stored,
			   (unsigned long long)dropped, text);
		return false;
	}
	return true;
}

/* prof_wait_stopped()'s pause: until the next tick. */
static void storm_pause(void *ctx)
{
	(void)ctx;
	sched_sleep_ns(1);
}

static uint64_t storm_rand(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* One run in eight stops at once: the CPUs may never see it. */
static bool storm_window(void)
{
	return storm_rand() % 8 != 0;
}

static void storm_sleep_window(void)
{
	sched_sleep_ns(storm_rand() % (sc.max_window_us + 1) * 1000);
}

static bool storm_one_run(unsigned run, unsigned gen, struct storm_counts *last_acked)
{
	struct storm_edges e;
	struct storm_counts acked;
	uint64_t stored = 0, dropped = 0;
	uint32_t missing;
	int rc;

	if (!storm_enter_phase(run))
		return false;
	storm_snapshot(&e.before_start);
	rc = prof_start();
	if (rc != 0) {
		storm_fail("run %u: prof_start() = %d", run, rc);
		return false;
	}
	if (!storm_window()) {
		/* Stopped at once: the window never opened. */
		storm_snapshot(&e.after_start);
	} else if (prof_wait_armed(STORM_STOP_WAIT_NS, storm_pause, NULL)) {
		storm_fail("run %u: a cpu never armed", run);
		return false;
	} else {
		storm_snapshot(&e.after_start);
		storm_sleep_window();
	}
	storm_snapshot(&e.before_stop);
	prof_stop();
	storm_snapshot(&e.after_stop);
	missing = prof_wait_stopped(STORM_STOP_WAIT_NS, storm_pause, NULL);
	if (missing) {
		storm_fail("run %u: cpus 0x%x never acknowledged the stop", run, missing);
		return false;
	}
	storm_snapshot(&acked);
	if (acked.unclaimed) {
		storm_fail("run %u: %llu unclaimed overflows", run,
			   (unsigned long long)acked.unclaimed);
		return false;
	}
	for (unsigned cpu = 0; cpu < sc.cpus; cpu++)
		if (!storm_check_cpu(run, cpu, gen, &e, &acked, last_acked,
				     &stored, &dropped))
			return false;
	if (!storm_check_report(run, stored, dropped))
		return false;
	prof_end();
	storm_res.samples += stored;
	storm_res.dropped += dropped;
	*last_acked = acked;
	return true;
}

static void storm_driver(void *arg)
{
	static struct storm_counts last_acked;
	struct prof_cpu_stats st;
	unsigned gen;

	(void)arg;
	/* Nothing is armed before the first run. */
	storm_snapshot(&last_acked);
	prof_cpu_stats(0, &st);
	gen = st.gen;
	for (unsigned run = 1; !storm_quit &&
	     (run <= sc.runs || (storm_res.tagged < STORM_MIN_TAGGED &&
				 run <= sc.runs * STORM_MAX_RUNS_FACTOR)); run++) {
		if (!storm_one_run(run, ++gen, &last_acked))
			break;
		__atomic_store_n(&storm_res.runs, run, __ATOMIC_RELEASE);
	}
	storm_quit = true;
	__atomic_store_n(&storm_done, true, __ATOMIC_RELEASE);
	for (;;)
		sched_sleep_ms(1000);
}

static void storm_start_tasks(void)
{
	for (unsigned cpu = 1; cpu < sc.cpus; cpu++)
		ck_assert_ptr_nonnull(task_create("spin", storm_spinner,
						  (void *)(uintptr_t)cpu, cpu));
	ck_assert_ptr_nonnull(task_create("storm", storm_driver, NULL, 0));
}

void storm_run(unsigned cpus, unsigned hz, bool counter, unsigned pmu_hz,
	       unsigned runs, unsigned max_window_us, unsigned stall_ms,
	       struct storm_result *res)
{
	static struct ksim_config cfg;
	unsigned ended = 0, now;

	sc.cpus = cpus;
	sc.runs = runs;
	sc.max_window_us = max_window_us;
	sc.counter = counter;
	ksim_config_defaults(&cfg);
	cfg.cpus = cpus;
	cfg.hz = hz;
	cfg.source = counter ? KSIM_SOURCE_PMU : KSIM_SOURCE_TICK;
	cfg.pmu_hz = pmu_hz;
	cfg.late_init = storm_start_tasks;
	simfx_start(&cfg);
	while (!simfx_wait_flags(&storm_done, 1, stall_ms)) {
		now = __atomic_load_n(&storm_res.runs, __ATOMIC_ACQUIRE);
		ck_assert_msg(now != ended, "the storm hangs: no run ended in %u ms, "
			      "after %u of %u runs", stall_ms, now, runs);
		ended = now;
	}
	*res = storm_res;
	fprintf(stderr, "storm (%s, %u cpus, tick %u hz): %u runs, %lu samples "
		"(%lu in the run's phase), %lu dropped, %lu late, %lu cpu-runs "
		"without a sample\n", counter ? "counter" : "tick", cpus, hz,
		res->runs, res->samples, res->tagged, res->dropped, res->late,
		res->empty_cpu_runs);
	ck_assert_msg(storm_why[0] == '\0', "%s", storm_why);
	ck_assert_uint_ge(res->runs, runs);
	/* Not vacuous: the straggler check above had samples to look at. */
	ck_assert_uint_ge(res->tagged, STORM_MIN_TAGGED);
}
