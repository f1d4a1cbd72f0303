/* SPDX-License-Identifier: BSD-2-Clause */
/* iperf 2's UDP wire format: the datagram header and the server report.
 *
 * Every datagram starts with iperf 2's 16-byte UDP header, big-endian:
 * a 32-bit signed sequence id, the sender's clock (tv_sec, tv_usec) and
 * a 32-bit word iperf 2.1 uses for the id's upper half (0 here).  Data
 * datagrams are numbered from 1; the final datagram carries a negative
 * id, -(last + 1), and is repeated (with ids further below) until the
 * receiver answers it with a server report: the final datagram's header
 * echoed, then iperf 2.1's struct server_hdr, big-endian int32 fields:
 *
 *   16 flags (HEADER_VERSION1 | HEADER_SEQNO64B)   20 bytes >> 32
 *   24 bytes & 0xffffffff   28 stop_sec   32 stop_usec
 *   36 lost (low 32 bits)   40 out of order (low)   44 datagrams (low)
 *   48 jitter sec   52 jitter usec   56-115 extension (0, not flagged)
 *   116 lost >> 32   120 out of order >> 32   124 datagrams >> 32
 *
 * so `iperf -u -c` (2.1 and later) prints the receiver's view.  Only the
 * bytes live here; what the counts mean is netload's (net/netload.h).
 */
#ifndef KPROF_NET_IPERF_H
#define KPROF_NET_IPERF_H

#include <stddef.h>
#include <stdint.h>

#define IPERF_HDR_LEN 16
#define IPERF_REPORT_LEN 128
#define IPERF_FLAG_VERSION1 0x80000000u
#define IPERF_FLAG_SEQNO64B 0x08000000u

/* Fill a sender's datagram of @size bytes (at least IPERF_HDR_LEN) with
 * sequence id @id, stamped @now_ns; the rest is zero. */
void iperf_dgram_build(uint8_t *buf, size_t size, int32_t id, uint64_t now_ns);

/* The sequence id of a datagram of at least 4 bytes. */
int32_t iperf_dgram_id(const uint8_t *data);

/* The sender's clock in a datagram of at least 12 bytes, in ns. */
int64_t iperf_dgram_sent_ns(const uint8_t *data);

/* A server report, decoded, or the fields of one to encode. */
struct iperf_report {
	uint32_t flags;
	uint64_t bytes;
	uint32_t stop_sec, stop_usec;
	uint64_t lost, out_of_order, datagrams;
	uint32_t jitter_sec, jitter_usec;
};

/* Write the server report @rep answering the final datagram @fin
 * (@fin_len bytes) into @buf (IPERF_REPORT_LEN bytes); returns its
 * length.  rep->flags is not read: the layout written is always the
 * 64-bit one, flagged VERSION1 | SEQNO64B. */
size_t iperf_report_build(const struct iperf_report *rep, const uint8_t *fin,
			  size_t fin_len, uint8_t *buf);

/* Decode a server report of @len bytes.  Returns 0, or -EINVAL when it is
 * too short or not flagged as one. */
int iperf_report_parse(const uint8_t *buf, size_t len, struct iperf_report *rep);

#endif
