/* SPDX-License-Identifier: BSD-2-Clause */
/* UDP: checksums, and delivery to the handler bound to a port. */
#include "kernel/sched.h"
#include "kernel/trace.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/spinlock.h"
#include "net/internal.h"

#define UDP_BINDINGS 8

struct udp_binding {
	uint16_t port;		/* 0: free */
	udp_handler_fn fn;
	void *ctx;
	bool first_fragments;
};

static struct spinlock udp_lock = SPINLOCK_INIT;
static struct udp_binding udp_table[UDP_BINDINGS];
/* The port whose handler net_rx()'s task is running now, 0 when none;
 * udp_unbind() waits for it to change. */
static uint16_t udp_running;

void udp_reset(void)
{
	unsigned long flags = spin_lock_irqsave(&udp_lock);

	kmemset(udp_table, 0, sizeof(udp_table));
	spin_unlock_irqrestore(&udp_lock, flags);
}

int udp_bind(uint16_t port, udp_handler_fn fn, void *ctx)
{
	return udp_bind_ex(port, fn, ctx, false);
}

int udp_bind_ex(uint16_t port, udp_handler_fn fn, void *ctx,
		bool first_fragments)
{
	unsigned long flags;
	struct udp_binding *free = NULL;
	int err = 0;

	if (!port || !fn)
		return -EINVAL;
	flags = spin_lock_irqsave(&udp_lock);
	for (unsigned i = 0; i < UDP_BINDINGS; i++) {
		if (udp_table[i].port == port)
			err = -EBUSY;
		else if (!udp_table[i].port && !free)
			free = &udp_table[i];
	}
	if (!err && !free)
		err = -ENOSPC;
	if (!err) {
		free->fn = fn;
		free->ctx = ctx;
		free->first_fragments = first_fragments;
		free->port = port;
	}
	spin_unlock_irqrestore(&udp_lock, flags);
	return err;
}

void udp_unbind(uint16_t port)
{
	unsigned long flags = spin_lock_irqsave(&udp_lock);

	for (unsigned i = 0; i < UDP_BINDINGS; i++)
		if (udp_table[i].port == port)
			kmemset(&udp_table[i], 0, sizeof(udp_table[i]));
	spin_unlock_irqrestore(&udp_lock, flags);
	while (__atomic_load_n(&udp_running, __ATOMIC_ACQUIRE) == port)
		sched_yield_cpu();
}

/* The pseudo-header's part of the checksum. */
static uint32_t udp_pseudo_sum(uint32_t src, uint32_t dst, size_t ulen)
{
	return (src >> 16) + (src & 0xffff) + (dst >> 16) + (dst & 0xffff) +
	       IP_PROTO_UDP + (uint32_t)ulen;
}

void udp_input(const struct ipv4_meta *ip, const uint8_t *p, size_t len)
{
	struct udp_dgram d;
	unsigned long flags;
	udp_handler_fn fn = NULL;
	void *ctx = NULL;
	size_t ulen;

	if (len < UDP_HLEN) {
		net_count_drop(NET_DROP_UDP_LENGTH);
		return;
	}
	ulen = wire_get16(p + 4);
	if (ulen < UDP_HLEN || ulen > len) {
		net_count_drop(NET_DROP_UDP_LENGTH);
		return;
	}
	/* Zero means the sender computed none (RFC 768). */
	if (wire_get16(p + 6) != 0 &&
	    wire_csum_fold(wire_csum_add(udp_pseudo_sum(ip->src, ip->dst, ulen), p, ulen)) != 0) {
		net_count_drop(NET_DROP_UDP_CHECKSUM);
		return;
	}
	d.src = ip->src;
	d.dst = ip->dst;
	d.sport = wire_get16(p);
	d.dport = wire_get16(p + 2);
	d.data = p + UDP_HLEN;
	d.len = ulen - UDP_HLEN;
	d.size = d.len;
	flags = spin_lock_irqsave(&udp_lock);
	for (unsigned i = 0; i < UDP_BINDINGS; i++) {
		if (d.dport && udp_table[i].port == d.dport) {
			fn = udp_table[i].fn;
			ctx = udp_table[i].ctx;
			__atomic_store_n(&udp_running, d.dport, __ATOMIC_RELEASE);
		}
	}
	spin_unlock_irqrestore(&udp_lock, flags);
	if (!fn) {
		net_count_drop(NET_DROP_UDP_PORT);
		return;
	}
	net_count(&net_counters.rx_udp);
	TRACE_POINT(TRACE_UDP_DELIVER, d.dport, (uint32_t)d.len, 0u);
	fn(ctx, &d);
	__atomic_store_n(&udp_running, 0, __ATOMIC_RELEASE);
}

bool udp_input_first_fragment(const struct ipv4_meta *ip, const uint8_t *p,
			      size_t len)
{
	struct udp_dgram d;
	unsigned long flags;
	udp_handler_fn fn = NULL;
	void *ctx = NULL;
	size_t ulen;

	/* The UDP header is all there is to check: the checksum covers the
	 * whole datagram, which never arrives here. */
	if (len < UDP_HLEN)
		return false;
	ulen = wire_get16(p + 4);
	if (ulen <= len || ip->to_broadcast)
		return false;
	d.src = ip->src;
	d.dst = ip->dst;
	d.sport = wire_get16(p);
	d.dport = wire_get16(p + 2);
	d.data = p + UDP_HLEN;
	d.len = len - UDP_HLEN;
	d.size = ulen - UDP_HLEN;
	flags = spin_lock_irqsave(&udp_lock);
	for (unsigned i = 0; i < UDP_BINDINGS; i++) {
		if (d.dport && udp_table[i].port == d.dport && udp_table[i].first_fragments) {
			fn = udp_table[i].fn;
			ctx = udp_table[i].ctx;
			__atomic_store_n(&udp_running, d.dport, __ATOMIC_RELEASE);
		}
	}
	spin_unlock_irqrestore(&udp_lock, flags);
	if (!fn)
		return false;
	fn(ctx, &d);
	__atomic_store_n(&udp_running, 0, __ATOMIC_RELEASE);
	return true;
}

int udp_send(uint32_t dst, uint16_t sport, uint16_t dport,
	     const void *data, size_t len)
{
	uint8_t frame[ETH_FRAME_MAX];
	uint8_t *u = frame + NET_L4_OFFSET;
	size_t ulen = UDP_HLEN + len;
	uint16_t sum;

	if (len > UDP_PAYLOAD_MAX)
		return -E2BIG;
	wire_put16(u, sport);
	wire_put16(u + 2, dport);
	wire_put16(u + 4, (uint16_t)ulen);
	wire_put16(u + 6, 0);
	kmemcpy(u + UDP_HLEN, data, len);
	sum = wire_csum_fold(wire_csum_add(udp_pseudo_sum(net_config()->ip, dst, ulen),
					   u, ulen));
	/* A computed zero is sent as all ones: zero means "no checksum". */
	wire_put16(u + 6, sum ? sum : 0xffff);
	return ipv4_output(frame, dst, IP_PROTO_UDP, ulen);
}
