/* SPDX-License-Identifier: BSD-2-Clause */
/* Boot nonces: see random.h. */
#include "kernel/random.h"

#include "hal/cpu.h"
#include "hal/random.h"
#include "lib/sha256.h"

/* Reads of the cycle counter hashed in the fallback.  Each read's low
 * bits vary with cache, pipeline and interrupt timing; many of them
 * through SHA-256 give a nonce nobody on the wire can predict, though
 * not one fit for keys. */
#define RANDOM_JITTER_READS 4096

static uint64_t random_jitter64(void)
{
	struct sha256 s;
	uint8_t d[SHA256_LEN];
	uint64_t v = 0, prev = hal_cycles();

	sha256_init(&s);
	sha256_update(&s, &prev, sizeof(prev));
	for (unsigned i = 0; i < RANDOM_JITTER_READS; i++) {
		uint64_t now = hal_cycles();
		uint64_t delta = now - prev;

		sha256_update(&s, &delta, sizeof(delta));
		/* Work whose duration varies, so the next delta does. */
		for (unsigned j = 0; j < (delta & 7); j++)
			hal_cpu_relax();
		prev = now;
	}
	sha256_final(&s, d);
	for (unsigned i = 0; i < 8; i++)
		v = v << 8 | d[i];
	return v;
}

uint64_t random_nonce64(bool *hw)
{
	uint64_t v = 0;

	*hw = false;
	for (unsigned tries = 0; tries < 4 && !v; tries++) {
		if (hal_random_hw(&v)) {
			*hw = true;
		} else {
			*hw = false;
			v = random_jitter64();
		}
	}
	return v ? v : 1;
}
