/* SPDX-License-Identifier: BSD-2-Clause */
/* `pingpong`: two tasks on CPU 0 handing it to each other as fast as
 * the scheduler can -- each yields at the bottom of a call chain of
 * FRAMES (`work start pingpong 12`, the default), and the other, the
 * only other task runnable there, runs -- counting their round trips.
 * The switch rate a wall profile's books must keep up with, and the
 * load the cost of a switch is measured under (bench/switch-icount). */
#include "work/work.h"

#include "hal/timer.h"
#include "kernel/sched.h"
#include "lib/out.h"

#define PINGPONG_DEFAULT_FRAMES 12
#define PINGPONG_MAX_FRAMES 48

static unsigned pingpong_frames = PINGPONG_DEFAULT_FRAMES;
static unsigned pingpong_next;		/* which of the two a task is */
static uint64_t pingpong_yields[2];
static uint64_t pingpong_t0, pingpong_t1;

/* @n frames of itself above the yield; not a tail call, so each level
 * keeps its frame. */
__attribute__((noinline)) unsigned pingpong_down(unsigned n)
{
	if (n <= 1) {
		sched_yield_cpu();
		return 1;
	}
	return pingpong_down(n - 1) + 1;
}

static void pingpong_begin(void)
{
	pingpong_next = 0;
	pingpong_yields[0] = pingpong_yields[1] = 0;
	pingpong_t1 = 0;
	pingpong_t0 = hal_clock_ns();
}

static void pingpong_run(void)
{
	unsigned me = __atomic_fetch_add(&pingpong_next, 1, __ATOMIC_RELAXED) & 1;

	while (!work_should_stop()) {
		pingpong_down(pingpong_frames);
		__atomic_store_n(&pingpong_yields[me], pingpong_yields[me] + 1, __ATOMIC_RELAXED);
	}
	/* The first to stop ends the measured stretch. */
	uint64_t zero = 0, now = hal_clock_ns();
	(void)__atomic_compare_exchange_n(&pingpong_t1, &zero, now, false,
					  __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static void pingpong_set_frames(unsigned frames)
{
	pingpong_frames = frames;
}

/* "pingpong truth: N round trips, S switches in T ms (R switches/s)":
 * a round trip is one yield of each task, a switch one yield. */
static void pingpong_report(struct out *o)
{
	uint64_t a = pingpong_yields[0], b = pingpong_yields[1];
	uint64_t ns = pingpong_t1 > pingpong_t0 ? pingpong_t1 - pingpong_t0 : 0;
	uint64_t ms = ns / 1000000;

	out_printf(o, "pingpong truth: %llu round trips, %llu switches in %llu ms (%llu switches/s)\n",
		   (unsigned long long)(a < b ? a : b), (unsigned long long)(a + b),
		   (unsigned long long)ms,
		   (unsigned long long)(ns ? (a + b) * 1000000000ull / ns : 0));
}

const struct workload work_pingpong = {
	.name = "pingpong",
	.summary = "two tasks on cpu 0 yielding to each other at FRAMES deep (default 12), counting round trips",
	.run = pingpong_run,
	.begin = pingpong_begin,
	.report = pingpong_report,
	.param = "frames",
	.param_min = 1,
	.param_max = PINGPONG_MAX_FRAMES,
	.param_default = PINGPONG_DEFAULT_FRAMES,
	.set_param = pingpong_set_frames,
	.tasks_per_cpu = 2,
};
