/* SPDX-License-Identifier: BSD-2-Clause */
/* Ask every CPU of a run to do something on its tick, and wait for the
 * answers: the protocol the profiler's arm and stop and `stat`'s open and
 * close share.  The asker publishes a generation (a release store); each
 * CPU, on its next tick, does the work and stores that generation in its
 * own answer word (a release store); the asker polls the words until
 * every CPU asked has answered or the budget is spent. */
#ifndef KPROF_PROF_TICK_ASK_H
#define KPROF_PROF_TICK_ASK_H

#include <stddef.h>
#include <stdint.h>

struct tick_ask {
	uint32_t cpus;			/* the CPUs asked */
	unsigned gen;			/* what each stores when it has answered */
	/* CPU 0's answer word, in an array of per-CPU structs @stride
	 * bytes apart (&prof_cpus[0].ack, sizeof(prof_cpus[0])). */
	const unsigned *answer;
	size_t stride;
};

/* The CPUs of @a that have not answered yet.  Any context. */
uint32_t tick_ask_pending(const struct tick_ask *a);

/* Wait up to @budget_ns for every CPU of @a to answer, calling
 * @pause(@ctx) between polls (sched_wait_cpus()).  Returns the CPUs that
 * never answered.  Task context. */
uint32_t tick_ask_wait(const struct tick_ask *a, uint64_t budget_ns,
		       void (*pause)(void *ctx), void *ctx);

#endif
