/* SPDX-License-Identifier: BSD-2-Clause */
/* Waiting for every CPU asked to answer on its tick (prof/tick_ask.h). */
#include "prof/tick_ask.h"

#include "hal/cpu.h"
#include "kernel/sched.h"

static const unsigned *tick_ask_word(const struct tick_ask *a, unsigned cpu)
{
	return (const unsigned *)((const char *)a->answer + cpu * a->stride);
}

uint32_t tick_ask_pending(const struct tick_ask *a)
{
	uint32_t pending = 0;

	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		if (((a->cpus >> cpu) & 1) &&
		    __atomic_load_n(tick_ask_word(a, cpu), __ATOMIC_ACQUIRE) != a->gen)
			pending |= 1u << cpu;
	return pending;
}

/* sched_wait_cpus()'s poll. */
static uint32_t tick_ask_poll(void *a)
{
	return tick_ask_pending(a);
}

uint32_t tick_ask_wait(const struct tick_ask *a, uint64_t budget_ns,
		       void (*pause)(void *ctx), void *ctx)
{
	return sched_wait_cpus(tick_ask_poll, (void *)a, budget_ns, pause, ctx);
}
