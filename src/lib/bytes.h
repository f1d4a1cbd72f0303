/* SPDX-License-Identifier: BSD-2-Clause */
/* Big-endian (network order) 64-bit fields in byte buffers, for the
 * authenticated UDP shell's header: one definition for the kernel, the
 * host's kshell and the tests that build datagrams by hand. */
#ifndef KPROF_LIB_BYTES_H
#define KPROF_LIB_BYTES_H

#include <stdint.h>

static inline void be64_put(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static inline uint64_t be64_get(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

#endif
