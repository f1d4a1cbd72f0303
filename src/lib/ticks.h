/* SPDX-License-Identifier: BSD-2-Clause */
/* A free-running counter's ticks as nanoseconds: one multiply and a
 * shift on the read path, the divide done once when the rate is known.
 * mult = 2^32 * 1e9 / hz, so ns = (ticks * mult) >> 32, in 128-bit
 * arithmetic so that neither the product nor a long uptime overflows. */
#ifndef KPROF_LIB_TICKS_H
#define KPROF_LIB_TICKS_H

#include <stdint.h>

struct ticks_scale {
	uint64_t mult;
};

static inline void ticks_scale_init(struct ticks_scale *s, uint64_t hz)
{
	s->mult = (uint64_t)(((unsigned __int128)1000000000u << 32) / hz);
}

static inline uint64_t ticks_to_ns(const struct ticks_scale *s, uint64_t ticks)
{
	return (uint64_t)(((unsigned __int128)ticks * s->mult) >> 32);
}

/* @n events of a source that makes @per_sec of them a second, as
 * nanoseconds, exactly (no scale factor): for totals read once, where
 * a divide costs nothing.  No overflow below 2^64 ns. */
static inline uint64_t count_to_ns(uint64_t n, uint64_t per_sec)
{
	return n / per_sec * 1000000000u + n % per_sec * 1000000000u / per_sec;
}

#endif
