/* SPDX-License-Identifier: BSD-2-Clause */
/* make bench, part 3: what off-CPU profiling adds to every context
 * switch (prof/offcpu.c), inside a ksim machine: the switch hook's
 * body for a task going to sleep at the bottom of a chain deeper than
 * the walk, at depth=8 and 32 --
 *
 *   without a wall session: the hook is not registered, and a switch
 *   pays nothing for it; called anyway, it finds no run and returns
 *   (the figure is what a switch racing the hook's removal pays);
 *   with one: the clock, the stack walk into the task's own slot, the
 *   books and the stamps, and the two records into the CPU's ring.
 *
 * Median of 400 batches of 256 calls, interrupts off.  Figures are
 * printed, nothing is asserted (doc/performance.md). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hal/cpu.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "prof/offcpu.h"
#include "prof/wall.h"
#include "bench_run.h"

#define BATCH 256
#define BATCHES 400
#define BENCH_FRAMES 40		/* deeper than either walk */

static const unsigned depths[] = { 8, 32 };
#define NDEPTHS (sizeof(depths) / sizeof(depths[0]))
static double off_ns[NDEPTHS], on_ns[NDEPTHS];
static struct task prev, next;

/* The median ns per hook call, from here: this frame stands for
 * schedule()'s (task->wall.off_why), and the walk starts at the one it
 * links to, as it starts at a scheduler call's. */
static double __attribute__((noinline)) bench_hook(void)
{
	struct offcpu_cpu *oc = &offcpu_cpus[BENCH_CPU];
	double batch[BATCHES];
	unsigned long flags = hal_irq_save();

	prev.wall.off_why = (uintptr_t)__builtin_frame_address(0);
	for (unsigned b = 0; b < BATCHES; b++) {
		uint64_t t0 = bench_now_ns();

		for (unsigned i = 0; i < BATCH; i++) {
			prev.state = TASK_SLEEPING;
			offcpu_switch(&prev, &next);
		}
		batch[b] = (double)(bench_now_ns() - t0) / BATCH;
		/* The ring as a drain leaves it: room for the next batch. */
		__atomic_store_n(&oc->tail, __atomic_load_n(&oc->head, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	}
	hal_irq_restore(flags);
	qsort(batch, BATCHES, sizeof(batch[0]), bench_cmp_double);
	return batch[BATCHES / 2];
}

static volatile int sink;

static double __attribute__((noinline)) bench_deep(int n, bool on, unsigned depth)
{
	double r;
	struct prof_wall *w = NULL;

	if (n > 0) {
		r = bench_deep(n - 1, on, depth);
		sink += n;
		return r;
	}
	if (on && !(w = wall_begin(7777, depth, 1u << BENCH_CPU)))
		abort();
	if (w)
		wall_open(w);
	r = bench_hook();
	/* Takes the hook away again. */
	wall_free(w);
	return r;
}

static void bench_body(void)
{
	/* Two tasks the hook can stamp: the one leaving runs on this
	 * stack, as a task going to sleep does. */
	prev = *task_current();
	prev.pid = 99990;
	next = prev;
	next.pid = 99991;
	for (unsigned d = 0; d < NDEPTHS; d++) {
		off_ns[d] = bench_deep(BENCH_FRAMES, false, depths[d]);
		on_ns[d] = bench_deep(BENCH_FRAMES, true, depths[d]);
	}
}

int main(void)
{
	bench_run(bench_body, 0);
	for (unsigned d = 0; d < NDEPTHS; d++)
		printf("switch path, depth=%u: %.1f ns per switch without a wall session, "
		       "%.1f ns with one (median of %u batches of %u)\n", depths[d],
		       off_ns[d], on_ns[d], BATCHES, BATCH);
	fflush(stdout);
	_exit(0);
}
