/* SPDX-License-Identifier: BSD-2-Clause */
#include "work/split_test.h"

#include "hal/timer.h"
#include "kernel/task.h"
#include "kernel/tick.h"
#include "work/work.h"
#include "lib/kstring.h"
#include "lib/out.h"

const unsigned split_weight[SPLIT_CHAINS] = { 5, 3, 2 };
const char *const split_leaf_name[SPLIT_CHAINS] = {
	"split_leaf_a", "split_leaf_b", "split_leaf_c",
};

#define SLICE_MIN_US 700u
#define SLICE_SPAN_US 2000u
#define CALIBRATE_ITERS 2000000u

static uint64_t truth[SPLIT_CHAINS];
/* The calls of each leaf per task, and their wall-clock time around the
 * call (the probes' truth, issue 59): one entry per CPU (a workload task
 * is pinned, one per CPU) and one for the calibration's caller. */
static struct split_calls calls[SPLIT_CALL_TASKS];
/* Each leaf's loop iterations per microsecond, scaled by 1024: the leaves'
 * loops differ, and the chains' shares should follow the weights. */
static uint64_t iters_per_us_x1024[SPLIT_CHAINS];

void split_rng_seed(struct split_rng *r, uint64_t seed)
{
	r->state = seed ? seed : 1;
}

/* xorshift64*: fixed-seed, fast, good enough to break any rhythm. */
uint64_t split_rng_next(struct split_rng *r)
{
	uint64_t x = r->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->state = x;
	return x * 0x2545f4914f6cdd1dull;
}

uint32_t split_slice_us(struct split_rng *r, unsigned chain)
{
	uint32_t base = SLICE_MIN_US + (uint32_t)(split_rng_next(r) % SLICE_SPAN_US);
	uint32_t us = base * split_weight[chain];

	if (us % (1000000u / tick_hz()) == 0)
		us++;
	return us;
}

/* The leaves: nothing but a loop, no calls, no clock.  noinline and
 * distinct bodies so each is its own symbol with its own code. */
__attribute__((noinline)) void split_leaf_a(uint64_t iters)
{
	for (volatile uint64_t i = 0; i < iters; i++)
		;
}

__attribute__((noinline)) void split_leaf_b(uint64_t iters)
{
	for (volatile uint64_t i = 0; i < iters; i += 1)
		__asm__ volatile("" ::: "memory");
}

/* split_leaf_c's step, inlined at -O2: the one inline frame of a
 * built-in workload, which pprof and kprof-report annotate show as a
 * line of its own, inside split_leaf_c. */
static inline void split_count_down(volatile uint64_t *i)
{
	(*i)--;
}

__attribute__((noinline)) void split_leaf_c(uint64_t iters)
{
	volatile uint64_t i = iters;

	while (i)
		split_count_down(&i);
}

/* One more call of @chain's leaf by the task of entry @at, which took
 * @ns of wall-clock time around the call. */
static void split_count_call(unsigned at, unsigned chain, uint64_t ns)
{
	struct split_calls *e = &calls[at];

	__atomic_store_n(&e->pid, task_current()->pid, __ATOMIC_RELAXED);
	__atomic_fetch_add(&e->n[chain], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&e->ns[chain], ns, __ATOMIC_RELAXED);
}

/* The callers read the task's clock around the leaf, never inside it:
 * the truth is the time spent below each caller, as the profile counts. */
__attribute__((noinline)) static void split_chain_a(uint64_t iters)
{
	uint64_t t0 = task_runtime_self(), w0 = hal_clock_ns();

	split_leaf_a(iters);
	split_count_call(task_current()->cpu, 0, hal_clock_ns() - w0);
	__atomic_fetch_add(&truth[0], task_runtime_self() - t0, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void split_chain_b(uint64_t iters)
{
	uint64_t t0 = task_runtime_self(), w0 = hal_clock_ns();

	split_leaf_b(iters);
	split_count_call(task_current()->cpu, 1, hal_clock_ns() - w0);
	__atomic_fetch_add(&truth[1], task_runtime_self() - t0, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void split_chain_c(uint64_t iters)
{
	uint64_t t0 = task_runtime_self(), w0 = hal_clock_ns();

	split_leaf_c(iters);
	split_count_call(task_current()->cpu, 2, hal_clock_ns() - w0);
	__atomic_fetch_add(&truth[2], task_runtime_self() - t0, __ATOMIC_RELAXED);
}

static void (*const split_chain[SPLIT_CHAINS])(uint64_t) = {
	split_chain_a, split_chain_b, split_chain_c,
};

static void (*const split_leaf[SPLIT_CHAINS])(uint64_t) = {
	split_leaf_a, split_leaf_b, split_leaf_c,
};

static uint64_t us_to_iters(unsigned chain, uint32_t us)
{
	return (uint64_t)us * iters_per_us_x1024[chain] / 1024 + 1;
}

/* Time each leaf once, outside any measured slice.  The fastest of three
 * tries: a try the host (or an interrupt) stretched says nothing. */
static void split_calibrate(unsigned chain)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		uint64_t t0 = hal_clock_ns(), dt;

		split_leaf[chain](CALIBRATE_ITERS);
		dt = hal_clock_ns() - t0;
		split_count_call(SPLIT_CALL_CALIBRATION, chain, dt);
		if (dt < best)
			best = dt;
	}
	if (best == 0)
		best = 1;
	iters_per_us_x1024[chain] = (uint64_t)CALIBRATE_ITERS * 1000 * 1024 / best;
	if (iters_per_us_x1024[chain] == 0)
		iters_per_us_x1024[chain] = 1;
}

static void split_begin(void)
{
	kmemset(calls, 0, sizeof(calls));
	for (unsigned i = 0; i < SPLIT_CHAINS; i++) {
		truth[i] = 0;
		split_calibrate(i);
	}
}

static void split_run(void)
{
	struct split_rng r;

	/* Each task its own sequence: the same seed offset by its CPU. */
	split_rng_seed(&r, SPLIT_SEED + task_current()->cpu);
	while (!work_should_stop())
		for (unsigned c = 0; c < SPLIT_CHAINS; c++)
			split_chain[c](us_to_iters(c, split_slice_us(&r, c)));
}

void split_truth(uint64_t out[SPLIT_CHAINS])
{
	for (unsigned i = 0; i < SPLIT_CHAINS; i++)
		out[i] = __atomic_load_n(&truth[i], __ATOMIC_RELAXED);
}

void split_calls_read(struct split_calls out[SPLIT_CALL_TASKS])
{
	for (unsigned i = 0; i < SPLIT_CALL_TASKS; i++) {
		out[i].pid = __atomic_load_n(&calls[i].pid, __ATOMIC_RELAXED);
		for (unsigned c = 0; c < SPLIT_CHAINS; c++) {
			out[i].n[c] = __atomic_load_n(&calls[i].n[c], __ATOMIC_RELAXED);
			out[i].ns[c] = __atomic_load_n(&calls[i].ns[c], __ATOMIC_RELAXED);
		}
	}
}

/* "split calls: pid P a/b/c mean-ns a/b/c ...", one entry per task that
 * called a leaf, the calibration's caller last. */
static void split_report_calls(struct out *o)
{
	struct split_calls c[SPLIT_CALL_TASKS];

	split_calls_read(c);
	out_printf(o, "split calls:");
	for (unsigned i = 0; i < SPLIT_CALL_TASKS; i++) {
		if (!c[i].n[0] && !c[i].n[1] && !c[i].n[2])
			continue;
		out_printf(o, " pid %d%s", c[i].pid,
			   i == SPLIT_CALL_CALIBRATION ? " (calibration)" : "");
		for (unsigned k = 0; k < SPLIT_CHAINS; k++)
			out_printf(o, " %s %llu %lluns", split_leaf_name[k],
				   (unsigned long long)c[i].n[k],
				   (unsigned long long)(c[i].n[k] ? c[i].ns[k] / c[i].n[k] : 0));
		out_printf(o, ";");
	}
	out_printf(o, "\n");
}

static void split_report(struct out *o)
{
	uint64_t t[SPLIT_CHAINS];

	split_truth(t);
	out_printf(o, "split truth:");
	work_print_shares(o, split_leaf_name, t, SPLIT_CHAINS);
	out_printf(o, "\n");
	split_report_calls(o);
}

const struct workload work_split = {
	.name = "split",
	.summary = "three call chains in a 50/30/20 split, measuring the truth",
	.run = split_run,
	.begin = split_begin,
	.report = split_report,
};
