/* SPDX-License-Identifier: BSD-2-Clause */
/* The PMU throttle's rule: see throttle.h.  Interrupt context (the
 * overflow handler), allocation-free, integer-only. */
#include "prof/throttle.h"

void throttle_open(struct throttle *t, uint64_t period, uint64_t now_ns)
{
	t->period = period;
	t->start_ns = now_ns;
	t->n = 0;
}

bool throttle_add(struct throttle *t, uint64_t ns)
{
	if (t->n >= THROTTLE_SAMPLES)
		t->n = 0;	/* a window nobody closed starts again */
	t->cost[t->n] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
	return ++t->n == THROTTLE_SAMPLES;
}

/* The mean of the middle half of @n costs (n a multiple of 4): the
 * costliest quarter and the cheapest quarter left out, by a partial
 * selection sort -- 64 entries, once per 64 samples.  Reorders @v. */
static uint64_t throttle_interquartile_mean(uint32_t *v, unsigned n)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n - n / 4; i++) {
		unsigned min = i;

		for (unsigned j = i + 1; j < n; j++)
			if (v[j] < v[min])
				min = j;
		uint32_t tmp = v[i];

		v[i] = v[min];
		v[min] = tmp;
		if (i >= n / 4)
			sum += v[i];
	}
	return sum / (n / 2);
}

/* The window's typical handler cost, times its samples, against the time
 * it spanned.  Typical, not summed: under TCG a vCPU is a host thread,
 * and one preemption inside one handler (a 4 ms host slice) is by itself
 * 3% of a 64-sample window at 1 kHz -- summed, it halved one CPU's rate
 * at random.  The middle half's mean ignores up to 16 such samples of 64,
 * yet a handler slow every time (or in most samples) still crosses it. */
bool throttle_close(struct throttle *t, uint64_t now_ns)
{
	uint64_t typical = throttle_interquartile_mean(t->cost, THROTTLE_SAMPLES);
	uint64_t span = now_ns - t->start_ns;

	t->n = 0;
	t->start_ns = now_ns;
	return typical * THROTTLE_SAMPLES * 100 > span * THROTTLE_PERCENT;
}
