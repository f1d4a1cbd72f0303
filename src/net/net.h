/* SPDX-License-Identifier: BSD-2-Clause */
/* The IPv4/UDP stack: Ethernet, ARP, IPv4, ICMP echo and UDP, with no
 * hardware in it.  Frames leave through hal_netdev_send() and arrive
 * through net_rx() (hal/entry.h), which the platform calls from one task,
 * one frame at a time.  Everything a peer sends is length-checked before
 * it is read; what the stack does not accept is dropped and counted by
 * reason (enum net_drop), never trusted.
 *
 * Configuration comes from kernel command-line words, before net_start():
 *
 *   ip=ADDR[/PREFIX][,gw=GW]  this host's address, prefix length (24 when
 *                             omitted) and optionally the gateway
 *                             (default ip=10.0.2.15/24,gw=10.0.2.2)
 *   gw=GW | gw=none           the gateway alone; it must lie inside the
 *                             subnet of ip (default 10.0.2.2)
 * (the UDP shell's keys are its own: shell/udpsh/net.h; every key is in
 * doc/boot.md)
 *
 * A malformed word is reported in one line and the value it would have
 * replaced is kept.
 */
#ifndef KPROF_NET_NET_H
#define KPROF_NET_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct out;

/* Why a received frame was not taken.  net_drop_name() gives the word
 * `net` prints for each. */
enum net_drop {
	NET_DROP_DEV_OVERFLOW,	/* lost below net_rx(): the device's receive
				 * queue (ksim: its socket) was full */
	NET_DROP_DEV_SHORT,	/* lost below net_rx(): shorter than the
				 * device's own header */
	NET_DROP_DEV_BAD_BUFFER, /* lost below net_rx(): the device returned
				 * a buffer that is not one of ours */
	NET_DROP_RUNT,		/* shorter than an Ethernet header */
	NET_DROP_OVERSIZE,	/* longer than an Ethernet frame (1514 bytes) */
	NET_DROP_OTHER_HOST,	/* Ethernet destination neither ours nor broadcast */
	NET_DROP_ETHERTYPE,	/* neither IPv4 nor ARP */
	NET_DROP_ARP_MALFORMED,	/* short, not Ethernet/IPv4, bad op or sender */
	NET_DROP_ARP_NOT_US,	/* about another host's address */
	NET_DROP_ARP_SPOOF,	/* would move a live entry to another MAC unasked */
	NET_DROP_ARP_OFF_SUBNET, /* sender address outside our subnet */
	NET_DROP_IP_SHORT,	/* fewer bytes than an IPv4 header */
	NET_DROP_IP_VERSION,	/* version field not 4 */
	NET_DROP_IP_HDRLEN,	/* header length field below 20 bytes */
	NET_DROP_IP_OPTIONS,	/* header longer than 20 bytes: options */
	NET_DROP_IP_LENGTH,	/* total length below the header or past the frame */
	NET_DROP_IP_CHECKSUM,	/* header checksum wrong */
	NET_DROP_IP_FRAGMENT,	/* a fragment (more-fragments flag or an offset) */
	NET_DROP_IP_SOURCE,	/* source zero, broadcast, multicast or loopback */
	NET_DROP_IP_NOT_US,	/* destination another host */
	NET_DROP_IP_PROTOCOL,	/* neither ICMP nor UDP */
	NET_DROP_ICMP_SHORT,	/* shorter than an ICMP header */
	NET_DROP_ICMP_CHECKSUM,	/* ICMP checksum wrong */
	NET_DROP_ICMP_TYPE,	/* not an echo request, or one to a broadcast */
	NET_DROP_UDP_LENGTH,	/* short, or length field disagrees with IPv4's */
	NET_DROP_UDP_CHECKSUM,	/* checksum present and wrong */
	NET_DROP_UDP_PORT,	/* nothing bound to the destination port */
	NET_DROP_UDPSH_DENIED,	/* UDP shell: source outside udpsh.allow
				 * (counted by the shell: net_drop_count()) */
	NET_DROP_UDPSH_BUSY,	/* UDP shell: its queue was full */
	NET_DROP_COUNT
};

const char *net_drop_name(enum net_drop reason);

/* Count one datagram a UDP handler refused, for @reason: the stack
 * delivered it, its client (the UDP shell) would not take it.  Any
 * context. */
void net_drop_count(enum net_drop reason);

/* Counters since boot (or net_reset()).  Read with net_stats_read(). */
struct net_stats {
	uint64_t rx_frames, rx_bytes;	/* every frame handed to net_rx() */
	uint64_t tx_frames, tx_bytes;	/* frames the device accepted */
	uint64_t rx_arp, rx_ipv4, rx_icmp, rx_udp;	/* accepted, by protocol */
	uint64_t arp_requests_sent, arp_replies_sent, echo_replies_sent;
	uint64_t tx_no_arp;	/* not sent: next hop's MAC unknown (request sent) */
	uint64_t tx_no_route;	/* not sent: off-link and no gateway */
	uint64_t tx_failed;	/* the device refused the frame */
	uint64_t drops[NET_DROP_COUNT];
};

/* A consistent-enough copy of the counters (each read atomically). */
void net_stats_read(struct net_stats *s);

/* Sum of every drop counter in @s. */
uint64_t net_stats_drops(const struct net_stats *s);

/* ---- configuration ---- */

#define NET_DEFAULT_IP 0x0a00020fu	/* 10.0.2.15 */
#define NET_DEFAULT_PREFIX 24u
#define NET_DEFAULT_GW 0x0a000202u	/* 10.0.2.2 */

struct net_config {
	uint32_t ip;		/* host byte order */
	unsigned prefix;	/* 1-30 */
	uint32_t gw;		/* 0: none */
	/* net.gw_mac=: the gateway's MAC, a static ARP entry that nothing
	 * on the wire replaces (the hardened set-up). */
	bool gw_mac_set;
	uint8_t gw_mac[6];
	uint64_t arp_ttl_ns;	/* net.arp_ttl=: default ARP_TTL_NS */
};

/* The configuration in force.  Changed only by net_config_word() and
 * net_config_reset(), before net_start(). */
const struct net_config *net_config(void);

/* Back to the defaults above. */
void net_config_reset(void);

/* Apply one command-line word key=value (ip, gw, net.gw_mac, net.arp_ttl; config.c declares
 * them as command-line keys).  Returns 0 when @key is one of ours and
 * @value was taken; -EINVAL when @value is malformed, after one line on
 * @err saying so and which value stays; -ENOENT, printing nothing, when
 * @key is not a network key.  Boot only, before net_start(). */
int net_config_word(const char *key, const char *value, struct out *err);

/* ---- life cycle ---- */

/* Bring the stack up: reset its state, start the device's receive path
 * (hal_netdev_start()) and ask for the gateway's MAC.  Prints the
 * configuration to @o (one line).  When
 * hal_netdev_present() is false it does nothing and prints nothing.
 * Task context, once, with the scheduler running. */
void net_start(struct out *o);

/* True once net_start() found a device. */
bool net_is_up(void);

/* Forget all state: counters, ARP cache, UDP bindings.  The configuration stays.  For tests and net_start(); not while
 * frames are being received. */
void net_reset(void);

/* ---- ARP ---- */

#define ARP_CACHE_SIZE 16
/* An entry not confirmed for this long (net.arp_ttl=, default) is no
 * longer used: the next send probes it, unicast to the MAC it had, then
 * broadcast.  Only a reply to our own request confirms an entry. */
#define ARP_TTL_NS (60ull * 1000000000ull)
/* How long after a request its replies still count as solicited: also a
 * disputed address's probe round. */
#define ARP_ASKED_NS 2000000000ull

struct arp_entry_info {
	uint32_t ip;
	uint8_t mac[6];
	uint64_t age_ns;	/* since it was last confirmed */
	bool is_static;		/* net.gw_mac=: never expires, never replaced */
};

/* ARP conflicts: two MACs answered our requests for the same address,
 * or a packet claimed a static entry's address for another MAC.  A
 * static entry keeps its MAC; any other address is disputed: neither MAC
 * is kept, and a broadcast probe asks again until one round's answers
 * all agree. */
struct arp_conflicts {
	uint64_t count;
	uint32_t last_ip;		/* the last conflict's address */
	uint8_t last_kept[6], last_other[6];	/* disputed: the first, the other */
	bool last_disputed;		/* the last conflict's address kept neither */
};

/* The conflicts so far.  Any context. */
void arp_conflicts_read(struct arp_conflicts *c);

/* Copy up to @max live (unexpired) entries into @out; returns how many. */
unsigned arp_snapshot(struct arp_entry_info *out, unsigned max);

/* The MAC for @ip if a live entry has it.  Any task. */
bool arp_lookup(uint32_t ip, uint8_t mac[6]);

/* Ask for @ip's MAC: unicast to the MAC an expired entry had (first
 * probe after expiry), else broadcast.  Task context. */
void arp_request(uint32_t ip);

/* Wait up to @timeout_ms for the next hop towards @ip to be resolved,
 * asking again every 200 ms.  Returns 0, -EINVAL (no route) or
 * -ETIMEDOUT.  Task context, may sleep. */
int net_resolve(uint32_t ip, unsigned timeout_ms);

/* ---- UDP ---- */

struct udp_dgram {
	uint32_t src, dst;	/* host byte order */
	uint16_t sport, dport;
	const uint8_t *data;	/* the payload, valid during the call only */
	size_t len;
	/* The payload's size as sent.  Larger than @len only for the first
	 * fragment of a fragmented datagram (no reassembly here), delivered
	 * to ports bound with udp_bind_ex(..., true) alone: its checksum
	 * cannot be checked. */
	size_t size;
};

/* Called from net_rx()'s task for each datagram to the bound port.  Must
 * not sleep or wait long: it holds up every frame behind it. */
typedef void (*udp_handler_fn)(void *ctx, const struct udp_dgram *d);

/* Deliver datagrams to @port to @fn.  Returns 0, -EBUSY (port taken) or
 * -ENOSPC (table full).  Task context. */
int udp_bind(uint16_t port, udp_handler_fn fn, void *ctx);

/* As udp_bind(); with @first_fragments the handler also sees the first
 * fragment of a datagram too big for one frame (d->size > d->len). */
int udp_bind_ex(uint16_t port, udp_handler_fn fn, void *ctx,
		bool first_fragments);

/* Stop delivering to @port.  On return @fn is not running and will not be
 * called again.  Task context. */
void udp_unbind(uint16_t port);

/* Send @len bytes (at most UDP_PAYLOAD_MAX, 1472) from our @sport to
 * @dst:@dport, with a checksum.  Returns 0; -E2BIG; -EINVAL (no route);
 * -EAGAIN when the next hop's MAC is not known yet (a request has been
 * sent: try again later); or the device's error.  Task context. */
int udp_send(uint32_t dst, uint16_t sport, uint16_t dport,
	     const void *data, size_t len);

/* Print "a.b.c.d" for @ip (host order) into @buf of at least 16 bytes. */
char *net_ip_str(uint32_t ip, char buf[16]);

#endif
