/* SPDX-License-Identifier: BSD-2-Clause */
/* The Internet checksum (RFC 1071). */
#include "net/wire.h"

uint32_t wire_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	/* 32 bits of headroom: a frame's worth of 16-bit words cannot
	 * overflow it, and folding happens once at the end. */
	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (i < len)
		sum += (uint32_t)p[i] << 8;
	return sum;
}

uint16_t wire_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t wire_csum(const uint8_t *p, size_t len)
{
	return wire_csum_fold(wire_csum_add(0, p, len));
}
