/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: net_rx(), the whole receive path with the UDP shell
 * and a netload receiver bound, on the recording fake device.
 *
 * An input is a run of frames, each "flags(1) length(2, big-endian)
 * bytes"; the last may be short.  The flags let the fuzzer past checks
 * it could not otherwise satisfy by mutation, so it spends its time
 * behind them:
 *   0x01 fix the IPv4 header checksum     0x02 fix the ICMP/UDP checksum
 *   0x04 advance the clock by 61 s        0x08 run the queued shell input
 *   0x10 address the frame to our MAC     0x20 from 10.0.2.2 to 10.0.2.15
 * (0x20 is applied before the checksums.)  Everything sent in reply is
 * checked: sizes, and the IPv4 header checksum of each IPv4 frame. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "fake_netdev.h"
#include "hal/entry.h"
#include "hal/netdev.h"
#include "net/net.h"
#include "shell/udpsh/net.h"
#include "net/iperf.h"
#include "net/netload.h"
#include "net/wire.h"

#define FZ_MAX_FRAMES 32
#define FZ_NETLOAD_PORT 5001
#define FZ_REPORT_PORT 5002

static struct netload_rx fz_rx;

static void fz_netload(void *ctx, const struct udp_dgram *d)
{
	uint8_t report[IPERF_REPORT_LEN];

	(void)ctx;
	if (netload_rx_account(&fz_rx, d->src, d->sport, d->data, d->len, fake_now_ns)) {
		netload_report_build(&fz_rx, d->data, d->len, report);
		udp_send(d->src, FZ_NETLOAD_PORT, d->sport, report, sizeof(report));
	}
}

static void fz_report(void *ctx, const struct udp_dgram *d)
{
	struct iperf_report r;

	(void)ctx;
	iperf_report_parse(d->data, d->len, &r);
}

static void fz_fix(uint8_t *f, size_t len, unsigned flags)
{
	uint8_t *ip = f + ETH_HLEN;
	size_t total, l4len;

	if (flags & 0x10)
		hal_netdev_mac(f);
	if (len < ETH_HLEN + IP_HLEN || wire_get16(f + 12) != ETH_TYPE_IPV4)
		return;
	if (flags & 0x20) {
		wire_put32(ip + 12, 0x0a000202u);
		wire_put32(ip + 16, 0x0a00020fu);
	}
	total = wire_get16(ip + 2);
	if ((flags & 0x02) && (ip[0] & 0xf) == 5 && total >= IP_HLEN &&
	    total <= len - ETH_HLEN) {
		uint8_t *l4 = ip + IP_HLEN;

		l4len = total - IP_HLEN;
		if (ip[9] == IP_PROTO_ICMP && l4len >= ICMP_HLEN) {
			wire_put16(l4 + 2, 0);
			wire_put16(l4 + 2, wire_csum(l4, l4len));
		} else if (ip[9] == IP_PROTO_UDP && l4len >= UDP_HLEN &&
			   wire_get16(l4 + 4) >= UDP_HLEN && wire_get16(l4 + 4) <= l4len) {
			uint32_t src = wire_get32(ip + 12), dst = wire_get32(ip + 16);
			size_t ulen = wire_get16(l4 + 4);
			uint32_t sum = (src >> 16) + (src & 0xffff) + (dst >> 16) +
				       (dst & 0xffff) + IP_PROTO_UDP + (uint32_t)ulen;
			uint16_t c;

			wire_put16(l4 + 6, 0);
			c = wire_csum_fold(wire_csum_add(sum, l4, ulen));
			wire_put16(l4 + 6, c ? c : 0xffff);
		}
	}
	if (flags & 0x01) {
		wire_put16(ip + 10, 0);
		wire_put16(ip + 10, wire_csum(ip, IP_HLEN));
	}
}

/* What we send must be a sane frame whatever came in. */
static void fz_check_sent(void)
{
	unsigned n = fake_netdev_nsent < FAKE_NETDEV_FRAMES ? fake_netdev_nsent : FAKE_NETDEV_FRAMES;

	for (unsigned i = 0; i < n; i++) {
		const struct fake_frame *fr = &fake_netdev_sent[i];

		if (fr->len < ETH_FRAME_MIN || fr->len > ETH_FRAME_MAX)
			abort();
		if (wire_get16(fr->data + 12) == ETH_TYPE_IPV4 &&
		    (wire_csum(fr->data + ETH_HLEN, IP_HLEN) != 0 ||
		     wire_get16(fr->data + ETH_HLEN + 2) + ETH_HLEN > fr->len))
			abort();
	}
}

static void fz_reset(void)
{
	static const uint8_t gw_mac[6] = { 0x52, 0x55, 0x0a, 0x00, 0x02, 0x02 };
	uint8_t arp[ETH_FRAME_MIN] = { 0 };

	fake_now_ns = 1000000000ull;
	fake_netdev_clear();
	net_config_reset();
	udpsh_config_reset();
	net_reset();
	udpsh_net_reset();
	udpsh_net_open();
	netload_rx_init(&fz_rx);
	udp_bind(FZ_NETLOAD_PORT, fz_netload, NULL);
	udp_bind(FZ_REPORT_PORT, fz_report, NULL);
	/* The gateway's ARP request, so replies to it can go out. */
	memset(arp, 0xff, ETH_ALEN);
	memcpy(arp + 6, gw_mac, ETH_ALEN);
	wire_put16(arp + 12, ETH_TYPE_ARP);
	wire_put16(arp + 14, 1);
	wire_put16(arp + 16, ETH_TYPE_IPV4);
	arp[18] = 6;
	arp[19] = 4;
	wire_put16(arp + 20, ARP_OP_REQUEST);
	memcpy(arp + 22, gw_mac, ETH_ALEN);
	wire_put32(arp + 28, 0x0a000202u);
	wire_put32(arp + 38, 0x0a00020fu);
	net_rx(arp, sizeof(arp));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[65536];
	size_t pos = 0;

	fz_reset();
	for (unsigned i = 0; i < FZ_MAX_FRAMES && pos + 3 <= size; i++) {
		unsigned flags = data[pos];
		size_t len = wire_get16(data + pos + 1);

		pos += 3;
		if (len > size - pos)
			len = size - pos;
		memcpy(frame, data + pos, len);
		pos += len;
		if (flags & 0x04)
			fake_now_ns += 61000000000ull;
		fz_fix(frame, len, flags);
		net_rx(frame, len);
		if (flags & 0x08)
			udpsh_net_run_queued();
		fz_check_sent();
		fake_netdev_clear();
	}
	udpsh_net_run_queued();
	fz_check_sent();
	return 0;
}
