/* SPDX-License-Identifier: BSD-2-Clause */
/* Wire formats: field offsets and big-endian loads and stores.  Headers
 * are read byte by byte at fixed offsets, never through a cast to a
 * struct, so a frame of any length or alignment is safe to look at. */
#ifndef KPROF_NET_WIRE_H
#define KPROF_NET_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define ETH_ALEN 6
#define ETH_HLEN 14
#define ETH_MTU 1500
#define ETH_FRAME_MAX (ETH_HLEN + ETH_MTU)
/* Shortest frame on the wire without its FCS; shorter ones are padded. */
#define ETH_FRAME_MIN 60
#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_ARP 0x0806

#define ARP_LEN 28
#define ARP_OP_REQUEST 1
#define ARP_OP_REPLY 2

#define IP_HLEN 20
#define IP_PROTO_ICMP 1
#define IP_PROTO_UDP 17
#define IP_TTL 64
#define IP_FLAG_MF 0x2000
#define IP_FRAG_OFFSET 0x1fff

#define ICMP_HLEN 8
#define ICMP_ECHO_REPLY 0
#define ICMP_ECHO_REQUEST 8

#define UDP_HLEN 8
/* Largest UDP payload that fits one unfragmented frame. */
#define UDP_PAYLOAD_MAX (ETH_MTU - IP_HLEN - UDP_HLEN)

static inline uint16_t wire_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t wire_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void wire_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wire_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Running one's-complement sum of @len bytes (RFC 1071), to be folded by
 * wire_csum_fold().  @sum carries a previous part (a pseudo-header); every
 * part but the last must have an even length. */
uint32_t wire_csum_add(uint32_t sum, const uint8_t *p, size_t len);

/* Fold a running sum to the 16-bit checksum field value. */
uint16_t wire_csum_fold(uint32_t sum);

/* The Internet checksum of @len bytes: 0 when a header that carries its
 * own checksum is intact. */
uint16_t wire_csum(const uint8_t *p, size_t len);

#endif
