/* SPDX-License-Identifier: BSD-2-Clause */
/* netload: iperf 2 compatible UDP load, see netload.h; the bytes on the
 * wire are iperf.c's. */
#include "net/netload.h"

#include "hal/timer.h"
#include "kernel/sched.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "net/iperf.h"
#include "net/net.h"

/* ---- receiving end: accounting ---- */

void netload_rx_init(struct netload_rx *r)
{
	kmemset(r, 0, sizeof(*r));
}

/* RFC 1889's estimator: J += (|D| - J) / 16, D the change in transit time
 * (the two clocks' offset cancels in it). */
static void netload_rx_jitter(struct netload_rx *r, const uint8_t *data,
			      size_t len, uint64_t now_ns)
{
	int64_t sent_ns, transit, d;

	if (len < 12)
		return;
	sent_ns = iperf_dgram_sent_ns(data);
	transit = (int64_t)now_ns - sent_ns;
	if (r->have_transit) {
		d = transit - r->last_transit_ns;
		if (d < 0)
			d = -d;
		r->jitter_ns += (d - r->jitter_ns) / 16;
	}
	r->last_transit_ns = transit;
	r->have_transit = true;
}

static void netload_rx_order(struct netload_rx *r, int64_t id)
{
	if (id != r->max_id + 1) {
		if (id < r->max_id + 1)
			r->out_of_order++;
		else
			r->lost += (uint64_t)(id - r->max_id - 1);
	}
	if (id > r->max_id)
		r->max_id = id;
}

bool netload_rx_account(struct netload_rx *r, uint32_t src, uint16_t sport,
			const uint8_t *data, size_t len, uint64_t now_ns)
{
	int32_t id;

	if (len < 4) {
		r->short_dgrams++;
		return false;
	}
	id = iperf_dgram_id(data);
	if (r->started && (src != r->peer || sport != r->peer_port)) {
		r->foreign++;
		if (id >= 0 && !r->finished)
			r->mixed = true;
		return false;
	}
	if (id < 0) {
		/* No stream yet: nobody's data to report on. */
		if (!r->started) {
			r->foreign++;
			return false;
		}
		if (!r->finished) {
			r->finished = true;
			r->final_ns = now_ns;
		}
		r->finals++;
		if (r->reported || r->mixed)
			return false;
		r->reported = true;
		return true;
	}
	if (r->finished) {
		r->foreign++;
		return false;
	}
	if (!r->started) {
		r->started = true;
		r->peer = src;
		r->peer_port = sport;
		r->first_ns = now_ns;
	}
	r->datagrams++;
	r->bytes += len;
	r->last_ns = now_ns;
	netload_rx_jitter(r, data, len, now_ns);
	/* iperf 2 leaves id 0 out of the ordering. */
	if (id > 0)
		netload_rx_order(r, id);
	return false;
}

/* Receive time from the first data datagram to the end (the final
 * datagram, else the last one). */
static uint64_t netload_rx_span_ns(const struct netload_rx *r)
{
	uint64_t end = r->finished ? r->final_ns : r->last_ns;

	return r->datagrams && end > r->first_ns ? end - r->first_ns : 0;
}

uint64_t netload_rx_lost(const struct netload_rx *r)
{
	return r->lost > r->out_of_order ? r->lost - r->out_of_order : 0;
}

size_t netload_report_build(const struct netload_rx *r, const uint8_t *fin,
			    size_t fin_len, uint8_t *buf)
{
	uint64_t span = netload_rx_span_ns(r);
	uint64_t lost = netload_rx_lost(r);
	uint64_t jitter = r->jitter_ns > 0 ? (uint64_t)r->jitter_ns : 0;
	struct iperf_report rep = {
		.bytes = r->bytes,
		.stop_sec = (uint32_t)(span / 1000000000u),
		.stop_usec = (uint32_t)(span % 1000000000u / 1000u),
		.lost = lost,
		.out_of_order = r->out_of_order,
		/* iperf prints the ids sent, not the datagrams taken. */
		.datagrams = r->datagrams + lost,
		.jitter_sec = (uint32_t)(jitter / 1000000000u),
		.jitter_usec = (uint32_t)(jitter % 1000000000u / 1000u),
	};

	return iperf_report_build(&rep, fin, fin_len, buf);
}

uint64_t netload_pps(uint64_t count, uint64_t ns)
{
	return ns ? count * 1000000000u / ns : 0;
}

uint64_t netload_mbit100(uint64_t bytes, uint64_t ns)
{
	/* bits per microsecond is Mbit/s; times 100 for two decimals. */
	return ns ? bytes * 800000u / ns : 0;
}

/* ---- printing ---- */

static void netload_print_rates(struct out *o, uint64_t count, uint64_t bytes,
				uint64_t ns)
{
	uint64_t m = netload_mbit100(bytes, ns);

	out_printf(o, "%llu packets/s, %llu.%02llu Mbit/s",
		   (unsigned long long)netload_pps(count, ns),
		   (unsigned long long)(m / 100), (unsigned long long)(m % 100));
}

static void netload_print_jitter(struct out *o, uint64_t ns)
{
	uint64_t us = ns / 1000;

	out_printf(o, "jitter %llu.%03llu ms", (unsigned long long)(us / 1000),
		   (unsigned long long)(us % 1000));
}

uint64_t netload_report_received(const struct iperf_report *r)
{
	return r->datagrams > r->lost ? r->datagrams - r->lost : 0;
}

/* The receiver's view, from its report: what it took (total less lost),
 * of how many the ids say were sent, and the rates of what it took. */
static void netload_print_report(struct out *o, const struct iperf_report *r)
{
	uint64_t got = netload_report_received(r);
	uint64_t span = (uint64_t)r->stop_sec * 1000000000u + (uint64_t)r->stop_usec * 1000u;

	out_printf(o, "netload send: receiver got %llu of %llu datagrams (%llu lost), "
		   "%llu bytes in %llu ms: ",
		   (unsigned long long)got, (unsigned long long)r->datagrams,
		   (unsigned long long)r->lost, (unsigned long long)r->bytes,
		   (unsigned long long)(span / 1000000u));
	netload_print_rates(o, got, r->bytes, span);
	out_printf(o, "\nnetload send: receiver out of order %llu, ",
		   (unsigned long long)r->out_of_order);
	netload_print_jitter(o, (uint64_t)r->jitter_sec * 1000000000u +
				(uint64_t)r->jitter_usec * 1000u);
	out_puts(o, "\n");
}

/* ---- receiving end: the command ---- */

struct netload_recv_ctx {
	struct netload_rx rx;
	uint16_t port;
	uint64_t reports_failed;
};

static void netload_recv_handler(void *ctx, const struct udp_dgram *d)
{
	struct netload_recv_ctx *c = ctx;
	uint8_t report[IPERF_REPORT_LEN];

	if (!netload_rx_account(&c->rx, d->src, d->sport, d->data, d->len,
				hal_clock_ns()))
		return;
	netload_report_build(&c->rx, d->data, d->len, report);
	/* To the stream's source (which sent this final too). */
	if (udp_send(c->rx.peer, c->port, c->rx.peer_port, report, sizeof(report)) < 0)
		c->reports_failed++;
}

int netload_recv(struct out *o, const struct netload_args *a)
{
	struct netload_recv_ctx c;
	const struct netload_rx *r = &c.rx;
	char ip[16];
	int err;

	netload_rx_init(&c.rx);
	c.port = a->port;
	c.reports_failed = 0;
	err = udp_bind(a->port, netload_recv_handler, &c);
	if (err < 0) {
		out_printf(o, "netload: cannot listen on udp port %u (%s)\n", a->port,
			   err == -EBUSY ? "in use" : "no free binding");
		return err;
	}
	out_printf(o, "netload: listening on udp port %u for %u ms\n", a->port, a->ms);
	/* The whole window, even after a final datagram (the report goes
	 * once; later datagrams are counted as ignored); a datagram for the
	 * shell that runs us wakes us early, so sleep to the deadline. */
	sched_sleep_window_ms(a->ms);
	udp_unbind(a->port);

	if (!r->datagrams && !r->finals) {
		out_printf(o, "netload recv: no datagrams on port %u in %u ms\n",
			   a->port, a->ms);
		return 0;
	}
	out_printf(o, "netload recv: %llu datagrams, %llu bytes from %s:%u in %llu ms: ",
		   (unsigned long long)r->datagrams, (unsigned long long)r->bytes,
		   net_ip_str(r->peer, ip), r->peer_port,
		   (unsigned long long)(netload_rx_span_ns(r) / 1000000u));
	netload_print_rates(o, r->datagrams, r->bytes, netload_rx_span_ns(r));
	out_printf(o, "\nnetload recv: lost %llu, out of order %llu, ",
		   (unsigned long long)netload_rx_lost(r),
		   (unsigned long long)r->out_of_order);
	netload_print_jitter(o, r->jitter_ns > 0 ? (uint64_t)r->jitter_ns : 0);
	out_printf(o, ", final %s, ignored %llu\n",
		   r->finished ? "received" : "missing",
		   (unsigned long long)(r->short_dgrams + r->foreign));
	if (c.reports_failed)
		out_printf(o, "netload recv: %llu reports could not be sent\n",
			   (unsigned long long)c.reports_failed);
	return 0;
}

/* ---- sending end ---- */

struct netload_send_ctx {
	uint32_t peer;
	uint16_t peer_port;
	bool got;
	struct iperf_report rep;
};

static void netload_send_handler(void *ctx, const struct udp_dgram *d)
{
	struct netload_send_ctx *c = ctx;
	struct iperf_report rep;

	if (d->src != c->peer || d->sport != c->peer_port ||
	    __atomic_load_n(&c->got, __ATOMIC_ACQUIRE) ||
	    iperf_report_parse(d->data, d->len, &rep) < 0)
		return;
	c->rep = rep;
	__atomic_store_n(&c->got, true, __ATOMIC_RELEASE);
}

/* A local port for the sender's socket, from the dynamic range. */
static int netload_bind_local(struct netload_send_ctx *c, uint16_t *port)
{
	static uint16_t next;

	for (unsigned i = 0; i < 64; i++) {
		uint16_t p = (uint16_t)(49152 + __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED) % 16384);

		if (udp_bind(p, netload_send_handler, c) == 0) {
			*port = p;
			return 0;
		}
	}
	return -EBUSY;
}

struct netload_tx {
	uint64_t sent, failed;
};

/* Send data datagrams for a->ms, paced to a->rate from absolute due times,
 * so a late wake-up is made up for by a burst and the average holds. */
static void netload_send_data(const struct netload_args *a, uint16_t sport,
			      uint8_t *buf, struct netload_tx *tx)
{
	uint64_t start = hal_clock_ns(), end = start + (uint64_t)a->ms * 1000000u;
	/* Picoseconds per datagram keep the pacing exact enough at 10G. */
	uint64_t per_ps = a->rate ? (uint64_t)a->size * 8u * 1000000000000u / a->rate : 0;
	uint64_t i = 0;

	for (;;) {
		uint64_t now = hal_clock_ns(), due = start + i * per_ps / 1000u;

		if (now >= end)
			break;
		if (due > now) {
			sched_sleep_ns(due - now < end - now ? due - now : end - now);
			continue;
		}
		iperf_dgram_build(buf, a->size, (int32_t)(i + 1), now);
		if (udp_send(a->ip, sport, a->port, buf, a->size) == 0)
			tx->sent++;
		else
			tx->failed++;
		i++;
		/* Unpaced, still let the CPU's other tasks run. */
		if (!a->rate && i % 64 == 0)
			sched_yield_cpu();
		if (i >= 0x7fffffffu)
			break;
	}
}

/* The final datagram, repeated until the report is in. */
static bool netload_send_final(const struct netload_args *a, uint16_t sport,
			       uint8_t *buf, uint64_t last_id,
			       struct netload_send_ctx *c)
{
	for (unsigned try = 0; try < 10; try++) {
		uint64_t sent = hal_clock_ns();

		iperf_dgram_build(buf, a->size, -(int32_t)(last_id + 1 + try), sent);
		udp_send(a->ip, sport, a->port, buf, a->size);
		/* 250 ms per try, by the clock, looking every 10 ms. */
		for (unsigned w = 1; w <= 25; w++) {
			if (__atomic_load_n(&c->got, __ATOMIC_ACQUIRE))
				return true;
			sched_sleep_until_ns(sent + w * 10000000ull);
		}
	}
	return __atomic_load_n(&c->got, __ATOMIC_ACQUIRE);
}

int netload_send(struct out *o, const struct netload_args *a)
{
	struct netload_send_ctx c = { .peer = a->ip, .peer_port = a->port };
	struct netload_tx tx = { 0, 0 };
	uint8_t buf[NETLOAD_SIZE_MAX];
	uint64_t t0, span;
	uint16_t sport;
	char ip[16];
	int err;

	net_ip_str(a->ip, ip);
	err = net_resolve(a->ip, 1000);
	if (err < 0) {
		out_printf(o, "netload: %s is unreachable (%s)\n", ip,
			   err == -EINVAL ? "no route" : "no ARP reply");
		return err;
	}
	if (netload_bind_local(&c, &sport) < 0) {
		out_puts(o, "netload: no free local udp port\n");
		return -EBUSY;
	}
	t0 = hal_clock_ns();
	netload_send_data(a, sport, buf, &tx);
	span = hal_clock_ns() - t0;
	out_printf(o, "netload send: %llu datagrams, %llu bytes to %s:%u in %llu ms: ",
		   (unsigned long long)tx.sent, (unsigned long long)(tx.sent * a->size),
		   ip, a->port, (unsigned long long)(span / 1000000u));
	netload_print_rates(o, tx.sent, tx.sent * a->size, span);
	out_puts(o, "\n");
	if (tx.failed)
		out_printf(o, "netload send: %llu datagrams not sent (device busy or no ARP entry)\n",
			   (unsigned long long)tx.failed);
	if (netload_send_final(a, sport, buf, tx.sent + tx.failed, &c))
		netload_print_report(o, &c.rep);
	else
		out_puts(o, "netload send: no report from the receiver\n");
	udp_unbind(sport);
	return 0;
}
