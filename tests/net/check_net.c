/* SPDX-License-Identifier: BSD-2-Clause */
/* The IPv4/UDP stack, frames built in memory: ARP replies and the cache's
 * expiry, ICMP echo, every drop reason, UDP checksums and sending, the
 * configuration words, the UDP shell served on UDP (split replies, prompt
 * last, allowlist, queue), and the `net` command.  The device is
 * tests/kit/fake_netdev.c, which keeps every frame sent.  Checksums of sent
 * frames are verified here with the test's own implementation. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "fake_netdev.h"
#include "hal/entry.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "net/net.h"
#include "shell/udpsh/net.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "shell/udpsh/serving.h"
#include "check_main.h"
#include "test_wire.h"

#define OUR_IP 0x0a00020fu	/* 10.0.2.15 */
#define GW_IP 0x0a000202u	/* 10.0.2.2, also the allowed shell client */
#define PEER_IP 0x0a000209u	/* 10.0.2.9: on-link, not allowed */
#define FAR_IP 0xc0a80101u	/* 192.168.1.1: off-link */
#define SHELL_PORT 5555
#define CLIENT_PORT 40001

static const uint8_t our_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t gw_mac[6] = { 0x52, 0x55, 0x0a, 0x00, 0x02, 0x02 };
static const uint8_t peer_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x09 };
static const uint8_t bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* --- the test command table ----------------------------------------- */

static int tcmd_echo(struct shell_ctx *sh, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		out_printf(sh->out, "%s%s", i > 1 ? " " : "", argv[i]);
	out_puts(sh->out, "\n");
	return 0;
}

/* "lines N": N lines of 41 bytes each, newline included. */
static int tcmd_lines(struct shell_ctx *sh, int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++)
		out_printf(sh->out, "line %04d ..............................\n", i);
	return 0;
}

const struct shell_cmd shell_commands[] = {
	{ "echo", "echo [words]", "print the words", tcmd_echo, false, true },
	{ "lines", "lines N", "print N lines", tcmd_lines, false, true },
	{ "net", "net", "network counters", cmd_net, false, true },
	{ NULL, NULL, NULL, NULL, false, false },
};

/* --- frames: built and checked with the test's own code -------------- */

static uint32_t pseudo(uint32_t src, uint32_t dst, size_t len)
{
	return (src >> 16) + (src & 0xffff) + (dst >> 16) + (dst & 0xffff) + 17 + (uint32_t)len;
}

static uint8_t frame[2048];

static size_t eth(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint16_t type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	put16(f + 12, type);
	return 14;
}

static void ip_fix_csum(uint8_t *f)
{
	put16(f + 14 + 10, 0);
	put16(f + 14 + 10, fold(sum16(0, f + 14, 20)));
}

/* Ethernet + IPv4 header for @l4len bytes already at f + 34. */
static size_t ipv4(uint8_t *f, const uint8_t *src_mac, uint32_t src, uint32_t dst,
		   uint8_t proto, size_t l4len)
{
	uint8_t *ip = f + 14;

	eth(f, our_mac, src_mac, 0x0800);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(20 + l4len));
	put16(ip + 4, 0x1234);
	ip[8] = 64;
	ip[9] = proto;
	put32(ip + 12, src);
	put32(ip + 16, dst);
	ip_fix_csum(f);
	return 34 + l4len;
}

static size_t udp_from(uint8_t *f, const uint8_t *src_mac, uint32_t src, uint16_t sport,
		       uint16_t dport, const void *data, size_t len, bool csum)
{
	uint8_t *u = f + 34;

	put16(u, sport);
	put16(u + 2, dport);
	put16(u + 4, (uint16_t)(8 + len));
	put16(u + 6, 0);
	memcpy(u + 8, data, len);
	if (csum) {
		uint16_t c = fold(sum16(pseudo(src, OUR_IP, 8 + len), u, 8 + len));

		put16(u + 6, c ? c : 0xffff);
	}
	return ipv4(f, src_mac, src, OUR_IP, 17, 8 + len);
}

/* A datagram from the gateway (the allowed shell client). */
static size_t udp_gw(uint8_t *f, uint16_t dport, const char *text)
{
	return udp_from(f, gw_mac, GW_IP, CLIENT_PORT, dport, text, strlen(text), true);
}

static size_t icmp_echo(uint8_t *f, uint32_t src, uint32_t dst, uint8_t type,
			const char *payload)
{
	uint8_t *m = f + 34;
	size_t len = 8 + strlen(payload);

	m[0] = type;
	m[1] = 0;
	put16(m + 2, 0);
	put16(m + 4, 0xbeef);
	put16(m + 6, 7);
	memcpy(m + 8, payload, strlen(payload));
	put16(m + 2, fold(sum16(0, m, len)));
	ipv4(f, gw_mac, src, dst, 1, len);
	return 34 + len;
}

static size_t arp(uint8_t *f, uint16_t op, const uint8_t *sha, uint32_t spa,
		  uint32_t tpa, const uint8_t *eth_dst)
{
	uint8_t *a = f + 14;

	eth(f, eth_dst, sha, 0x0806);
	put16(a, 1);
	put16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, op);
	memcpy(a + 8, sha, 6);
	put32(a + 14, spa);
	memset(a + 18, 0, 6);
	put32(a + 24, tpa);
	memset(f + 42, 0, 18);	/* padding to the 60-byte minimum */
	return 60;
}

static void rx(size_t len)
{
	net_rx(frame, len);
}

/* Make the gateway known, as its first ARP request to us would. */
/* True when @ip resolves to @want. */
static bool mac_of(uint32_t ip, const uint8_t *want)
{
	uint8_t mac[6];

	return arp_lookup(ip, mac) && memcmp(mac, want, 6) == 0;
}

static void learn_gw(void)
{
	rx(arp(frame, 1, gw_mac, GW_IP, OUR_IP, bcast_mac));
	fake_netdev_clear();
}

static struct net_stats stats(void)
{
	struct net_stats s;

	net_stats_read(&s);
	return s;
}

/* A sent UDP frame, checked: Ethernet type, IPv4 header and checksum, UDP
 * checksum.  Returns the payload. */
struct sent_udp {
	const uint8_t *eth_dst;
	uint32_t src, dst;
	uint16_t sport, dport;
	const char *data;
	size_t len;
};

static struct sent_udp sent_udp(unsigned i)
{
	const struct fake_frame *fr = &fake_netdev_sent[i];
	const uint8_t *ip = fr->data + 14, *u = fr->data + 34;
	struct sent_udp s;
	size_t ulen;

	ck_assert_uint_lt(i, fake_netdev_nsent);
	ck_assert_uint_ge(fr->len, 42);
	ck_assert_uint_le(fr->len, 1514);
	ck_assert_mem_eq(fr->data + 6, our_mac, 6);
	ck_assert_uint_eq(get16(fr->data + 12), 0x0800);
	ck_assert_uint_eq(ip[0], 0x45);
	ck_assert_uint_eq(ip[9], 17);
	ck_assert_uint_eq(fold(sum16(0, ip, 20)), 0);
	ck_assert_uint_eq(get16(ip + 6) & 0x3fff, 0);	/* not a fragment */
	ulen = get16(u + 4);
	ck_assert_uint_eq(get16(ip + 2), 20 + ulen);
	s.eth_dst = fr->data;
	s.src = get32(ip + 12);
	s.dst = get32(ip + 16);
	ck_assert_uint_ne(get16(u + 6), 0);
	ck_assert_uint_eq(fold(sum16(pseudo(s.src, s.dst, ulen), u, ulen)), 0);
	s.sport = get16(u);
	s.dport = get16(u + 2);
	s.data = (const char *)u + 8;
	s.len = ulen - 8;
	/* A keyless shell's reply starts with the mark: returned without. */
	if (s.sport == SHELL_PORT && !udpsh_net_keyed()) {
		ck_assert_uint_ge(s.len, 1);
		ck_assert_int_eq((unsigned char)s.data[0], UDPSH_REPLY_MARK);
		s.data++;
		s.len--;
	}
	return s;
}

static struct out *err_out(void);

static void setup(void)
{
	fake_now_ns = 1000000000ull;
	fake_netdev_clear();
	fake_netdev_present = true;
	net_config_reset();
	udpsh_config_reset();
	/* The plain protocol, chosen out loud, unless a test gives a key. */
	ck_assert_int_eq(udpsh_config_word("udpsh.key", "none", err_out()), 0);
	net_reset();
	udpsh_net_reset();
}

/* --- ARP ------------------------------------------------------------ */

CHECK_TEST("arp", test_arp_request_for_us_answered)
{
	const uint8_t *a;
	uint8_t mac[6];

	rx(arp(frame, 1, gw_mac, GW_IP, OUR_IP, bcast_mac));
	ck_assert_uint_eq(fake_netdev_nsent, 1);
	ck_assert_uint_eq(fake_netdev_sent[0].len, 60);
	ck_assert_mem_eq(fake_netdev_sent[0].data, gw_mac, 6);
	ck_assert_mem_eq(fake_netdev_sent[0].data + 6, our_mac, 6);
	ck_assert_uint_eq(get16(fake_netdev_sent[0].data + 12), 0x0806);
	a = fake_netdev_sent[0].data + 14;
	ck_assert_uint_eq(get16(a + 6), 2);
	ck_assert_mem_eq(a + 8, our_mac, 6);
	ck_assert_uint_eq(get32(a + 14), OUR_IP);
	ck_assert_mem_eq(a + 18, gw_mac, 6);
	ck_assert_uint_eq(get32(a + 24), GW_IP);
	/* ... and the asker is cached. */
	ck_assert(arp_lookup(GW_IP, mac));
	ck_assert_mem_eq(mac, gw_mac, 6);
	ck_assert_uint_eq(stats().arp_replies_sent, 1);
	ck_assert_uint_eq(stats().rx_arp, 1);
}
END_TEST

CHECK_TEST("arp", test_arp_request_for_other_ignored_not_cached)
{
	uint8_t mac[6];

	rx(arp(frame, 1, peer_mac, PEER_IP, 0x0a000203u, bcast_mac));
	ck_assert_uint_eq(fake_netdev_nsent, 0);
	ck_assert(!arp_lookup(PEER_IP, mac));
	ck_assert_uint_eq(stats().drops[NET_DROP_ARP_NOT_US], 1);
}
END_TEST

CHECK_TEST("arp", test_arp_reply_to_our_request_cached)
{
	uint8_t mac[6];

	arp_request(PEER_IP);
	ck_assert_uint_eq(fake_netdev_nsent, 1);
	ck_assert_mem_eq(fake_netdev_sent[0].data, bcast_mac, 6);
	ck_assert_uint_eq(get16(fake_netdev_sent[0].data + 14 + 6), 1);
	ck_assert_uint_eq(get32(fake_netdev_sent[0].data + 14 + 24), PEER_IP);
	rx(arp(frame, 2, peer_mac, PEER_IP, OUR_IP, our_mac));
	ck_assert(arp_lookup(PEER_IP, mac));
	ck_assert_mem_eq(mac, peer_mac, 6);
	ck_assert_uint_eq(fake_netdev_nsent, 1);	/* replies are not answered */
}
END_TEST

CHECK_TEST("arp", test_arp_entry_expires_after_ttl)
{
	struct arp_entry_info e[ARP_CACHE_SIZE];
	uint8_t mac[6];

	learn_gw();
	fake_now_ns += ARP_TTL_NS - 1;
	ck_assert(arp_lookup(GW_IP, mac));
	ck_assert_uint_eq(arp_snapshot(e, ARP_CACHE_SIZE), 1);
	ck_assert_uint_eq(e[0].age_ns, ARP_TTL_NS - 1);
	fake_now_ns += 1;
	ck_assert(!arp_lookup(GW_IP, mac));
	ck_assert_uint_eq(arp_snapshot(e, ARP_CACHE_SIZE), 0);
	/* Sending now asks again instead of using the stale MAC: first a
	 * unicast probe to the MAC it had, then broadcast. */
	ck_assert_int_eq(udp_send(GW_IP, 1000, 2000, "x", 1), -EAGAIN);
	ck_assert_uint_eq(fake_netdev_nsent, 1);
	ck_assert_mem_eq(fake_netdev_sent[0].data, gw_mac, 6);
	ck_assert_uint_eq(get32(fake_netdev_sent[0].data + 14 + 24), GW_IP);
	ck_assert_uint_eq(stats().tx_no_arp, 1);
	arp_request(GW_IP);
	ck_assert_uint_eq(fake_netdev_nsent, 2);
	ck_assert_mem_eq(fake_netdev_sent[1].data, bcast_mac, 6);
}
END_TEST

/* Traffic confirms nothing, from the entry's MAC or another:
 * a spoofer's frames cannot keep a stolen entry alive. */
CHECK_TEST("arp", test_arp_entry_not_refreshed_by_traffic)
{
	uint8_t mac[6];

	learn_gw();
	udpsh_net_open();
	fake_now_ns += ARP_TTL_NS - 1000;
	rx(udp_gw(frame, 9, "x"));		/* any IPv4 from its MAC */
	fake_now_ns += 1000;
	ck_assert(!arp_lookup(GW_IP, mac));
	/* A reply to our own request does. */
	arp_request(GW_IP);
	rx(arp(frame, 2, gw_mac, GW_IP, OUR_IP, our_mac));
	ck_assert(mac_of(GW_IP, gw_mac));
}
END_TEST

CHECK_TEST("arp", test_arp_full_cache_replaces_oldest)
{
	uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 0 };

	for (unsigned i = 0; i < ARP_CACHE_SIZE + 1; i++) {
		mac[5] = (uint8_t)(i + 1);
		fake_now_ns += 1000;
		rx(arp(frame, 1, mac, 0x0a000220u + i, OUR_IP, bcast_mac));
	}
	ck_assert(!arp_lookup(0x0a000220u, mac));
	ck_assert(arp_lookup(0x0a000221u, mac));
	ck_assert(arp_lookup(0x0a000220u + ARP_CACHE_SIZE, mac));
	ck_assert_uint_eq(mac[5], ARP_CACHE_SIZE + 1);
}
END_TEST

CHECK_TEST("arp", test_arp_flood_keeps_gateway)
{
	uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 0 };

	learn_gw();
	for (unsigned i = 0; i < 3 * ARP_CACHE_SIZE; i++) {
		mac[5] = (uint8_t)(i + 1);
		fake_now_ns += 1000;
		rx(arp(frame, 1, mac, 0x0a000220u + i, OUR_IP, bcast_mac));
	}
	ck_assert(arp_lookup(GW_IP, mac));
	ck_assert_mem_eq(mac, gw_mac, 6);
}
END_TEST

CHECK_TEST("arp", test_arp_broadcast_sender_mac_refused)
{
	uint8_t mac[6];

	rx(arp(frame, 1, bcast_mac, GW_IP, OUR_IP, bcast_mac));
	ck_assert(!arp_lookup(GW_IP, mac));
	ck_assert_uint_eq(fake_netdev_nsent, 0);
	ck_assert_uint_eq(stats().drops[NET_DROP_ARP_MALFORMED], 1);
}
END_TEST

/* --- ICMP ----------------------------------------------------------- */

CHECK_TEST("icmp", test_icmp_echo_request_answered)
{
	const struct fake_frame *fr;
	const uint8_t *ip, *m;

	learn_gw();
	rx(icmp_echo(frame, GW_IP, OUR_IP, 8, "ping payload"));
	ck_assert_uint_eq(fake_netdev_nsent, 1);
	fr = &fake_netdev_sent[0];
	ip = fr->data + 14;
	m = fr->data + 34;
	ck_assert_mem_eq(fr->data, gw_mac, 6);
	ck_assert_uint_eq(ip[9], 1);
	ck_assert_uint_eq(get32(ip + 12), OUR_IP);
	ck_assert_uint_eq(get32(ip + 16), GW_IP);
	ck_assert_uint_eq(fold(sum16(0, ip, 20)), 0);
	ck_assert_uint_eq(get16(ip + 2), 20 + 8 + 12);
	ck_assert_uint_eq(m[0], 0);
	ck_assert_uint_eq(get16(m + 4), 0xbeef);
	ck_assert_uint_eq(get16(m + 6), 7);
	ck_assert_mem_eq(m + 8, "ping payload", 12);
	ck_assert_uint_eq(fold(sum16(0, m, 20)), 0);
	ck_assert_uint_eq(stats().echo_replies_sent, 1);
}
END_TEST

CHECK_TEST("icmp", test_icmp_echo_from_off_link_goes_via_gateway)
{
	learn_gw();
	rx(icmp_echo(frame, FAR_IP, OUR_IP, 8, "far"));
	ck_assert_uint_eq(fake_netdev_nsent, 1);
	ck_assert_mem_eq(fake_netdev_sent[0].data, gw_mac, 6);
	ck_assert_uint_eq(get32(fake_netdev_sent[0].data + 14 + 16), FAR_IP);
}
END_TEST

/* --- every drop reason ---------------------------------------------- */

static size_t d_runt(uint8_t *f) { (void)f; return 13; }

static size_t d_oversize(uint8_t *f)
{
	udp_gw(f, 9, "x");
	return 1515;
}

static size_t d_other_host(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	f[5] ^= 1;
	return n;
}

static size_t d_multicast_mac(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	f[0] = 0x01;
	return n;
}

static size_t d_ethertype(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	put16(f + 12, 0x86dd);
	return n;
}

static size_t d_arp_short(uint8_t *f)
{
	arp(f, 1, gw_mac, GW_IP, OUR_IP, bcast_mac);
	return 14 + 27;
}

static size_t d_arp_hw(uint8_t *f)
{
	size_t n = arp(f, 1, gw_mac, GW_IP, OUR_IP, bcast_mac);

	put16(f + 14, 6);
	return n;
}

static size_t d_arp_op(uint8_t *f)
{
	return arp(f, 3, gw_mac, GW_IP, OUR_IP, bcast_mac);
}

static size_t d_arp_not_us(uint8_t *f)
{
	return arp(f, 1, gw_mac, GW_IP, 0x0a000210u, bcast_mac);
}

/* The gateway's live entry (learn_gw) claimed by another MAC, unasked. */
static size_t d_arp_spoof(uint8_t *f)
{
	return arp(f, 2, peer_mac, GW_IP, OUR_IP, bcast_mac);
}

static size_t d_arp_off_subnet(uint8_t *f)
{
	return arp(f, 1, peer_mac, 0x0800c34cu, OUR_IP, bcast_mac);
}

static size_t d_ip_short(uint8_t *f)
{
	udp_gw(f, 9, "x");
	return 14 + 19;
}

static size_t d_ip_version(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	f[14] = 0x65;
	ip_fix_csum(f);
	return n;
}

static size_t d_ip_hdrlen(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	f[14] = 0x44;
	ip_fix_csum(f);
	return n;
}

static size_t d_ip_options(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	f[14] = 0x46;
	ip_fix_csum(f);
	return n;
}

static size_t d_ip_length_long(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	put16(f + 16, (uint16_t)(n - 14 + 1));
	ip_fix_csum(f);
	return n;
}

static size_t d_ip_length_short(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	put16(f + 16, 19);
	ip_fix_csum(f);
	return n;
}

static size_t d_ip_checksum(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	f[14 + 10] ^= 0x40;
	return n;
}

static size_t d_ip_more_fragments(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	put16(f + 14 + 6, 0x2000);
	ip_fix_csum(f);
	return n;
}

static size_t d_ip_fragment_offset(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	put16(f + 14 + 6, 0x0001);
	ip_fix_csum(f);
	return n;
}

static size_t d_ip_source_broadcast(uint8_t *f)
{
	return udp_from(f, gw_mac, 0x0a0002ffu, 1, 9, "x", 1, true);
}

static size_t d_ip_source_loopback(uint8_t *f)
{
	return udp_from(f, gw_mac, 0x7f000001u, 1, 9, "x", 1, true);
}

static size_t d_ip_source_ours(uint8_t *f)
{
	return udp_from(f, gw_mac, OUR_IP, 1, 9, "x", 1, true);
}

static size_t d_ip_not_us(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	put32(f + 14 + 16, 0x0a000210u);
	ip_fix_csum(f);
	return n;
}

static size_t d_ip_protocol(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "x");

	f[14 + 9] = 6;
	ip_fix_csum(f);
	return n;
}

static size_t d_icmp_short(uint8_t *f)
{
	size_t n = icmp_echo(f, GW_IP, OUR_IP, 8, "");

	put16(f + 16, 20 + 7);
	ip_fix_csum(f);
	return n;
}

static size_t d_icmp_checksum(uint8_t *f)
{
	size_t n = icmp_echo(f, GW_IP, OUR_IP, 8, "abc");

	f[34 + 8] ^= 1;
	return n;
}

static size_t d_icmp_type(uint8_t *f)
{
	return icmp_echo(f, GW_IP, OUR_IP, 13, "timestamp");
}

static size_t d_icmp_to_broadcast(uint8_t *f)
{
	return icmp_echo(f, GW_IP, 0x0a0002ffu, 8, "smurf");
}

static size_t d_udp_short(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "");

	put16(f + 16, 20 + 7);
	ip_fix_csum(f);
	return n - 1;
}

static size_t d_udp_length_field(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "abc");

	put16(f + 34 + 4, 8 + 4);
	return n;
}

static size_t d_udp_length_below_header(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "abc");

	put16(f + 34 + 4, 7);
	return n;
}

static size_t d_udp_checksum(uint8_t *f)
{
	size_t n = udp_gw(f, 9, "abc");

	f[34 + 8] ^= 0x20;
	return n;
}

static size_t d_udp_port(uint8_t *f)
{
	return udp_gw(f, 9, "discard");
}

static size_t d_udpsh_denied(uint8_t *f)
{
	return udp_from(f, peer_mac, PEER_IP, CLIENT_PORT, SHELL_PORT, "help", 4, true);
}

static size_t d_udpsh_busy(uint8_t *f)
{
	for (int i = 0; i < UDPSH_NET_QUEUE; i++)
		net_rx(f, udp_gw(f, SHELL_PORT, "echo queued"));
	return udp_gw(f, SHELL_PORT, "echo one too many");
}

static const struct drop_case {
	const char *what;
	enum net_drop reason;
	size_t (*build)(uint8_t *f);
} drop_cases[] = {
	{ "runt", NET_DROP_RUNT, d_runt },
	{ "oversize", NET_DROP_OVERSIZE, d_oversize },
	{ "other host", NET_DROP_OTHER_HOST, d_other_host },
	{ "multicast mac", NET_DROP_OTHER_HOST, d_multicast_mac },
	{ "ipv6", NET_DROP_ETHERTYPE, d_ethertype },
	{ "arp short", NET_DROP_ARP_MALFORMED, d_arp_short },
	{ "arp hardware", NET_DROP_ARP_MALFORMED, d_arp_hw },
	{ "arp op", NET_DROP_ARP_MALFORMED, d_arp_op },
	{ "arp not us", NET_DROP_ARP_NOT_US, d_arp_not_us },
	{ "arp spoof", NET_DROP_ARP_SPOOF, d_arp_spoof },
	{ "arp off subnet", NET_DROP_ARP_OFF_SUBNET, d_arp_off_subnet },
	{ "ip short", NET_DROP_IP_SHORT, d_ip_short },
	{ "ip version", NET_DROP_IP_VERSION, d_ip_version },
	{ "ip hdrlen", NET_DROP_IP_HDRLEN, d_ip_hdrlen },
	{ "ip options", NET_DROP_IP_OPTIONS, d_ip_options },
	{ "ip length past frame", NET_DROP_IP_LENGTH, d_ip_length_long },
	{ "ip length below header", NET_DROP_IP_LENGTH, d_ip_length_short },
	{ "ip checksum", NET_DROP_IP_CHECKSUM, d_ip_checksum },
	{ "ip more fragments", NET_DROP_IP_FRAGMENT, d_ip_more_fragments },
	{ "ip fragment offset", NET_DROP_IP_FRAGMENT, d_ip_fragment_offset },
	{ "ip source broadcast", NET_DROP_IP_SOURCE, d_ip_source_broadcast },
	{ "ip source loopback", NET_DROP_IP_SOURCE, d_ip_source_loopback },
	{ "ip source ours", NET_DROP_IP_SOURCE, d_ip_source_ours },
	{ "ip not us", NET_DROP_IP_NOT_US, d_ip_not_us },
	{ "ip protocol tcp", NET_DROP_IP_PROTOCOL, d_ip_protocol },
	{ "icmp short", NET_DROP_ICMP_SHORT, d_icmp_short },
	{ "icmp checksum", NET_DROP_ICMP_CHECKSUM, d_icmp_checksum },
	{ "icmp type", NET_DROP_ICMP_TYPE, d_icmp_type },
	{ "icmp echo to broadcast", NET_DROP_ICMP_TYPE, d_icmp_to_broadcast },
	{ "udp short", NET_DROP_UDP_LENGTH, d_udp_short },
	{ "udp length field", NET_DROP_UDP_LENGTH, d_udp_length_field },
	{ "udp length below header", NET_DROP_UDP_LENGTH, d_udp_length_below_header },
	{ "udp checksum", NET_DROP_UDP_CHECKSUM, d_udp_checksum },
	{ "udp port", NET_DROP_UDP_PORT, d_udp_port },
	{ "udpsh denied", NET_DROP_UDPSH_DENIED, d_udpsh_denied },
	{ "udpsh busy", NET_DROP_UDPSH_BUSY, d_udpsh_busy },
};

#define NDROP_CASES (sizeof(drop_cases) / sizeof(drop_cases[0]))

/* Each case: exactly one drop, of its reason; nothing sent. */
CHECK_LOOP_TEST("drops", test_drop_counted_by_reason_nothing_sent,
		0, (int)NDROP_CASES)
{
	const struct drop_case *c = &drop_cases[_i];
	struct net_stats s;
	size_t n;

	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	n = c->build(frame);
	fake_netdev_clear();
	rx(n);
	s = stats();
	ck_assert_msg(s.drops[c->reason] == 1, "%s: %s counted %llu", c->what,
		      net_drop_name(c->reason), (unsigned long long)s.drops[c->reason]);
	ck_assert_msg(net_stats_drops(&s) == 1, "%s: %llu drops in all", c->what,
		      (unsigned long long)net_stats_drops(&s));
	/* Busy is answered (one short datagram); nothing else is. */
	ck_assert_msg(fake_netdev_nsent == (c->reason == NET_DROP_UDPSH_BUSY),
		      "%s: %u frames sent", c->what, fake_netdev_nsent);
}
END_TEST

/* Frames the platform lost before net_rx(), each its own drop reason. */
static const struct lost_case {
	enum net_rx_loss lost;
	enum net_drop reason;
} lost_cases[] = {
	{ NET_RX_LOST_OVERFLOW, NET_DROP_DEV_OVERFLOW },
	{ NET_RX_LOST_SHORT, NET_DROP_DEV_SHORT },
	{ NET_RX_LOST_BAD_BUFFER, NET_DROP_DEV_BAD_BUFFER },
};

#define NLOST_CASES (sizeof(lost_cases) / sizeof(lost_cases[0]))

CHECK_LOOP_TEST("drops", test_device_loss_counted_by_reason,
		0, (int)NLOST_CASES)
{
	const struct lost_case *c = &lost_cases[_i];
	struct net_stats s;

	net_rx_lost(c->lost, 3);
	s = stats();
	ck_assert_uint_eq(s.drops[c->reason], 3);
	ck_assert_uint_eq(net_stats_drops(&s), 3);
	ck_assert_uint_eq(s.rx_frames, 0);
	ck_assert_uint_eq(fake_netdev_nsent, 0);
}
END_TEST

CHECK_TEST("drops", test_drop_reasons_all_covered_and_named)
{
	bool seen[NET_DROP_COUNT] = { false };

	for (unsigned i = 0; i < NDROP_CASES; i++)
		seen[drop_cases[i].reason] = true;
	for (unsigned i = 0; i < NLOST_CASES; i++)
		seen[lost_cases[i].reason] = true;
	for (unsigned r = 0; r < NET_DROP_COUNT; r++) {
		ck_assert_msg(seen[r], "no test case for %s", net_drop_name((enum net_drop)r));
		ck_assert_str_ne(net_drop_name((enum net_drop)r), "?");
	}
	ck_assert_str_eq(net_drop_name(NET_DROP_COUNT), "?");
}
END_TEST

/* --- UDP ------------------------------------------------------------ */

static struct udp_dgram got;
static char got_data[2048];
static unsigned got_n;

static void record(void *ctx, const struct udp_dgram *d)
{
	ck_assert_ptr_eq(ctx, &got_n);
	got = *d;
	memcpy(got_data, d->data, d->len);
	got.data = (const uint8_t *)got_data;
	got_n++;
}

CHECK_TEST("udp", test_udp_delivered_to_bound_port)
{
	ck_assert_int_eq(udp_bind(7000, record, &got_n), 0);
	rx(udp_gw(frame, 7000, "hello"));
	ck_assert_uint_eq(got_n, 1);
	ck_assert_uint_eq(got.src, GW_IP);
	ck_assert_uint_eq(got.dst, OUR_IP);
	ck_assert_uint_eq(got.sport, CLIENT_PORT);
	ck_assert_uint_eq(got.dport, 7000);
	ck_assert_uint_eq(got.len, 5);
	ck_assert_mem_eq(got_data, "hello", 5);
	ck_assert_uint_eq(stats().rx_udp, 1);
	udp_unbind(7000);
	rx(udp_gw(frame, 7000, "again"));
	ck_assert_uint_eq(got_n, 1);
	ck_assert_uint_eq(stats().drops[NET_DROP_UDP_PORT], 1);
}
END_TEST

CHECK_TEST("udp", test_udp_bind_twice_busy)
{
	ck_assert_int_eq(udp_bind(7000, record, &got_n), 0);
	ck_assert_int_eq(udp_bind(7000, record, &got_n), -EBUSY);
	ck_assert_int_eq(udp_bind(0, record, &got_n), -EINVAL);
}
END_TEST

CHECK_TEST("udp", test_udp_bind_table_full_nospc)
{
	int err = 0;
	unsigned n = 0;

	while ((err = udp_bind((uint16_t)(7000 + n), record, &got_n)) == 0)
		n++;
	ck_assert_int_eq(err, -ENOSPC);
	ck_assert_uint_eq(n, 8);
}
END_TEST

CHECK_TEST("udp", test_udp_checksum_zero_accepted)
{
	ck_assert_int_eq(udp_bind(7000, record, &got_n), 0);
	rx(udp_from(frame, gw_mac, GW_IP, 1, 7000, "nocsum", 6, false));
	ck_assert_uint_eq(got_n, 1);
	ck_assert_uint_eq(got.len, 6);
}
END_TEST

/* A minimum-size frame carries padding past the IPv4 total length. */
CHECK_TEST("udp", test_udp_padded_frame_uses_ip_length)
{
	size_t n;

	ck_assert_int_eq(udp_bind(7000, record, &got_n), 0);
	n = udp_gw(frame, 7000, "ab");
	ck_assert_uint_lt(n, 60);
	memset(frame + n, 0xee, 60 - n);
	rx(60);
	ck_assert_uint_eq(got_n, 1);
	ck_assert_uint_eq(got.len, 2);
}
END_TEST

CHECK_TEST("udp", test_udp_to_subnet_broadcast_delivered)
{
	size_t n;

	ck_assert_int_eq(udp_bind(7000, record, &got_n), 0);
	n = udp_gw(frame, 7000, "all");
	memcpy(frame, bcast_mac, 6);
	put32(frame + 14 + 16, 0x0a0002ffu);
	ip_fix_csum(frame);
	put16(frame + 34 + 6, 0);	/* the checksum covered the old address */
	rx(n);
	ck_assert_uint_eq(got_n, 1);
	ck_assert_uint_eq(got.dst, 0x0a0002ffu);
}
END_TEST

CHECK_TEST("udp", test_udp_send_on_link_frame_correct)
{
	struct sent_udp s;

	learn_gw();
	ck_assert_int_eq(udp_send(GW_IP, 1234, 5678, "payload", 7), 0);
	ck_assert_uint_eq(fake_netdev_nsent, 1);
	s = sent_udp(0);
	ck_assert_mem_eq(s.eth_dst, gw_mac, 6);
	ck_assert_uint_eq(s.src, OUR_IP);
	ck_assert_uint_eq(s.dst, GW_IP);
	ck_assert_uint_eq(s.sport, 1234);
	ck_assert_uint_eq(s.dport, 5678);
	ck_assert_uint_eq(s.len, 7);
	ck_assert_mem_eq(s.data, "payload", 7);
	ck_assert_uint_eq(fake_netdev_sent[0].len, 60);	/* padded */
	ck_assert_uint_eq(stats().tx_frames, 2);	/* the ARP reply, then this */
}
END_TEST

CHECK_TEST("udp", test_udp_send_off_link_via_gateway)
{
	struct sent_udp s;

	learn_gw();
	ck_assert_int_eq(udp_send(FAR_IP, 1, 2, "far", 3), 0);
	s = sent_udp(0);
	ck_assert_mem_eq(s.eth_dst, gw_mac, 6);
	ck_assert_uint_eq(s.dst, FAR_IP);
}
END_TEST

CHECK_TEST("udp", test_udp_send_off_link_without_gateway_no_route)
{
	ck_assert_int_eq(net_config_word("gw", "none", NULL), 0);
	ck_assert_int_eq(udp_send(FAR_IP, 1, 2, "far", 3), -EINVAL);
	ck_assert_uint_eq(fake_netdev_nsent, 0);
	ck_assert_uint_eq(stats().tx_no_route, 1);
}
END_TEST

CHECK_TEST("udp", test_udp_send_broadcast_needs_no_arp)
{
	struct sent_udp s;

	ck_assert_int_eq(udp_send(0xffffffffu, 1, 2, "b", 1), 0);
	s = sent_udp(0);
	ck_assert_mem_eq(s.eth_dst, bcast_mac, 6);
}
END_TEST

CHECK_TEST("udp", test_udp_send_largest_fits_one_frame)
{
	static char big[1473];

	learn_gw();
	memset(big, 'z', sizeof(big));
	ck_assert_int_eq(udp_send(GW_IP, 1, 2, big, 1473), -E2BIG);
	ck_assert_int_eq(udp_send(GW_IP, 1, 2, big, 1472), 0);
	ck_assert_uint_eq(fake_netdev_sent[0].len, 1514);
	ck_assert_uint_eq(sent_udp(0).len, 1472);
}
END_TEST

CHECK_TEST("udp", test_udp_send_device_error_counted)
{
	learn_gw();
	fake_netdev_send_error = -EAGAIN;
	ck_assert_int_eq(udp_send(GW_IP, 1, 2, "x", 1), -EAGAIN);
	ck_assert_uint_eq(stats().tx_failed, 1);
	ck_assert_uint_eq(stats().tx_frames, 1);	/* learn_gw()'s ARP reply only */
}
END_TEST

/* --- configuration words -------------------------------------------- */

static char errbuf[512];
static struct out_buf eb;

static struct out *err_out(void)
{
	out_buf_init(&eb, errbuf, sizeof(errbuf));
	return &eb.out;
}

CHECK_TEST("config", test_config_defaults)
{
	const struct net_config *c = net_config();
	const struct udpsh_config *u = udpsh_config();

	ck_assert_uint_eq(c->ip, OUR_IP);
	ck_assert_uint_eq(c->prefix, 24);
	ck_assert_uint_eq(c->gw, GW_IP);
	ck_assert_uint_eq(u->port, 5555);
	ck_assert_str_eq(u->allow, "10.0.2.2/32");
}
END_TEST

CHECK_TEST("config", test_config_ip_with_gw_taken)
{
	ck_assert_int_eq(net_config_word("ip", "192.168.7.20/16,gw=192.168.0.1", err_out()), 0);
	ck_assert_str_eq(errbuf, "");
	ck_assert_uint_eq(net_config()->ip, 0xc0a80714u);
	ck_assert_uint_eq(net_config()->prefix, 16);
	ck_assert_uint_eq(net_config()->gw, 0xc0a80001u);
}
END_TEST

CHECK_TEST("config", test_config_ip_without_prefix_is_24)
{
	ck_assert_int_eq(net_config_word("ip", "10.0.2.30", err_out()), 0);
	ck_assert_uint_eq(net_config()->prefix, 24);
	ck_assert_uint_eq(net_config()->gw, GW_IP);	/* still on the subnet */
}
END_TEST

CHECK_TEST("config", test_config_ip_new_subnet_drops_old_gateway)
{
	ck_assert_int_eq(net_config_word("ip", "192.168.1.5/24", err_out()), 0);
	ck_assert_str_eq(errbuf, "net: gateway 10.0.2.2 is outside 192.168.1.5/24; no gateway\n");
	ck_assert_uint_eq(net_config()->gw, 0);
}
END_TEST

static const char *const bad_ip[] = {
	"300.1.1.1", "10.0.2.0/24", "10.0.2.255/24", "10.0.2.15/31", "10.0.2.15/0",
	"10.0.2.15/", "127.0.0.1/8", "224.0.0.5/24", "0.0.0.1/8", "10.0.2.15/24,gw=10.0.3.1",
	"10.0.2.15/24,gw=10.0.2.15", "10.0.2.15/24,xx=1", "", "10.0.2.15/24,gw=",
	"10.0.2.15 ", "10.0.2.15/24,gw=10.0.2.2,gw=10.0.2.3",
};

CHECK_LOOP_TEST("config", test_config_bad_ip_reported_default_kept,
		0, (int)(sizeof(bad_ip) / sizeof(bad_ip[0])))
{
	ck_assert_int_eq(net_config_word("ip", bad_ip[_i], err_out()), -EINVAL);
	ck_assert_msg(strncmp(errbuf, "net: ip=", 8) == 0, "%s: got '%s'", bad_ip[_i], errbuf);
	ck_assert_ptr_nonnull(strstr(errbuf, "keeping 10.0.2.15/24\n"));
	ck_assert_uint_eq(strchr(errbuf, '\n') - errbuf + 1, strlen(errbuf));
	ck_assert_uint_eq(net_config()->ip, OUR_IP);
	ck_assert_uint_eq(net_config()->prefix, 24);
	ck_assert_uint_eq(net_config()->gw, GW_IP);
}
END_TEST

CHECK_TEST("config", test_config_gw_outside_subnet_refused)
{
	ck_assert_int_eq(net_config_word("gw", "10.0.3.1", err_out()), -EINVAL);
	ck_assert_str_eq(errbuf, "net: gw=10.0.3.1 is not an address inside 10.0.2.15/24 (or none); keeping 10.0.2.2\n");
	ck_assert_uint_eq(net_config()->gw, GW_IP);
	ck_assert_int_eq(net_config_word("gw", "10.0.2.1", err_out()), 0);
	ck_assert_uint_eq(net_config()->gw, 0x0a000201u);
}
END_TEST

CHECK_TEST("config", test_config_udpsh_port)
{
	ck_assert_int_eq(udpsh_config_word("udpsh", "0", err_out()), -EINVAL);
	ck_assert_str_eq(errbuf, "net: udpsh=0 is not a port 1-65535 or off; keeping 5555\n");
	ck_assert_int_eq(udpsh_config_word("udpsh", "65536", err_out()), -EINVAL);
	ck_assert_int_eq(udpsh_config_word("udpsh", "-1", err_out()), -EINVAL);
	ck_assert_uint_eq(udpsh_config()->port, 5555);
	ck_assert_int_eq(udpsh_config_word("udpsh", "6000", err_out()), 0);
	ck_assert_uint_eq(udpsh_config()->port, 6000);
	ck_assert_int_eq(udpsh_config_word("udpsh", "off", err_out()), 0);
	ck_assert_uint_eq(udpsh_config()->port, 0);
}
END_TEST

CHECK_TEST("config", test_config_udpsh_allow)
{
	ck_assert_int_eq(udpsh_config_word("udpsh.allow", "10.0.2.1/24", err_out()), -EINVAL);
	ck_assert_str_eq(errbuf, "net: udpsh.allow=10.0.2.1/24 is not CIDR[,CIDR] (at most 8, host bits zero); keeping 10.0.2.2/32\n");
	ck_assert_int_eq(udpsh_config_word("udpsh.allow", "10.0.2.0/24,127.0.0.1", err_out()), 0);
	ck_assert_str_eq(udpsh_config()->allow, "10.0.2.0/24,127.0.0.1/32");
	ck_assert_str_eq(errbuf, "");
}
END_TEST

CHECK_TEST("config", test_config_udpsh_allow_everyone_warned)
{
	ck_assert_int_eq(udpsh_config_word("udpsh.allow", "0.0.0.0/0", err_out()), 0);
	ck_assert_str_eq(udpsh_config()->allow, "0.0.0.0/0");
	ck_assert_str_eq(errbuf, "net: warning: udpsh.allow=0.0.0.0/0 admits every address; "
			 "only udpsh.key keeps others out\n");
	ck_assert_int_eq(udpsh_config_word("udpsh.allow", "10.0.2.2/32,0.0.0.0/0", err_out()), 0);
	ck_assert_str_eq(errbuf, "net: warning: udpsh.allow=10.0.2.2/32,0.0.0.0/0 admits every "
			 "address; only udpsh.key keeps others out\n");
	ck_assert_int_eq(udpsh_config_word("udpsh.allow", "128.0.0.0/1", err_out()), 0);
	ck_assert_str_eq(errbuf, "");
}
END_TEST

CHECK_TEST("config", test_config_unknown_key_enoent_silent)
{
	ck_assert_int_eq(net_config_word("cmd", "ps", err_out()), -ENOENT);
	ck_assert_int_eq(net_config_word("ipx", "1", err_out()), -ENOENT);
	ck_assert_str_eq(errbuf, "");
}
END_TEST

CHECK_TEST("config", test_config_ip_used_by_stack)
{
	uint8_t mac[6];

	ck_assert_int_eq(net_config_word("ip", "10.0.2.16/24", err_out()), 0);
	rx(arp(frame, 1, gw_mac, GW_IP, OUR_IP, bcast_mac));
	ck_assert_uint_eq(fake_netdev_nsent, 0);
	rx(arp(frame, 1, gw_mac, GW_IP, 0x0a000210u, bcast_mac));
	ck_assert_uint_eq(fake_netdev_nsent, 1);
	ck_assert_uint_eq(get32(fake_netdev_sent[0].data + 14 + 14), 0x0a000210u);
	ck_assert(arp_lookup(GW_IP, mac));
}
END_TEST

/* --- the UDP shell on UDP ------------------------------------------- */

/* Concatenate the UDP payloads sent, each checked as a shell reply. */
static size_t replies(char *buf, size_t size, unsigned *ndgrams)
{
	size_t len = 0;

	*ndgrams = fake_netdev_nsent;
	ck_assert_uint_le(fake_netdev_nsent, FAKE_NETDEV_FRAMES);
	for (unsigned i = 0; i < fake_netdev_nsent; i++) {
		struct sent_udp s = sent_udp(i);

		ck_assert_uint_eq(s.dst, GW_IP);
		ck_assert_uint_eq(s.sport, SHELL_PORT);
		ck_assert_uint_eq(s.dport, CLIENT_PORT);
		ck_assert_uint_ge(s.len, 1);
		ck_assert_uint_le(s.len, UDPSH_DGRAM_MAX);
		ck_assert_uint_lt(len + s.len, size);
		memcpy(buf + len, s.data, s.len);
		len += s.len;
	}
	buf[len] = '\0';
	return len;
}

CHECK_TEST("udpsh", test_udpsh_round_trip_prompt_last)
{
	char buf[4096];
	unsigned n;

	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	rx(udp_gw(frame, SHELL_PORT, "echo hello world\n"));
	ck_assert_uint_eq(fake_netdev_nsent, 0);	/* queued, not run in net_rx */
	ck_assert_uint_eq(udpsh_net_run_queued(), 1);
	replies(buf, sizeof(buf), &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(buf, "hello world\n> ");
	ck_assert_uint_eq(udpsh_net_run_queued(), 0);
}
END_TEST

CHECK_TEST("udpsh", test_udpsh_long_output_split_at_lines)
{
	char buf[16384], expect[16384] = "";
	unsigned n;
	size_t off = 0;

	char cmd[64], *hint;
	size_t wire = 0;

	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	/* Keyless, the first answer is at most 3x the request on the wire,
	 * and says which cookie gets the whole reply (shell/udpsh/udpsh.h). */
	rx(udp_gw(frame, SHELL_PORT, "lines 100"));
	udpsh_net_run_queued();
	replies(buf, sizeof(buf), &n);
	for (unsigned i = 0; i < n; i++)
		wire += fake_netdev_sent[i].len - 14;
	ck_assert_uint_le(wire, 3 * (9 + 28));
	hint = strstr(buf, "cookie @");
	ck_assert_msg(hint && strlen(hint) == 8 + 16 + strlen(": start the request with it\n> "),
		      "got %s", buf);
	snprintf(cmd, sizeof(cmd), "@%.16s lines 100", hint + 8);
	fake_netdev_clear();
	rx(udp_gw(frame, SHELL_PORT, cmd));
	udpsh_net_run_queued();
	replies(buf, sizeof(buf), &n);
	for (int i = 0; i < 100; i++)
		sprintf(expect + strlen(expect), "line %04d ..............................\n", i);
	strcat(expect, "> ");
	ck_assert_str_eq(buf, expect);
	/* 4100 bytes of 41-byte lines: 35 whole lines a datagram (1435
	 * bytes), the prompt with the last 30. */
	ck_assert_uint_eq(n, 3);
	for (unsigned i = 0; i < n; i++) {
		struct sent_udp s = sent_udp(i);

		if (i + 1 < n) {
			ck_assert_uint_eq(s.len, 35 * 41);
			ck_assert_int_eq(s.data[s.len - 1], '\n');
		} else {
			ck_assert_uint_eq(s.len, 30 * 41 + 2);
			ck_assert_mem_eq(s.data + s.len - 2, "> ", 2);
		}
		off += s.len;
	}
	ck_assert_uint_eq(off, 4102);
}
END_TEST

CHECK_TEST("udpsh", test_udpsh_empty_datagram_prompt_only)
{
	char buf[64];
	unsigned n;

	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	rx(udp_gw(frame, SHELL_PORT, ""));
	udpsh_net_run_queued();
	replies(buf, sizeof(buf), &n);
	ck_assert_str_eq(buf, "> ");
}
END_TEST

CHECK_TEST("udpsh", test_udpsh_allowlist_refuses_then_admits)
{
	char buf[256];
	unsigned n;

	learn_gw();
	rx(arp(frame, 1, peer_mac, PEER_IP, OUR_IP, bcast_mac));
	fake_netdev_clear();
	ck_assert_int_eq(udpsh_net_open(), 0);
	rx(udp_from(frame, peer_mac, PEER_IP, CLIENT_PORT, SHELL_PORT, "echo hi", 7, true));
	ck_assert_uint_eq(udpsh_net_run_queued(), 0);
	ck_assert_uint_eq(fake_netdev_nsent, 0);
	ck_assert_uint_eq(stats().drops[NET_DROP_UDPSH_DENIED], 1);

	ck_assert_int_eq(udpsh_config_word("udpsh.allow", "10.0.2.8/29", err_out()), 0);
	ck_assert_int_eq(udpsh_net_open(), -EBUSY);	/* already bound */
	udp_unbind(SHELL_PORT);
	ck_assert_int_eq(udpsh_net_open(), 0);
	rx(udp_from(frame, peer_mac, PEER_IP, CLIENT_PORT, SHELL_PORT, "echo hi", 7, true));
	ck_assert_uint_eq(udpsh_net_run_queued(), 1);
	ck_assert_uint_eq(fake_netdev_nsent, 1);
	ck_assert_uint_eq(sent_udp(0).dst, PEER_IP);
	memcpy(buf, sent_udp(0).data, sent_udp(0).len);
	buf[sent_udp(0).len] = '\0';
	ck_assert_str_eq(buf, "hi\n> ");
	(void)n;
	/* The gateway is no longer in the list. */
	rx(udp_gw(frame, SHELL_PORT, "echo gw"));
	ck_assert_uint_eq(udpsh_net_run_queued(), 0);
	ck_assert_uint_eq(stats().drops[NET_DROP_UDPSH_DENIED], 2);
}
END_TEST

CHECK_TEST("udpsh", test_udpsh_queue_full_drops_then_recovers)
{
	char buf[1024];
	unsigned n;

	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	for (int i = 0; i < UDPSH_NET_QUEUE + 2; i++)
		rx(udp_gw(frame, SHELL_PORT, "echo q"));
	ck_assert_uint_eq(stats().drops[NET_DROP_UDPSH_BUSY], 2);
	/* The two that did not fit heard "busy" at once. */
	replies(buf, sizeof(buf), &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(buf, "busybusy");
	fake_netdev_clear();
	ck_assert_uint_eq(udpsh_net_run_queued(), UDPSH_NET_QUEUE);
	replies(buf, sizeof(buf), &n);
	ck_assert_uint_eq(n, UDPSH_NET_QUEUE);
	fake_netdev_clear();
	rx(udp_gw(frame, SHELL_PORT, "echo again"));
	ck_assert_uint_eq(udpsh_net_run_queued(), 1);
	replies(buf, sizeof(buf), &n);
	ck_assert_str_eq(buf, "again\n> ");
}
END_TEST

CHECK_TEST("udpsh", test_udpsh_off_binds_nothing)
{
	ck_assert_int_eq(udpsh_config_word("udpsh", "off", err_out()), 0);
	ck_assert_int_eq(udpsh_net_open(), 0);
	rx(udp_gw(frame, SHELL_PORT, "echo x"));
	ck_assert_uint_eq(stats().drops[NET_DROP_UDP_PORT], 1);
}
END_TEST

CHECK_TEST("udpsh", test_udpsh_reply_without_arp_entry_counted)
{
	struct udpsh_stats u;

	ck_assert_int_eq(udpsh_net_open(), 0);
	/* No ARP entry for the gateway (never learnt). */
	rx(udp_gw(frame, SHELL_PORT, "echo x"));
	udpsh_net_run_queued();
	udpsh_net_stats(&u);
	ck_assert_uint_eq(u.datagrams_in, 1);
	ck_assert_uint_eq(u.send_failed, 1);
	ck_assert_uint_eq(stats().tx_no_arp, 1);
	/* Instead an ARP request for it went out. */
	ck_assert_uint_eq(fake_netdev_nsent, 1);
	ck_assert_uint_eq(get16(fake_netdev_sent[0].data + 12), 0x0806);
}
END_TEST

/* --- ARP against poisoning and the keyed shell ------------------------ */


/* The first reply to our request moves an entry a request to us made;
 * a second reply naming another MAC disputes it (refused, counted). */
CHECK_TEST("udpsh", test_arp_solicited_reply_moves_entry_second_disputes)
{
	learn_gw();
	arp_request(GW_IP);
	rx(arp(frame, 2, peer_mac, GW_IP, OUR_IP, bcast_mac));
	ck_assert(mac_of(GW_IP, peer_mac));
	rx(arp(frame, 2, gw_mac, GW_IP, OUR_IP, bcast_mac));
	ck_assert(!mac_of(GW_IP, peer_mac));
	ck_assert(!mac_of(GW_IP, gw_mac));
	ck_assert_uint_eq(stats().drops[NET_DROP_ARP_SPOOF], 1);
}
END_TEST

CHECK_TEST("udpsh", test_arp_unsolicited_cannot_move_live_entry)
{
	learn_gw();
	rx(arp(frame, 2, peer_mac, GW_IP, OUR_IP, bcast_mac));	/* gratuitous reply */
	rx(arp(frame, 1, peer_mac, GW_IP, OUR_IP, bcast_mac));	/* request to us */
	rx(arp(frame, 1, peer_mac, GW_IP, 0x0a000209u, bcast_mac));	/* about another */
	ck_assert(mac_of(GW_IP, gw_mac));
	ck_assert_uint_eq(stats().drops[NET_DROP_ARP_SPOOF], 3);
	ck_assert_uint_eq(fake_netdev_nsent, 0);	/* the spoofed request got no reply */
}
END_TEST

/* An expired entry is not taken over by unsolicited packets;
 * the next send probes the MAC it had, and the real gateway's answer
 * holds it again. */
CHECK_TEST("udpsh", test_arp_expired_entry_not_taken_over_probe_restores)
{
	learn_gw();
	fake_now_ns += ARP_TTL_NS;
	rx(arp(frame, 1, peer_mac, GW_IP, OUR_IP, bcast_mac));
	rx(arp(frame, 2, peer_mac, GW_IP, OUR_IP, bcast_mac));
	ck_assert(!mac_of(GW_IP, peer_mac));
	ck_assert_uint_eq(stats().drops[NET_DROP_ARP_SPOOF], 2);
	fake_netdev_clear();
	ck_assert_int_eq(udp_send(GW_IP, 1000, 2000, "x", 1), -EAGAIN);
	ck_assert_uint_eq(fake_netdev_nsent, 1);
	ck_assert_mem_eq(fake_netdev_sent[0].data, gw_mac, 6);	/* unicast probe */
	rx(arp(frame, 2, gw_mac, GW_IP, OUR_IP, our_mac));
	ck_assert(mac_of(GW_IP, gw_mac));
}
END_TEST

/* The ARP requests sent since the last fake_netdev_clear(): how many,
 * all broadcast, for @ip. */
static unsigned arp_broadcasts_for(uint32_t ip)
{
	unsigned n = 0;

	for (unsigned i = 0; i < fake_netdev_nsent; i++) {
		const uint8_t *f = fake_netdev_sent[i].data;

		if (get16(f + 12) != 0x0806 || get16(f + 14 + 6) != 1)
			continue;
		ck_assert_mem_eq(f, bcast_mac, 6);
		ck_assert_uint_eq(get32(f + 14 + 24), ip);
		n++;
	}
	return n;
}

/* First-answer lock-in: an attacker who answers our request
 * first no longer keeps the address.  The gateway's second answer
 * disputes it: neither MAC kept, one broadcast probe at once.  A probe
 * round that both answer leaves it disputed; asking within a round
 * sends nothing more; the next round, answered by the gateway alone,
 * gives it the address once the round is over. */
CHECK_TEST("udpsh", test_arp_two_answers_dispute_until_a_round_agrees)
{
	char buf[4096];
	struct out_buf ob;
	struct shell_ctx sh = { .out = &ob.out };
	struct arp_conflicts c;

	arp_request(GW_IP);
	rx(arp(frame, 2, peer_mac, GW_IP, OUR_IP, our_mac));	/* the attacker, first */
	ck_assert(mac_of(GW_IP, peer_mac));
	fake_netdev_clear();
	rx(arp(frame, 2, gw_mac, GW_IP, OUR_IP, our_mac));
	ck_assert(!mac_of(GW_IP, peer_mac) && !mac_of(GW_IP, gw_mac));
	ck_assert_uint_eq(arp_broadcasts_for(GW_IP), 1);
	arp_conflicts_read(&c);
	ck_assert_uint_eq(c.count, 1);
	ck_assert_uint_eq(c.last_ip, GW_IP);
	ck_assert(c.last_disputed);
	ck_assert_mem_eq(c.last_kept, peer_mac, 6);
	ck_assert_mem_eq(c.last_other, gw_mac, 6);
	/* Round 1: both answer, in either order. */
	rx(arp(frame, 2, gw_mac, GW_IP, OUR_IP, our_mac));
	rx(arp(frame, 2, peer_mac, GW_IP, OUR_IP, our_mac));
	fake_netdev_clear();
	arp_request(GW_IP);				/* within the round: nothing */
	ck_assert_uint_eq(arp_broadcasts_for(GW_IP), 0);
	fake_now_ns += ARP_ASKED_NS;
	ck_assert(!mac_of(GW_IP, peer_mac) && !mac_of(GW_IP, gw_mac));
	/* Round 2: the gateway alone; nothing kept before the round ends. */
	arp_request(GW_IP);
	ck_assert_uint_eq(arp_broadcasts_for(GW_IP), 1);
	rx(arp(frame, 2, gw_mac, GW_IP, OUR_IP, our_mac));
	rx(arp(frame, 2, gw_mac, GW_IP, OUR_IP, our_mac));
	ck_assert(!mac_of(GW_IP, gw_mac));
	fake_now_ns += ARP_ASKED_NS;
	ck_assert(mac_of(GW_IP, gw_mac));
	/* Settled: an unsolicited claim moves nothing. */
	rx(arp(frame, 2, peer_mac, GW_IP, OUR_IP, our_mac));
	ck_assert(mac_of(GW_IP, gw_mac));
	out_buf_init(&ob, buf, sizeof(buf));
	ck_assert_int_eq(shell_run_line(&sh, "net", 3), 0);
	ck_assert_msg(strstr(buf, "arp conflicts: 2 (last: 10.0.2.2 claimed by "
			      "52:55:0a:00:02:02 and 02:00:00:00:00:09; neither kept until a "
			      "probe's answers agree)\n"), "net said:\n%s", buf);
}
END_TEST

/* net.gw_mac=: a static entry that nothing replaces, before or after any
 * ARP traffic; claims for another MAC are conflicts. */
CHECK_TEST("udpsh", test_arp_static_gateway_never_replaced)
{
	struct arp_entry_info e[ARP_CACHE_SIZE + 1];
	struct arp_conflicts c;
	char text[32];

	snprintf(text, sizeof(text), "%02x:%02x:%02x:%02x:%02x:%02x", gw_mac[0], gw_mac[1],
		 gw_mac[2], gw_mac[3], gw_mac[4], gw_mac[5]);
	ck_assert_int_eq(net_config_word("net.gw_mac", text, err_out()), 0);
	ck_assert(mac_of(GW_IP, gw_mac));
	arp_request(GW_IP);
	ck_assert_uint_eq(fake_netdev_nsent, 0);	/* nothing to ask */
	rx(arp(frame, 2, peer_mac, GW_IP, OUR_IP, our_mac));
	rx(arp(frame, 1, peer_mac, GW_IP, OUR_IP, bcast_mac));
	fake_now_ns += 10 * ARP_TTL_NS;
	rx(arp(frame, 2, peer_mac, GW_IP, OUR_IP, bcast_mac));
	ck_assert(mac_of(GW_IP, gw_mac));
	arp_conflicts_read(&c);
	ck_assert_uint_eq(c.count, 3);
	ck_assert_uint_eq(arp_snapshot(e, ARP_CACHE_SIZE + 1), 1);
	ck_assert(e[0].is_static);
	/* Bad values change nothing. */
	ck_assert_int_eq(net_config_word("net.gw_mac", "ff:ff:ff:ff:ff:ff", err_out()), -EINVAL);
	ck_assert_str_eq(errbuf, "net: net.gw_mac=ff:ff:ff:ff:ff:ff is not a unicast MAC xx:xx:xx:xx:xx:xx; keeping the one given before\n");
	ck_assert_int_eq(net_config_word("net.gw_mac", "52:55:0a:00:02", err_out()), -EINVAL);
	ck_assert(mac_of(GW_IP, gw_mac));
	ck_assert_int_eq(net_config_word("net.arp_ttl", "0", err_out()), -EINVAL);
	ck_assert_str_eq(errbuf, "net: net.arp_ttl=0 is not 1-3600 seconds; keeping 60\n");
	ck_assert_int_eq(net_config_word("net.arp_ttl", "5", err_out()), 0);
	ck_assert_uint_eq(net_config()->arp_ttl_ns, 5000000000ull);
}
END_TEST

CHECK_TEST("udpsh", test_arp_off_subnet_sender_no_entry)
{
	struct arp_entry_info e[ARP_CACHE_SIZE];

	rx(arp(frame, 1, peer_mac, 0x0800c34cu, OUR_IP, bcast_mac));	/* 8.0.195.76 */
	rx(arp(frame, 2, peer_mac, FAR_IP, OUR_IP, bcast_mac));
	ck_assert_uint_eq(arp_snapshot(e, ARP_CACHE_SIZE), 0);
	ck_assert_uint_eq(stats().drops[NET_DROP_ARP_OFF_SUBNET], 2);
	ck_assert_uint_eq(fake_netdev_nsent, 0);
}
END_TEST

CHECK_TEST("udpsh", test_udpsh_firmware_key_wins_plain_refused)
{
	struct udpsh_stats u;

	fake_fw_key = "00112233445566778899aabbccddeeff\n";
	ck_assert_int_eq(udpsh_config_word("udpsh.key", "ffeeddccbbaa99887766554433221100", err_out()), 0);
	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	ck_assert(udpsh_net_keyed());
	rx(udp_gw(frame, SHELL_PORT, "echo forged"));
	ck_assert_uint_eq(udpsh_net_run_queued(), 0);
	ck_assert_uint_eq(fake_netdev_nsent, 0);
	udpsh_net_stats(&u);
	ck_assert_uint_eq(u.bad_mac, 1);
	fake_fw_key = NULL;
}
END_TEST

CHECK_TEST("udpsh", test_udpsh_bad_firmware_key_not_started)
{
	fake_fw_key = "not a key";
	ck_assert_int_eq(udpsh_net_open(), -EKEYREJECTED);
	/* One byte repeated is no secret: refused as a key that is not. */
	fake_fw_key = "0000000000000000000000000000000000000000000000000000000000000000\n";
	ck_assert_int_eq(udpsh_net_open(), -EKEYREJECTED);
	fake_fw_key = "abababababababababababababababab";
	ck_assert_int_eq(udpsh_net_open(), -EKEYREJECTED);
	fake_fw_key = NULL;
}
END_TEST

/* Boot the keyless shell again (the same guest entropy: fake_random) and
 * return the cookie its first cut reply to the gateway hands out. */
static const char *boot_cookie(void)
{
	static char cookie[17];
	char buf[4096], *hint;
	unsigned n;

	net_reset();
	udpsh_net_reset();
	fake_netdev_clear();
	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	rx(udp_gw(frame, SHELL_PORT, "lines 100"));
	udpsh_net_run_queued();
	replies(buf, sizeof(buf), &n);
	hint = strstr(buf, "cookie @");
	ck_assert_msg(hint != NULL, "no cookie in %s", buf);
	memcpy(cookie, hint + 8, 16);
	cookie[16] = '\0';
	return cookie;
}

/* The keyless cookie secret ignored the host seed, so two
 * boots under QEMU -seed 42 handed out the same cookie at the same
 * uptime.  The same guest entropy with another host seed gives another
 * cookie; the same seed, the same one. */
CHECK_TEST("udpsh", test_udpsh_cookie_secret_mixes_host_seed)
{
	char a[17], a2[17], b[17], none[17];

	fake_fw_seed = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n";
	strcpy(a, boot_cookie());
	ck_assert(udpsh_net_nonce_seeded());
	strcpy(a2, boot_cookie());
	fake_fw_seed = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100\n";
	strcpy(b, boot_cookie());
	fake_fw_seed = NULL;
	strcpy(none, boot_cookie());
	ck_assert(!udpsh_net_nonce_seeded());
	ck_assert_str_eq(a, a2);
	ck_assert_str_ne(a, b);
	ck_assert_str_ne(a, none);
	ck_assert_str_ne(b, none);
}
END_TEST

/* A keyed shell whose nonce had neither the CPU's generator nor a host
 * seed says so at boot, in one line; with either, no warning. */
CHECK_TEST("udpsh", test_udpsh_keyed_jitter_only_nonce_warned)
{
	static const char warn[] = "net: warning: udp shell boot nonce from cycle-counter jitter alone";
	char buf[1024];
	struct out_buf ob;

	ck_assert_int_eq(udpsh_config_word("udpsh.key", "ffeeddccbbaa99887766554433221100", err_out()), 0);
	learn_gw();
	fake_random = 0;
	ck_assert_int_eq(udpsh_net_open(), 0);
	out_buf_init(&ob, buf, sizeof(buf));
	udpsh_net_say_started(&ob.out, 0);
	ck_assert_msg(strstr(buf, warn) && strstr(buf, "opt/kprof/random.seed"), "said:\n%s", buf);
	ck_assert_msg(strstr(buf, "boot nonce from cycle-counter jitter\n"), "said:\n%s", buf);

	fake_fw_seed = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n";
	net_reset();
	udpsh_net_reset();
	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	out_buf_init(&ob, buf, sizeof(buf));
	udpsh_net_say_started(&ob.out, 0);
	ck_assert_msg(!strstr(buf, warn) && strstr(buf, "jitter and the host's seed\n"), "said:\n%s", buf);
	fake_fw_seed = NULL;

	fake_random = 0x0123456789abcdefull;
	net_reset();
	udpsh_net_reset();
	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	out_buf_init(&ob, buf, sizeof(buf));
	udpsh_net_say_started(&ob.out, 0);
	ck_assert_msg(!strstr(buf, warn) && strstr(buf, "the CPU's random number generator\n"),
		      "said:\n%s", buf);
}
END_TEST

/* Keyless is a choice made out loud: with neither a key nor
 * udpsh.key=none the shell does not start, and nothing answers. */
CHECK_TEST("udpsh", test_udpsh_without_key_or_none_not_started)
{
	udpsh_config_reset();
	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), -ENOKEY);
	rx(udp_gw(frame, SHELL_PORT, "uptime"));
	ck_assert_uint_eq(udpsh_net_run_queued(), 0);
	ck_assert_uint_eq(fake_netdev_nsent, 0);
	/* A weak key on the command line is refused, and changes nothing. */
	ck_assert_int_eq(udpsh_config_word("udpsh.key", "00000000000000000000000000000000", err_out()), -EINVAL);
	ck_assert_str_eq(errbuf, "net: udpsh.key= is one byte repeated, not a secret; no key\n");
	ck_assert_uint_eq(udpsh_config()->key_len, 0);
	ck_assert(!udpsh_config()->key_none);
	ck_assert_int_eq(udpsh_config_word("udpsh.key", "none", err_out()), 0);
	ck_assert_int_eq(udpsh_net_open(), 0);
	ck_assert(!udpsh_net_keyed());
}
END_TEST

CHECK_TEST("udpsh", test_udpsh_first_fragment_answered_rest_counted)
{
	char buf[256];
	unsigned n;
	size_t len;

	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	/* A 1500-byte command's first fragment: the UDP length says 1508. */
	len = udp_gw(frame, SHELL_PORT, "echo x");
	put16(frame + 14 + 6, 0x2000);			/* more fragments */
	put16(frame + 34 + 4, 8 + 1500);
	put16(frame + 34 + 6, 0);
	ip_fix_csum(frame);
	rx(len);
	put16(frame + 14 + 6, 0x00b9);			/* offset 1480 */
	ip_fix_csum(frame);
	rx(len);
	ck_assert_uint_eq(udpsh_net_run_queued(), 1);
	replies(buf, sizeof(buf), &n);
	ck_assert_str_eq(buf, "line longer than 255 bytes (got 1500); not run\n> ");
	ck_assert_uint_eq(stats().drops[NET_DROP_IP_FRAGMENT], 1);
}
END_TEST

/* --- net_start and the net command ----------------------------------- */

static void other_losses(struct udpsh_losses *l)
{
	l->queue_full = 88739;
	l->overflowed = 12;
}

CHECK_TEST("command", test_start_without_device_silent_down)
{
	char buf[256];
	struct out_buf ob;

	fake_netdev_present = false;
	out_buf_init(&ob, buf, sizeof(buf));
	net_start(&ob.out);
	udpsh_net_start(&ob.out);
	ck_assert_str_eq(buf, "");
	ck_assert(!net_is_up());
	ck_assert_uint_eq(fake_netdev_starts, 0);
}
END_TEST

CHECK_TEST("command", test_net_command_prints_counters_drops_arp)
{
	char buf[4096];
	struct out_buf ob;
	struct shell_ctx sh = { .out = &ob.out, .remote = true };

	learn_gw();
	rx(13);
	rx(udp_gw(frame, 9, "x"));
	out_buf_init(&ob, buf, sizeof(buf));
	ck_assert_int_eq(shell_run_line(&sh, "net", 3), 0);
	ck_assert_str_eq(buf,
		"net: down, 10.0.2.15/24 gw 10.0.2.2\n"
		"udp shell: not started\n"
		"frames: in 3 (116 bytes), out 1 (60 bytes)\n"
		"accepted: arp 1, ipv4 1, icmp 0, udp 0\n"
		"sent: arp requests 0, arp replies 1, echo replies 0\n"
		"not sent: no arp entry 0, no route 0, device refused 0\n"
		"drops: 2\n"
		"  runt           1\n"
		"  udp_port       1\n"
		"arp: 10.0.2.2        52:55:0a:00:02:02  0 s ago\n");
}
END_TEST

/* The first line of `net` about @buf's UDP shell. */
static const char *net_udpsh_line(char *buf, size_t size)
{
	struct out_buf ob;
	struct shell_ctx sh = { .out = &ob.out, .remote = true };
	char *line, *end;

	out_buf_init(&ob, buf, size);
	ck_assert_int_eq(shell_run_line(&sh, "net", 3), 0);
	line = strstr(buf, "udp shell: ");
	ck_assert_msg(line != NULL, "net said:\n%s", buf);
	end = strchr(line, '\n');
	ck_assert(end != NULL);
	*end = '\0';
	return line;
}

/* `net` described a shell that never started as
 * "unauthenticated" (a keyed ksim --udp, a kernel whose key was refused).
 * Only a shell that serves is described; the others are "not started". */
CHECK_TEST("command", test_net_command_says_not_started_unless_serving)
{
	char buf[4096];

	/* Keyed, never opened. */
	ck_assert_int_eq(udpsh_config_word("udpsh.key", "ffeeddccbbaa99887766554433221100", err_out()), 0);
	ck_assert_str_eq(net_udpsh_line(buf, sizeof(buf)), "udp shell: not started");
	ck_assert_ptr_null(strstr(buf + strlen(buf) + 1, "unauthenticated"));
	/* Opened with that key. */
	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	ck_assert_str_eq(net_udpsh_line(buf, sizeof(buf)),
			 "udp shell: port 5555, allow 10.0.2.2/32, authenticated (HMAC-SHA256)");
	/* A bad firmware key: not started, whatever it served before. */
	fake_fw_key = "not a key";
	ck_assert_int_eq(udpsh_net_open(), -EKEYREJECTED);
	fake_fw_key = NULL;
	ck_assert_str_eq(net_udpsh_line(buf, sizeof(buf)), "udp shell: not started");
	/* Keyless by choice, opened: unauthenticated, and warned. */
	net_reset();
	udpsh_net_reset();
	ck_assert_int_eq(udpsh_config_word("udpsh.key", "none", err_out()), 0);
	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	ck_assert_str_eq(net_udpsh_line(buf, sizeof(buf)),
			 "udp shell: port 5555, allow 10.0.2.2/32, unauthenticated");
	/* Off. */
	ck_assert_int_eq(udpsh_config_word("udpsh", "off", err_out()), 0);
	ck_assert_str_eq(net_udpsh_line(buf, sizeof(buf)), "udp shell: off");
}
END_TEST

CHECK_TEST("command", test_net_command_counts_frames_lost_below_the_stack)
{
	char buf[4096];
	struct out_buf ob;
	struct shell_ctx sh = { .out = &ob.out, .remote = true };

	net_rx_lost(NET_RX_LOST_OVERFLOW, 5);
	net_rx_lost(NET_RX_LOST_OVERFLOW, 1000);
	net_rx_lost(NET_RX_LOST_SHORT, 1);
	out_buf_init(&ob, buf, sizeof(buf));
	ck_assert_int_eq(shell_run_line(&sh, "net", 3), 0);
	/* Lost, not received: the frame counts stay at zero. */
	ck_assert_msg(strstr(buf, "frames: in 0 (0 bytes), out 0 (0 bytes)\n"
				  "accepted: arp 0, ipv4 0, icmp 0, udp 0\n"), "net said:\n%s", buf);
	ck_assert_msg(strstr(buf, "drops: 1006\n"
				  "  dev_overflow   1005\n"
				  "  dev_short      1\n"), "net said:\n%s", buf);
}
END_TEST

CHECK_TEST("command", test_net_command_shows_every_udp_shell_in_use)
{
	static struct udpsh other;
	char buf[4096];
	struct out_buf ob;
	struct shell_ctx sh = { .out = &ob.out, .remote = true };
	unsigned n;

	learn_gw();
	ck_assert_int_eq(udpsh_net_open(), 0);
	rx(udp_gw(frame, SHELL_PORT, "echo hello"));
	ck_assert_uint_eq(udpsh_net_run_queued(), 1);
	replies(buf, sizeof(buf), &n);
	/* A second shell on a transport of its own, as ksim --udp serves,
	 * with datagrams it lost before the shell saw them. */
	udpsh_init(&other, NULL, NULL);
	other.stats.datagrams_in = 7;
	other.stats.answered = 6;
	ck_assert_int_eq(udpsh_serving_add(&other, "loopback 9", other_losses), 0);
	out_buf_init(&ob, buf, sizeof(buf));
	ck_assert_int_eq(shell_run_line(&sh, "net", 3), 0);
	ck_assert_msg(strstr(buf,
		"udp shell (udp port 5555): 1 datagrams, 1 answered, 0 malformed, 0 replies not sent\n"
		"udp shell (udp port 5555): 0 bad mac, 0 stale, 0 busy, 0 cut short\n"
		"udp shell (udp port 5555): 0 tickets, 0 resent, 0 gone, 0 limited\n"
		"udp shell (udp port 5555): 0 replies ignored, 0 cut at 3x, 0 cookies\n"
		"udp shell (loopback 9): 7 datagrams, 6 answered, 0 malformed, 0 replies not sent\n"
		"udp shell (loopback 9): 0 bad mac, 0 stale, 0 busy, 0 cut short\n"
		"udp shell (loopback 9): 0 tickets, 0 resent, 0 gone, 0 limited\n"
		"udp shell (loopback 9): 0 replies ignored, 0 cut at 3x, 0 cookies\n"
		"udp shell (loopback 9): lost before the shell: 88739 queue full, 12 socket overflow\n"
		"arp: "), "net said:\n%s", buf);
}
END_TEST

CHECK_TEST("command", test_net_command_no_drops_empty_cache)
{
	char buf[4096];
	struct out_buf ob;
	struct shell_ctx sh = { .out = &ob.out, .remote = true };

	out_buf_init(&ob, buf, sizeof(buf));
	ck_assert_int_eq(shell_run_line(&sh, "net", 3), 0);
	ck_assert_ptr_nonnull(strstr(buf, "drops: none\n"));
	ck_assert_ptr_nonnull(strstr(buf, "arp: empty\n"));
	out_buf_init(&ob, buf, sizeof(buf));
	ck_assert_int_eq(shell_run_line(&sh, "net x", 5), SHELL_CMD_FAILED);
	ck_assert_str_eq(buf, "net: takes no arguments\n");
}
END_TEST

int main(void)
{
	return check_run(check_suite("net", setup, 0));
}
