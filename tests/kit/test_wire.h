/* SPDX-License-Identifier: BSD-2-Clause */
/* Big-endian fields and the Internet checksum, the tests' own: suites
 * that build frames or check what the stack sent use these, not
 * src/net/wire.h, so the stack is checked against a second
 * implementation. */
#ifndef KPROF_TESTS_TEST_WIRE_H
#define KPROF_TESTS_TEST_WIRE_H

#include <stddef.h>
#include <stdint.h>

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* Add @len bytes at @p to the one's-complement @sum as 16-bit words. */
static inline uint32_t sum16(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		sum += (i & 1) ? p[i] : (uint32_t)p[i] << 8;
	return sum;
}

/* The checksum field for @sum: folded to 16 bits and inverted. */
static inline uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

#endif
