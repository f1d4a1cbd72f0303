/* SPDX-License-Identifier: BSD-2-Clause */
/* ICMP: echo requests answered, everything else counted and dropped. */
#include "lib/kstring.h"
#include "net/internal.h"

void icmp_input(const struct ipv4_meta *ip, const uint8_t *p, size_t len)
{
	uint8_t frame[ETH_FRAME_MAX];
	uint8_t *r = frame + NET_L4_OFFSET;

	if (len < ICMP_HLEN) {
		net_count_drop(NET_DROP_ICMP_SHORT);
		return;
	}
	if (wire_csum(p, len) != 0) {
		net_count_drop(NET_DROP_ICMP_CHECKSUM);
		return;
	}
	/* Echoes to a broadcast are how smurf amplification starts. */
	if (p[0] != ICMP_ECHO_REQUEST || p[1] != 0 || ip->to_broadcast) {
		net_count_drop(NET_DROP_ICMP_TYPE);
		return;
	}
	net_count(&net_counters.rx_icmp);
	/* ipv4_input() bounded len by the frame, so it fits ours. */
	kmemcpy(r, p, len);
	r[0] = ICMP_ECHO_REPLY;
	wire_put16(r + 2, 0);
	wire_put16(r + 2, wire_csum(r, len));
	if (ipv4_output(frame, ip->src, IP_PROTO_ICMP, len) == 0)
		net_count(&net_counters.echo_replies_sent);
}
