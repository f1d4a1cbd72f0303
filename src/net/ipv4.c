/* SPDX-License-Identifier: BSD-2-Clause */
/* IPv4: header checks on the way in, header and next hop on the way out.
 * No options and no reassembly: a host that only answers its shell and
 * load tests needs neither, and each is one more thing a peer could use
 * to make us hold memory.  A first fragment may reach the UDP shell (an
 * over-long command is answered); every fragment else is dropped. */
#include "hal/timer.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "net/internal.h"

static uint16_t ipv4_ident;

static uint32_t ipv4_mask(void)
{
	unsigned prefix = net_config()->prefix;

	return prefix == 0 ? 0 : ~(uint32_t)0 << (32 - prefix);
}

bool ipv4_is_broadcast(uint32_t ip)
{
	uint32_t mask = ipv4_mask();

	return ip == 0xffffffffu ||
	       ((ip & mask) == (net_config()->ip & mask) && (ip | mask) == 0xffffffffu);
}

/* Sources no honest packet carries, and that a reply must not go to. */
static bool ipv4_bad_source(uint32_t src)
{
	return src == 0 || (src >> 24) == 127 || (src >> 28) >= 14 ||
	       ipv4_is_broadcast(src) || src == net_config()->ip;
}

uint32_t ipv4_next_hop(uint32_t dst)
{
	const struct net_config *c = net_config();

	if (ipv4_is_broadcast(dst) || ((dst ^ c->ip) & ipv4_mask()) == 0)
		return dst;
	return c->gw;
}

void ipv4_input(const uint8_t *p, size_t len, const uint8_t eth_src[ETH_ALEN])
{
	struct ipv4_meta m;
	size_t hlen, total;
	uint16_t frag;

	if (len < IP_HLEN) {
		net_count_drop(NET_DROP_IP_SHORT);
		return;
	}
	if (p[0] >> 4 != 4) {
		net_count_drop(NET_DROP_IP_VERSION);
		return;
	}
	hlen = (size_t)(p[0] & 0xf) * 4;
	if (hlen < IP_HLEN) {
		net_count_drop(NET_DROP_IP_HDRLEN);
		return;
	}
	if (hlen > IP_HLEN) {
		net_count_drop(NET_DROP_IP_OPTIONS);
		return;
	}
	/* Ethernet pads short frames: trust the total length, not the frame
	 * length, as long as the frame holds it. */
	total = wire_get16(p + 2);
	if (total < IP_HLEN || total > len) {
		net_count_drop(NET_DROP_IP_LENGTH);
		return;
	}
	if (wire_csum(p, IP_HLEN) != 0) {
		net_count_drop(NET_DROP_IP_CHECKSUM);
		return;
	}
	frag = wire_get16(p + 6);
	m.src = wire_get32(p + 12);
	m.dst = wire_get32(p + 16);
	m.to_broadcast = ipv4_is_broadcast(m.dst);
	if (frag & (IP_FLAG_MF | IP_FRAG_OFFSET)) {
		/* No reassembly.  Only the first fragment of a UDP datagram to
		 * us may be looked at (the UDP shell answers an over-long
		 * command from it); every other is counted and dropped. */
		if ((frag & IP_FRAG_OFFSET) || p[9] != IP_PROTO_UDP ||
		    ipv4_bad_source(m.src) || m.dst != net_config()->ip ||
		    !udp_input_first_fragment(&m, p + IP_HLEN, total - IP_HLEN))
			net_count_drop(NET_DROP_IP_FRAGMENT);
		return;
	}
	if (ipv4_bad_source(m.src)) {
		net_count_drop(NET_DROP_IP_SOURCE);
		return;
	}
	if (m.dst != net_config()->ip && !m.to_broadcast) {
		net_count_drop(NET_DROP_IP_NOT_US);
		return;
	}
	/* No ARP confirmation from traffic: a frame's source MAC proves
	 * nothing, and would let a spoofer keep a stolen entry alive. */
	(void)eth_src;
	if (p[9] != IP_PROTO_ICMP && p[9] != IP_PROTO_UDP) {
		net_count_drop(NET_DROP_IP_PROTOCOL);
		return;
	}
	net_count(&net_counters.rx_ipv4);
	if (p[9] == IP_PROTO_ICMP)
		icmp_input(&m, p + IP_HLEN, total - IP_HLEN);
	else
		udp_input(&m, p + IP_HLEN, total - IP_HLEN);
}

/* Ask for @ip's MAC, but not more than ten times a second for the same
 * address: a sender retrying in a loop must not flood the wire. */
static void ipv4_ask(uint32_t ip)
{
	static uint32_t last_ip;
	static uint64_t last_ns;
	uint64_t now = hal_clock_ns();

	if (__atomic_load_n(&last_ip, __ATOMIC_RELAXED) == ip &&
	    now - __atomic_load_n(&last_ns, __ATOMIC_RELAXED) < 100000000u)
		return;
	__atomic_store_n(&last_ip, ip, __ATOMIC_RELAXED);
	__atomic_store_n(&last_ns, now, __ATOMIC_RELAXED);
	arp_request(ip);
}

int ipv4_output(uint8_t *frame, uint32_t dst, uint8_t proto, size_t l4len)
{
	uint8_t mac[ETH_ALEN];
	uint8_t *ip = frame + ETH_HLEN;
	uint32_t hop = ipv4_next_hop(dst);

	if (l4len > ETH_MTU - IP_HLEN)
		return -E2BIG;
	if (!hop) {
		net_count(&net_counters.tx_no_route);
		return -EINVAL;
	}
	if (ipv4_is_broadcast(hop)) {
		kmemcpy(mac, eth_broadcast, ETH_ALEN);
	} else if (!arp_lookup(hop, mac)) {
		net_count(&net_counters.tx_no_arp);
		ipv4_ask(hop);
		return -EAGAIN;
	}
	ip[0] = 0x45;
	ip[1] = 0;
	wire_put16(ip + 2, (uint16_t)(IP_HLEN + l4len));
	wire_put16(ip + 4, __atomic_fetch_add(&ipv4_ident, 1, __ATOMIC_RELAXED));
	wire_put16(ip + 6, 0x4000);	/* don't fragment */
	ip[8] = IP_TTL;
	ip[9] = proto;
	wire_put16(ip + 10, 0);
	wire_put32(ip + 12, net_config()->ip);
	wire_put32(ip + 16, dst);
	wire_put16(ip + 10, wire_csum(ip, IP_HLEN));
	return eth_output(frame, NET_L4_OFFSET + l4len, mac, ETH_TYPE_IPV4);
}
