/* SPDX-License-Identifier: BSD-2-Clause */
/* make bench, part 1: the profiler's own code, inside a ksim machine.
 *
 *   sampling path   ns per sample of the overflow handler's body
 *                   (kernel_nmi -> prof_nmi: the claim, hal_pmu_ack, the
 *                   record and its stack walk through the image's CFA
 *                   table), at depth=8 and at depth=32 (a chain deeper
 *                   than either), median of >= 100k calls, timed in
 *                   batches of 256; the tick's sample path (prof_tick)
 *                   where the host has no counter;
 *   fold + report   of 64k samples over ~600 distinct chains, the
 *                   median of 21 reports, in wall time and in the CPU
 *                   thread's own CPU time (on a loaded host the two
 *                   part: the CPU time leaves out the time the host ran
 *                   other processes on the core, not their cache misses).
 *
 * Figures are printed, nothing is asserted (doc/performance.md). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hal/cpu.h"
#include "hal/entry.h"
#include "kernel/heap.h"
#include "prof/profiler.h"
#include "prof/profiler_test.h"
#include "prof/report.h"
#include "prof/report_test.h"
#include "kernel/sched.h"
#include "kernel/symbols.h"
#include "kernel/task.h"
#include "kernel/task_test.h"
#include "lib/out.h"
#include "sim/ksim.h"
#include "bench_run.h"
#include "sim/sim.h"

#define BATCH 256
#define BATCHES 400			/* 102400 calls */
#define REPORT_SAMPLES 65536
#define REPORT_REPEATS 21

/* The depths measured, and each one's figures. */
static const unsigned bench_depths[] = { PROF_DEPTH_DEFAULT, PROF_MAX_FRAMES };
#define NDEPTHS (sizeof(bench_depths) / sizeof(bench_depths[0]))
static unsigned bench_depth = PROF_DEPTH_DEFAULT;
static double sample_ns_median[NDEPTHS], sample_ns_min[NDEPTHS];
static const char *sample_path = "";
static double report_ms_median, report_ms_min;
static double report_cpu_ms_median, report_cpu_ms_min;
static size_t report_chars;


/* ---- the sampling path ---- */

static bool bench_counter;
static double batch_ns[BATCHES];

/* Records a ring holds at the depth measured: no drain runs here, so a
 * batch must fit in what is left of it. */
static unsigned bench_ring_records(void)
{
	return PROF_RING_WORDS / (PROF_RECORD_HEAD + bench_depth);
}

static void bench_start_run(void)
{
	struct prof_options opt = { bench_depth, PROF_COUNTER_HZ, PROF_PID_ALL,
				    PROF_RUN_BOOT, false };

	if (prof_start_with(&opt) != 0)
		abort();
}

/* A run whose buffer on this CPU is empty and, with the counter, armed. */
static void bench_fresh_run(void)
{
	struct prof_cpu_stats st;

	prof_stop();
	prof_wait_stopped(1000000000ull, NULL, NULL);
	prof_end();
	bench_start_run();
	/* Samples are stored once the window is open: every CPU armed. */
	if (prof_wait_armed(1000000000ull, NULL, NULL) != 0)
		abort();
	do {
		sched_sleep_ns(1);
		prof_cpu_stats(BENCH_CPU, &st);
	} while ((bench_counter && !st.armed) || st.gen == 0 ||
		 st.stored + BATCH > bench_ring_records());
}

/* Every call of the batch stored a record of the whole depth. */
static void bench_check_batch(uint32_t before)
{
	struct prof_cpu_stats st;
	struct prof_record r;

	prof_cpu_stats(BENCH_CPU, &st);
	if (st.stored < before + BATCH ||
	    !prof_cpu_record(BENCH_CPU, st.stored - 1, &r) || r.nframes != bench_depth) {
		fprintf(stderr, "bench_prof: a batch stored %u records (want %u) of %u frames (want %u)\n",
			st.stored - before, BATCH, r.nframes, bench_depth);
		abort();
	}
}

static void __attribute__((noinline)) bench_sample_loop(struct trap_frame *tf)
{
	siginfo_t si;
	sigset_t block, old;
	unsigned long flags;

	memset(&si, 0, sizeof(si));
	si.si_code = POLL_IN;
	for (unsigned b = 0; b < BATCHES; b++) {
		struct prof_cpu_stats st;
		uint64_t t0;

		prof_cpu_stats(BENCH_CPU, &st);
		if (st.stored + BATCH > bench_ring_records()) {
			bench_fresh_run();
			prof_cpu_stats(BENCH_CPU, &st);
		}
		/* Interrupts off, and the real overflow signal held back: it
		 * would replace the handler state set up below. */
		flags = hal_irq_save();
		sigemptyset(&block);
		sigaddset(&block, sim_pmu_signo);
		pthread_sigmask(SIG_BLOCK, &block, &old);
		si.si_fd = sim_self->perf_fd;
		sim_self->nmi_info = &si;
		t0 = bench_now_ns();
		if (bench_counter)
			for (unsigned i = 0; i < BATCH; i++)
				kernel_nmi(tf);
		else
			for (unsigned i = 0; i < BATCH; i++)
				prof_tick(tf);
		batch_ns[b] = (double)(bench_now_ns() - t0) / BATCH;
		sim_self->nmi_info = NULL;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		hal_irq_restore(flags);
		/* A figure for samples that were not stored would be a lie. */
		bench_check_batch(st.stored);
	}
}

/* The interrupted state: an instruction inside a function with a frame,
 * at the bottom of a chain of frames (as a sample inside a workload). */
static void __attribute__((noinline)) bench_at_bottom(void)
{
	struct trap_frame tf;

	const uintptr_t *frame = __builtin_frame_address(0);

	/* As if interrupted in the caller just after its call: its frame
	 * pointer is the one this frame saved. */
	tf.ip = (uintptr_t)__builtin_return_address(0);
	tf.fp = frame[0];
	tf.sp = (uintptr_t)(frame + 2);
	bench_sample_loop(&tf);
}

static volatile int bench_depth_sink;

static void __attribute__((noinline)) bench_deep(int n)
{
	if (n == 0)
		bench_at_bottom();
	else
		bench_deep(n - 1);
	bench_depth_sink += n;		/* not a tail call */
}

/* The sample path at depth bench_depths[@d], from under a chain deeper
 * than it, so that every sample walks the whole depth. */
static void bench_sampling(unsigned d)
{
	const struct hal_pmu_info *info = prof_pmu_info();

	bench_counter = prof_counter_usable(info);
	sample_path = bench_counter ? "kernel_nmi -> prof_nmi (counter)"
				    : "prof_tick (tick)";
	bench_depth = bench_depths[d];
	bench_start_run();
	bench_fresh_run();
	bench_deep((int)bench_depth + 2);
	prof_stop();
	prof_wait_stopped(1000000000ull, NULL, NULL);
	prof_end();
	qsort(batch_ns, BATCHES, sizeof(batch_ns[0]), bench_cmp_double);
	sample_ns_median[d] = batch_ns[BATCHES / 2];
	sample_ns_min[d] = batch_ns[0];
}

/* ---- fold + report ---- */

/* Functions of the image the synthetic chains are made of. */
static void *const bench_funcs[] = {
	(void *)kmalloc, (void *)kfree, (void *)sched_tick, (void *)sched_preempt,
	(void *)sched_sleep_ns, (void *)sched_block, (void *)sched_wake,
	(void *)task_create, (void *)task_find, (void *)task_for_each,
	(void *)sym_lookup, (void *)sym_resolve, (void *)sym_format,
	(void *)out_printf, (void *)out_vprintf, (void *)out_write,
	(void *)prof_tick, (void *)prof_nmi, (void *)prof_start, (void *)prof_report,
	(void *)prof_report_print, (void *)kernel_tick, (void *)kernel_nmi,
};
#define NFUNCS (sizeof(bench_funcs) / sizeof(bench_funcs[0]))

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t bench_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uintptr_t bench_addr(unsigned f, unsigned off)
{
	return (uintptr_t)bench_funcs[f % NFUNCS] + 1 + off % 24;
}

#define CHAIN_KINDS 600

static void bench_make_records(struct prof_record *r, size_t n)
{
	static struct prof_record kinds[CHAIN_KINDS];

	for (unsigned k = 0; k < CHAIN_KINDS; k++) {
		kinds[k].pid = 1 + (int)(k % 7);
		kinds[k].nframes = 3 + (uint32_t)(bench_rand() % 6);
		for (uint32_t f = 0; f < kinds[k].nframes; f++)
			kinds[k].frames[f] = bench_addr((unsigned)bench_rand(),
							(unsigned)bench_rand());
	}
	for (size_t i = 0; i < n; i++) {
		/* Skewed, as real profiles are: a few hot chains. */
		uint64_t x = bench_rand() % CHAIN_KINDS;
		unsigned k = (unsigned)(x * x / CHAIN_KINDS * x / CHAIN_KINDS);

		r[i] = kinds[k];
		/* The leaf's offset varies inside its function. */
		r[i].frames[0] = bench_addr((unsigned)(k * 7), (unsigned)bench_rand());
	}
}

static void bench_report(void)
{
	static char text[65536];
	static struct prof_segment segs[4];
	static double ms[REPORT_REPEATS], cpu_ms[REPORT_REPEATS];
	struct out_buf ob;
	struct prof_record *recs = malloc(REPORT_SAMPLES * sizeof(*recs));
	struct prof_report_in in = {
		.window_ns = 2000000000ull,
		.source = "bench",
		.counter = true,
		.pid = PROF_PID_ALL,
		.chains = PROF_CHAINS_MAX,
		.segs = segs,
		.nsegs = 4,
	};

	if (!recs)
		abort();
	bench_make_records(recs, REPORT_SAMPLES);
	for (unsigned s = 0; s < 4; s++) {
		segs[s].cpu = s;
		segs[s].recs = recs + s * (REPORT_SAMPLES / 4);
		segs[s].count = REPORT_SAMPLES / 4;
	}
	for (unsigned i = 0; i < REPORT_REPEATS; i++) {
		uint64_t t0, c0;

		out_buf_init(&ob, text, sizeof(text));
		c0 = hal_cpu_time();
		t0 = bench_now_ns();
		if (prof_report_print(&ob.out, &in) != 0)
			abort();
		ms[i] = (double)(bench_now_ns() - t0) / 1e6;
		cpu_ms[i] = (double)(hal_cpu_time() - c0) / 1e6;
		report_chars = ob.len;
	}
	qsort(ms, REPORT_REPEATS, sizeof(ms[0]), bench_cmp_double);
	report_ms_median = ms[REPORT_REPEATS / 2];
	report_ms_min = ms[0];
	qsort(cpu_ms, REPORT_REPEATS, sizeof(cpu_ms[0]), bench_cmp_double);
	report_cpu_ms_median = cpu_ms[REPORT_REPEATS / 2];
	report_cpu_ms_min = cpu_ms[0];
	free(recs);
}

static void bench_body(void)
{
	for (unsigned d = 0; d < NDEPTHS; d++)
		bench_sampling(d);
	bench_report();
}

int main(void)
{
	bench_run(bench_body, 1000);
	for (unsigned d = 0; d < NDEPTHS; d++)
		printf("sampling path, %s: %.1f ns per sample (median of %u batches of %u "
		       "calls; fastest batch %.1f ns), depth=%u: %u frames\n", sample_path,
		       sample_ns_median[d], BATCHES, BATCH, sample_ns_min[d],
		       bench_depths[d], bench_depths[d]);
	printf("fold + report of %u samples (%u chain kinds, 4 cpus, %u chains "
	       "printed, %zu bytes): %.2f ms (median of %u; fastest %.2f ms)\n",
	       REPORT_SAMPLES, CHAIN_KINDS, PROF_CHAINS_MAX, report_chars,
	       report_ms_median, REPORT_REPEATS, report_ms_min);
	printf("fold + report, the CPU thread's CPU time: %.2f ms (median of %u; fastest %.2f ms)\n",
	       report_cpu_ms_median, REPORT_REPEATS, report_cpu_ms_min);
	fflush(stdout);
	_exit(0);
}
