/* SPDX-License-Identifier: BSD-2-Clause */
/* The stack's entry points: net_rx(), start-up, counters. */
#include "net/net.h"

#include "hal/entry.h"
#include "hal/netdev.h"
#include "kernel/kevents.h"
#include "kernel/trace.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "net/internal.h"

struct net_stats net_counters;
uint8_t net_mac[ETH_ALEN];
const uint8_t eth_broadcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
bool net_up;

static const char *const net_drop_names[NET_DROP_COUNT] = {
	[NET_DROP_DEV_OVERFLOW] = "dev_overflow",
	[NET_DROP_DEV_SHORT] = "dev_short",
	[NET_DROP_DEV_BAD_BUFFER] = "dev_bad_buffer",
	[NET_DROP_RUNT] = "runt",
	[NET_DROP_OVERSIZE] = "oversize",
	[NET_DROP_OTHER_HOST] = "other_host",
	[NET_DROP_ETHERTYPE] = "ethertype",
	[NET_DROP_ARP_MALFORMED] = "arp_malformed",
	[NET_DROP_ARP_NOT_US] = "arp_not_us",
	[NET_DROP_ARP_SPOOF] = "arp_spoof",
	[NET_DROP_ARP_OFF_SUBNET] = "arp_off_subnet",
	[NET_DROP_IP_SHORT] = "ip_short",
	[NET_DROP_IP_VERSION] = "ip_version",
	[NET_DROP_IP_HDRLEN] = "ip_hdrlen",
	[NET_DROP_IP_OPTIONS] = "ip_options",
	[NET_DROP_IP_LENGTH] = "ip_length",
	[NET_DROP_IP_CHECKSUM] = "ip_checksum",
	[NET_DROP_IP_FRAGMENT] = "ip_fragment",
	[NET_DROP_IP_SOURCE] = "ip_source",
	[NET_DROP_IP_NOT_US] = "ip_not_us",
	[NET_DROP_IP_PROTOCOL] = "ip_protocol",
	[NET_DROP_ICMP_SHORT] = "icmp_short",
	[NET_DROP_ICMP_CHECKSUM] = "icmp_checksum",
	[NET_DROP_ICMP_TYPE] = "icmp_type",
	[NET_DROP_UDP_LENGTH] = "udp_length",
	[NET_DROP_UDP_CHECKSUM] = "udp_checksum",
	[NET_DROP_UDP_PORT] = "udp_port",
	[NET_DROP_UDPSH_DENIED] = "udpsh_denied",
	[NET_DROP_UDPSH_BUSY] = "udpsh_busy",
};

const char *net_drop_name(enum net_drop reason)
{
	if ((unsigned)reason >= NET_DROP_COUNT)
		return "?";
	return net_drop_names[reason];
}

void net_drop_count(enum net_drop reason)
{
	if ((unsigned)reason < NET_DROP_COUNT)
		net_count_drop(reason);
}

static uint64_t net_load(const uint64_t *counter)
{
	return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

void net_stats_read(struct net_stats *s)
{
	const uint64_t *src = (const uint64_t *)&net_counters;
	uint64_t *dst = (uint64_t *)s;

	/* struct net_stats is nothing but uint64_t counters. */
	for (size_t i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		dst[i] = net_load(&src[i]);
}

uint64_t net_stats_drops(const struct net_stats *s)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < NET_DROP_COUNT; i++)
		sum += s->drops[i];
	return sum;
}

char *net_ip_str(uint32_t ip, char buf[16])
{
	ksnprintf(buf, 16, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff,
		  (ip >> 8) & 0xff, ip & 0xff);
	return buf;
}

void net_reset(void)
{
	uint64_t *c = (uint64_t *)&net_counters;

	for (size_t i = 0; i < sizeof(net_counters) / sizeof(uint64_t); i++)
		__atomic_store_n(&c[i], 0, __ATOMIC_RELAXED);
	hal_netdev_mac(net_mac);
	arp_reset();
	udp_reset();
}

bool net_is_up(void)
{
	return __atomic_load_n(&net_up, __ATOMIC_ACQUIRE);
}

void net_rx_lost(enum net_rx_loss why, uint64_t n)
{
	static const enum net_drop reason[] = {
		[NET_RX_LOST_OVERFLOW] = NET_DROP_DEV_OVERFLOW,
		[NET_RX_LOST_SHORT] = NET_DROP_DEV_SHORT,
		[NET_RX_LOST_BAD_BUFFER] = NET_DROP_DEV_BAD_BUFFER,
	};

	if ((unsigned)why < sizeof(reason) / sizeof(reason[0]))
		net_count_add(&net_counters.drops[reason[why]], n);
}

void net_rx(const void *frame, size_t len)
{
	const uint8_t *f = frame;

	TRACE_POINT(TRACE_NET_RX, (uint32_t)len, 0u, 0u);
	net_count(&net_counters.rx_frames);
	kevent_count(KEV_NET_RX_FRAMES);
	net_count_add(&net_counters.rx_bytes, len);
	if (len < ETH_HLEN) {
		net_count_drop(NET_DROP_RUNT);
		return;
	}
	if (len > ETH_FRAME_MAX) {
		net_count_drop(NET_DROP_OVERSIZE);
		return;
	}
	if (kmemcmp(f, net_mac, ETH_ALEN) != 0 &&
	    kmemcmp(f, eth_broadcast, ETH_ALEN) != 0) {
		net_count_drop(NET_DROP_OTHER_HOST);
		return;
	}
	switch (wire_get16(f + 12)) {
	case ETH_TYPE_ARP:
		arp_input(f + ETH_HLEN, len - ETH_HLEN);
		break;
	case ETH_TYPE_IPV4:
		ipv4_input(f + ETH_HLEN, len - ETH_HLEN, f + ETH_ALEN);
		break;
	default:
		net_count_drop(NET_DROP_ETHERTYPE);
		break;
	}
}

int eth_output(uint8_t *frame, size_t len, const uint8_t dst[ETH_ALEN],
	       uint16_t type)
{
	int err;

	kmemcpy(frame, dst, ETH_ALEN);
	kmemcpy(frame + ETH_ALEN, net_mac, ETH_ALEN);
	wire_put16(frame + 12, type);
	if (len < ETH_FRAME_MIN) {
		kmemset(frame + len, 0, ETH_FRAME_MIN - len);
		len = ETH_FRAME_MIN;
	}
	err = hal_netdev_send(frame, len);
	TRACE_POINT(TRACE_NET_TX, (uint32_t)len, err < 0, 0u);
	if (err < 0) {
		net_count(&net_counters.tx_failed);
		return err;
	}
	net_count(&net_counters.tx_frames);
	kevent_count(KEV_NET_TX_FRAMES);
	net_count_add(&net_counters.tx_bytes, len);
	return 0;
}
