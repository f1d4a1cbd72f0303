/* SPDX-License-Identifier: BSD-2-Clause */
/* `swincr`: two tasks on CPU 0 that each increment the part's
 * software-increment event (hal_pmu_soft_incr(): PMUv3's SW_INCR) a
 * known number of times, in rounds, yielding the CPU to each other
 * between rounds: task 0 SWINCR_ROUNDS x SWINCR_PER_ROUND, task 1 twice
 * that.  The truth `stat events=r0000` must give exactly, per CPU and
 * per task (`stat pid=`): two tasks sharing a CPU counted apart.  They
 * wait SWINCR_DELAY_MS first, so that a `stat` typed right after `work
 * start` opens before the first increment, and then idle until `work
 * stop`. */
#include "work/work.h"

#include "hal/pmu.h"
#include "kernel/sched.h"
#include "lib/out.h"

#define SWINCR_DELAY_MS 500
#define SWINCR_ROUNDS 10
#define SWINCR_PER_ROUND 1000

static unsigned swincr_next;		/* which of the two a task is */
static uint64_t swincr_done[2];
static bool swincr_none;		/* the part has no such event */

static void swincr_begin(void)
{
	swincr_next = 0;
	swincr_done[0] = swincr_done[1] = 0;
	swincr_none = false;
}

/* One round of @n increments; false when the part has none. */
static bool swincr_round(unsigned me, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (!hal_pmu_soft_incr())
			return false;
		__atomic_store_n(&swincr_done[me], swincr_done[me] + 1, __ATOMIC_RELAXED);
	}
	return true;
}

static void swincr_run(void)
{
	unsigned me = __atomic_fetch_add(&swincr_next, 1, __ATOMIC_RELAXED) & 1;

	sched_sleep_ms(SWINCR_DELAY_MS);
	for (unsigned r = 0; r < SWINCR_ROUNDS && !work_should_stop(); r++) {
		if (!swincr_round(me, SWINCR_PER_ROUND * (me + 1))) {
			__atomic_store_n(&swincr_none, true, __ATOMIC_RELAXED);
			break;
		}
		sched_yield_cpu();
	}
	while (!work_should_stop())
		sched_sleep_ms(10);
}

static void swincr_report(struct out *o)
{
	if (__atomic_load_n(&swincr_none, __ATOMIC_RELAXED)) {
		out_puts(o, "swincr: this machine has no software-increment event\n");
		return;
	}
	out_printf(o, "swincr truth: task 0 %llu increments, task 1 %llu, cpu 0 %llu\n",
		   (unsigned long long)swincr_done[0], (unsigned long long)swincr_done[1],
		   (unsigned long long)(swincr_done[0] + swincr_done[1]));
}

const struct workload work_swincr = {
	.name = "swincr",
	.summary = "two tasks on cpu 0 incrementing SW_INCR 10000 and 20000 times after 500 ms",
	.run = swincr_run,
	.begin = swincr_begin,
	.report = swincr_report,
	.tasks_per_cpu = 2,
};
