/* SPDX-License-Identifier: BSD-2-Clause */
/* What the files of src/net share and nobody else needs. */
#ifndef KPROF_NET_INTERNAL_H
#define KPROF_NET_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/net.h"
#include "net/wire.h"

struct netdev_rx;

/* Start the receive task polling @rx (rx.c); nothing when @rx is NULL.
 * From net_start(). */
void net_rx_start(const struct netdev_rx *rx);

/* The counters; bump them with net_count()/net_count_drop() only. */
extern struct net_stats net_counters;

/* Set once net_start() has found a device. */
extern bool net_up;

/* Our MAC, read from the device by net_reset(). */
extern uint8_t net_mac[ETH_ALEN];

/* ff:ff:ff:ff:ff:ff */
extern const uint8_t eth_broadcast[ETH_ALEN];

static inline void net_count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

static inline void net_count_add(uint64_t *counter, uint64_t n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static inline void net_count_drop(enum net_drop reason)
{
	net_count(&net_counters.drops[reason]);
}

/* What ipv4_input() learnt about a packet, for the layers above. */
struct ipv4_meta {
	uint32_t src, dst;
	bool to_broadcast;	/* limited or subnet-directed broadcast */
};

/* Receive paths, each given the bytes after the header below it. */
void arp_input(const uint8_t *pkt, size_t len);
void ipv4_input(const uint8_t *pkt, size_t len, const uint8_t eth_src[ETH_ALEN]);
void icmp_input(const struct ipv4_meta *ip, const uint8_t *pkt, size_t len);
void udp_input(const struct ipv4_meta *ip, const uint8_t *pkt, size_t len);
/* The first fragment (offset 0, more to come) of a UDP datagram to us:
 * handed to a port bound for first fragments; true when one took it. */
bool udp_input_first_fragment(const struct ipv4_meta *ip, const uint8_t *pkt,
			      size_t len);

/* Send @frame of @len bytes (header included) to @dst with @type filled
 * in; pads to the Ethernet minimum.  @frame has room for ETH_FRAME_MAX. */
int eth_output(uint8_t *frame, size_t len, const uint8_t dst[ETH_ALEN],
	       uint16_t type);

/* Offset of the layer-4 header in a frame built for ipv4_output(). */
#define NET_L4_OFFSET (ETH_HLEN + IP_HLEN)

/* Send the @l4len bytes at frame + NET_L4_OFFSET to @dst as protocol
 * @proto: fills the IPv4 and Ethernet headers, resolving the next hop
 * through the ARP cache.  Returns 0, -EINVAL (no route), -EAGAIN (no ARP
 * entry; a request went out) or the device's error. */
int ipv4_output(uint8_t *frame, uint32_t dst, uint8_t proto, size_t l4len);

/* The address frames to @dst go to first: @dst itself on our subnet, or
 * the gateway; 0 when there is no route.  Broadcasts map to themselves. */
uint32_t ipv4_next_hop(uint32_t dst);

/* True for 255.255.255.255 and our subnet's broadcast address. */
bool ipv4_is_broadcast(uint32_t ip);


void arp_reset(void);
void udp_reset(void);

#endif
