/* SPDX-License-Identifier: BSD-2-Clause */
/* `probe cost`: what one hit of a probe costs, measured on this machine
 * by timing calls of an empty function unprobed and then under each
 * kind of probe, unthrottled (every call a counted hit).  The fastest of a few tries of each: a try the host or
 * a tick stretched says nothing about the probe. */
#include "prof/probe.h"

#include "hal/timer.h"
#include "lib/errno.h"
#include "lib/out.h"

#define COST_TRIES 5

/* The probed function: nothing but its entry and its return. */
__attribute__((noinline)) void cost_probe_target(void)
{
	__asm__ volatile("" ::: "memory");
}

static uint64_t time_calls(unsigned calls)
{
	uint64_t best = UINT64_MAX;

	for (int t = 0; t < COST_TRIES; t++) {
		uint64_t t0 = hal_clock_ns(), dt;

		for (unsigned i = 0; i < calls; i++)
			cost_probe_target();
		dt = hal_clock_ns() - t0;
		if (dt < best)
			best = dt;
	}
	return best;
}

/* Picoseconds per call under a probe with @flags, over the bare call. */
static int cost_of(unsigned flags, unsigned calls, uint64_t bare, uint64_t *ps,
		   struct out *err)
{
	uint64_t t;

	if (probe_add("cost_probe_target", flags | PROBE_UNTHROTTLED, err) < 0)
		return -EINVAL;
	t = time_calls(calls);
	probe_del("cost_probe_target", err);
	*ps = t > bare ? (t - bare) * 1000 / calls : 0;
	return 0;
}

int probe_cost(unsigned calls, struct probe_cost *c, struct out *err)
{
	uint64_t bare = time_calls(calls);

	c->calls = calls;
	c->bare_ps = bare * 1000 / calls;
	if (cost_of(0, calls, bare, &c->count_ps, err) ||
	    cost_of(PROBE_TIME, calls, bare, &c->time_ps, err) ||
	    cost_of(PROBE_STACK, calls, bare, &c->stack_ps, err))
		return -EINVAL;
	return 0;
}
