/* SPDX-License-Identifier: BSD-2-Clause */
/* netload's iperf 2 format: the receiver's accounting of in-order,
 * missing, reordered, foreign and short datagrams, the final datagram,
 * jitter, the server report's bytes (built and parsed), the sender's
 * datagrams, integer rates, and the command's arguments. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "fake_netdev.h"
#include "hal/entry.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "net/net.h"
#include "shell/udpsh/net.h"
#include "net/iperf.h"
#include "net/netload.h"
#include "shell/netload_args.h"
#include "check_main.h"
#include "test_wire.h"

#define PEER 0x0a000202u
#define PEER_PORT 40000

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static struct netload_rx rx;
static uint8_t dg[1500];

/* A datagram of @size bytes with @id, sent at @sent_ns, arriving at
 * @now_ns. */
static bool feed(int32_t id, size_t size, uint64_t sent_ns, uint64_t now_ns)
{
	iperf_dgram_build(dg, size, id, sent_ns);
	return netload_rx_account(&rx, PEER, PEER_PORT, dg, size, now_ns);
}

static void setup(void)
{
	netload_rx_init(&rx);
}

CHECK_TEST("accounting", test_dgram_layout_iperf_header)
{
	iperf_dgram_build(dg, 20, -5, 12345678901234ull);
	ck_assert_uint_eq(be32(dg), 0xfffffffbu);
	ck_assert_uint_eq(be32(dg + 4), 12345);
	ck_assert_uint_eq(be32(dg + 8), 678901);
	ck_assert_uint_eq(be32(dg + 12), 0);
	ck_assert_uint_eq(be32(dg + 16), 0);
}
END_TEST

CHECK_TEST("accounting", test_rx_in_order_no_loss)
{
	for (int i = 1; i <= 10; i++)
		ck_assert(!feed(i, 100, (uint64_t)i * 1000000, (uint64_t)i * 1000000 + 500));
	ck_assert_uint_eq(rx.datagrams, 10);
	ck_assert_uint_eq(rx.bytes, 1000);
	ck_assert_uint_eq(rx.lost, 0);
	ck_assert_uint_eq(rx.out_of_order, 0);
	ck_assert_int_eq(rx.max_id, 10);
	ck_assert_uint_eq(rx.peer, PEER);
	ck_assert_uint_eq(rx.peer_port, PEER_PORT);
	ck_assert_int_eq(rx.jitter_ns, 0);
}
END_TEST

/* 1 2 3 5 4 7, final -8: 6 taken, 4 and 6 skipped when first missed
 * (iperf never takes a late one back off "lost"), 4 late. */
CHECK_TEST("accounting", test_rx_gaps_and_reordering_counted_as_iperf)
{
	static const int32_t ids[] = { 1, 2, 3, 5, 4, 7 };

	for (unsigned i = 0; i < 6; i++)
		ck_assert(!feed(ids[i], 100, 0, 1000));
	ck_assert_uint_eq(rx.datagrams, 6);
	ck_assert_uint_eq(rx.lost, 2);
	ck_assert_uint_eq(rx.out_of_order, 1);
	ck_assert_int_eq(rx.max_id, 7);
	ck_assert(feed(-8, 100, 0, 2000));
	ck_assert(rx.finished);
	ck_assert_uint_eq(rx.datagrams, 6);	/* the final one is not data */
	ck_assert_uint_eq(rx.bytes, 600);
}
END_TEST

CHECK_TEST("accounting", test_rx_duplicate_is_out_of_order)
{
	feed(1, 50, 0, 0);
	feed(2, 50, 0, 0);
	feed(2, 50, 0, 0);
	ck_assert_uint_eq(rx.datagrams, 3);
	ck_assert_uint_eq(rx.out_of_order, 1);
	ck_assert_uint_eq(rx.lost, 0);
}
END_TEST

CHECK_TEST("accounting", test_rx_first_id_late_start_counts_missing)
{
	feed(5, 50, 0, 0);
	ck_assert_uint_eq(rx.lost, 4);
}
END_TEST

CHECK_TEST("accounting", test_rx_id_zero_outside_ordering)
{
	feed(0, 50, 0, 0);
	feed(1, 50, 0, 0);
	ck_assert_uint_eq(rx.datagrams, 2);
	ck_assert_uint_eq(rx.lost, 0);
	ck_assert_uint_eq(rx.out_of_order, 0);
}
END_TEST

CHECK_TEST("accounting", test_rx_other_sender_and_short_ignored)
{
	feed(1, 100, 0, 0);
	iperf_dgram_build(dg, 100, 2, 0);
	ck_assert(!netload_rx_account(&rx, PEER, PEER_PORT + 1, dg, 100, 0));
	ck_assert(!netload_rx_account(&rx, PEER + 1, PEER_PORT, dg, 100, 0));
	ck_assert(!netload_rx_account(&rx, PEER, PEER_PORT, dg, 3, 0));
	ck_assert(!netload_rx_account(&rx, PEER, PEER_PORT, dg, 0, 0));
	ck_assert_uint_eq(rx.foreign, 2);
	ck_assert_uint_eq(rx.short_dgrams, 2);
	ck_assert_uint_eq(rx.datagrams, 1);
	/* A final datagram from a stranger is not ours to answer. */
	iperf_dgram_build(dg, 100, -2, 0);
	ck_assert(!netload_rx_account(&rx, PEER + 1, PEER_PORT, dg, 100, 0));
	ck_assert(!rx.finished);
}
END_TEST

/* The report goes once per stream: the sender's retry, and
 * data after the end, get nothing. */
CHECK_TEST("accounting", test_rx_final_answered_once_data_after_ignored)
{
	feed(1, 100, 0, 1000);
	ck_assert(feed(-2, 100, 0, 5000));
	ck_assert(!feed(-3, 100, 0, 9000));	/* the sender's retry */
	ck_assert_uint_eq(rx.finals, 2);
	ck_assert_uint_eq(rx.final_ns, 5000);	/* the first one ends it */
	ck_assert(!feed(2, 100, 0, 9500));
	ck_assert_uint_eq(rx.datagrams, 1);
	ck_assert_uint_eq(rx.foreign, 1);
}
END_TEST

/* A final before any data has no stream to report on (a forged
 * 4-byte final earned a 128-byte report); a stream whose data came from
 * two sources gets no report at all. */
CHECK_TEST("accounting", test_rx_no_report_without_stream_or_from_two_sources)
{
	ck_assert(!feed(-1, 16, 0, 0));
	ck_assert(!rx.started);
	ck_assert_uint_eq(rx.foreign, 1);
	netload_rx_init(&rx);
	feed(1, 100, 0, 1000);
	iperf_dgram_build(dg, 100, 2, 0);
	ck_assert(!netload_rx_account(&rx, PEER + 1, PEER_PORT, dg, 100, 2000));
	ck_assert(!feed(-3, 100, 0, 3000));
	ck_assert(rx.mixed);
	ck_assert(rx.finished);
}
END_TEST

/* RFC 1889: one transit change of 1.6 ms, then back: 100 us, then
 * 100 + (1600 - 100) / 16 = 193.75 us (integer ns). */
CHECK_TEST("accounting", test_rx_jitter_rfc1889)
{
	feed(1, 16, 0, 10000000);
	feed(2, 16, 1000000, 11000000);
	ck_assert_int_eq(rx.jitter_ns, 0);
	feed(3, 16, 2000000, 13600000);
	ck_assert_int_eq(rx.jitter_ns, 100000);
	feed(4, 16, 3000000, 13000000);
	ck_assert_int_eq(rx.jitter_ns, 193750);
}
END_TEST

CHECK_TEST("report", test_report_fields_at_iperf_offsets)
{
	uint8_t rep[IPERF_REPORT_LEN];
	static const int32_t ids[] = { 1, 2, 3, 5, 4, 7 };

	for (unsigned i = 0; i < 6; i++)
		feed(ids[i], 1470, 0, 1000000000ull + i);
	ck_assert(feed(-8, 1470, 0, 3250000000ull));
	ck_assert_uint_eq(netload_report_build(&rx, dg, 1470, rep), 128);
	/* The final datagram's header echoed. */
	ck_assert_mem_eq(rep, dg, 16);
	ck_assert_uint_eq(be32(rep + 16), 0x88000000u);
	ck_assert_uint_eq(be32(rep + 20), 0);
	ck_assert_uint_eq(be32(rep + 24), 6 * 1470);
	ck_assert_uint_eq(be32(rep + 28), 2);		/* 2.25 s from first to final */
	ck_assert_uint_eq(be32(rep + 32), 250000);
	/* Ids 1-7 sent, 6 never came: iperf prints 1/7 lost. */
	ck_assert_uint_eq(be32(rep + 36), 1);		/* lost: 2 gaps, 1 filled late */
	ck_assert_uint_eq(be32(rep + 40), 1);		/* out of order */
	ck_assert_uint_eq(be32(rep + 44), 7);		/* total: received + lost */
	for (unsigned off = 56; off < 116; off++)
		ck_assert_uint_eq(rep[off], 0);
	ck_assert_uint_eq(be32(rep + 116), 0);
	ck_assert_uint_eq(be32(rep + 120), 0);
	ck_assert_uint_eq(be32(rep + 124), 0);
}
END_TEST

/* A receiver that lost a known share: its report carries the total
 * (received + lost) and the lost, and the sender takes received = total
 * - lost, never the total. */
CHECK_TEST("report", test_report_received_is_total_less_lost)
{
	uint8_t rep[IPERF_REPORT_LEN];
	struct iperf_report r;
	unsigned got = 0;

	for (int32_t id = 1; id <= 100; id++)
		if (id % 5 != 3)	/* a fifth lost on the way */
			got += !feed(id, 1470, 0, 1000000ull * (uint64_t)id);
	ck_assert(feed(-101, 1470, 0, 200000000ull));
	netload_report_build(&rx, dg, 1470, rep);
	ck_assert_int_eq(iperf_report_parse(rep, sizeof(rep), &r), 0);
	ck_assert_uint_eq(got, 80);
	ck_assert_uint_eq(r.datagrams, 100);
	ck_assert_uint_eq(r.lost, 20);
	ck_assert_uint_eq(netload_report_received(&r), 80);
	ck_assert_uint_eq(r.bytes, 80 * 1470);
	/* A report claiming more lost than sent takes nothing. */
	r.lost = 101;
	ck_assert_uint_eq(netload_report_received(&r), 0);
}
END_TEST

CHECK_TEST("report", test_report_wide_counts_split)
{
	uint8_t rep[IPERF_REPORT_LEN];
	struct iperf_report r;

	rx.datagrams = 0x100000005ull;
	rx.lost = 0x200000003ull;		/* net of late arrivals: 0x100000002 */
	rx.out_of_order = 0x100000001ull;
	rx.bytes = 0x500000007ull;
	rx.jitter_ns = 1500002000;
	netload_report_build(&rx, dg, 0, rep);
	ck_assert_uint_eq(be32(rep + 0), 0);
	ck_assert_uint_eq(be32(rep + 20), 5);
	ck_assert_uint_eq(be32(rep + 24), 7);
	ck_assert_uint_eq(be32(rep + 44), 7);		/* total 0x200000007 */
	ck_assert_uint_eq(be32(rep + 124), 2);
	ck_assert_uint_eq(be32(rep + 36), 2);		/* lost 0x100000002 */
	ck_assert_uint_eq(be32(rep + 116), 1);
	ck_assert_uint_eq(be32(rep + 40), 1);
	ck_assert_uint_eq(be32(rep + 120), 1);
	ck_assert_uint_eq(be32(rep + 48), 1);
	ck_assert_uint_eq(be32(rep + 52), 500002);
	ck_assert_int_eq(iperf_report_parse(rep, sizeof(rep), &r), 0);
	ck_assert_uint_eq(r.datagrams, 0x200000007ull);
	ck_assert_uint_eq(r.lost, 0x100000002ull);
	ck_assert_uint_eq(r.out_of_order, 0x100000001ull);
	ck_assert_uint_eq(r.bytes, 0x500000007ull);
	ck_assert_uint_eq(r.jitter_sec, 1);
	ck_assert_uint_eq(r.jitter_usec, 500002);
}
END_TEST

CHECK_TEST("report", test_report_parse_refuses_short_or_unflagged)
{
	uint8_t rep[IPERF_REPORT_LEN];
	struct iperf_report r;

	netload_report_build(&rx, dg, 0, rep);
	ck_assert_int_eq(iperf_report_parse(rep, 55, &r), -EINVAL);
	ck_assert_int_eq(iperf_report_parse(rep, 56, &r), 0);
	rep[16] = 0;
	ck_assert_int_eq(iperf_report_parse(rep, sizeof(rep), &r), -EINVAL);
}
END_TEST

CHECK_TEST("accounting", test_rates_integer)
{
	ck_assert_uint_eq(netload_pps(1000, 1000000000ull), 1000);
	ck_assert_uint_eq(netload_pps(85, 500000000ull), 170);
	ck_assert_uint_eq(netload_pps(5, 0), 0);
	/* 1 250 000 bytes in 1 s: 10.00 Mbit/s. */
	ck_assert_uint_eq(netload_mbit100(1250000, 1000000000ull), 1000);
	/* 125 000 bytes in 1 s: 1.00 Mbit/s; 1470 bytes in 1 ms: 11.76. */
	ck_assert_uint_eq(netload_mbit100(125000, 1000000000ull), 100);
	ck_assert_uint_eq(netload_mbit100(1470, 1000000ull), 1176);
	ck_assert_uint_eq(netload_mbit100(1, 0), 0);
	/* A minute at 10 Gbit/s does not overflow. */
	ck_assert_uint_eq(netload_mbit100(75000000000ull, 60000000000ull), 1000000);
}
END_TEST

/* --- arguments --- */

static char errbuf[512];
static struct out_buf eb;

static int parse(const char *line, struct netload_args *a)
{
	static char copy[256];
	char *argv[16];
	int argc = 0;

	strcpy(copy, line);
	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	out_buf_init(&eb, errbuf, sizeof(errbuf));
	return netload_args_parse(argc, argv, a, &eb.out);
}

CHECK_TEST("args", test_args_recv)
{
	struct netload_args a;

	ck_assert_int_eq(parse("netload recv 5001 3000", &a), 0);
	ck_assert(!a.send);
	ck_assert_uint_eq(a.port, 5001);
	ck_assert_uint_eq(a.ms, 3000);
	ck_assert_str_eq(errbuf, "");
}
END_TEST

CHECK_TEST("args", test_args_send_defaults_and_suffixes)
{
	struct netload_args a;

	ck_assert_int_eq(parse("netload send 10.0.2.16 5001 1000", &a), 0);
	ck_assert(a.send);
	ck_assert_uint_eq(a.ip, 0x0a000210u);
	ck_assert_uint_eq(a.size, 1470);
	ck_assert_uint_eq(a.rate, 1000000);
	ck_assert_int_eq(parse("netload send 10.0.2.16 5001 1000 64 250k", &a), 0);
	ck_assert_uint_eq(a.size, 64);
	ck_assert_uint_eq(a.rate, 250000);
	ck_assert_int_eq(parse("netload send 10.0.2.16 5001 1000 1472 10G", &a), 0);
	ck_assert_uint_eq(a.rate, 10000000000ull);
	ck_assert_int_eq(parse("netload send 10.0.2.16 5001 1000 16 0", &a), 0);
	ck_assert_uint_eq(a.rate, 0);
}
END_TEST

static const struct {
	const char *line, *err;
} bad_args[] = {
	{ "netload", "netload: usage: netload recv PORT ms | netload send IP PORT ms [size] [rate]\n" },
	{ "netload recv 5001", "netload: usage: netload recv PORT ms | netload send IP PORT ms [size] [rate]\n" },
	{ "netload recv 0 1000", "netload: port must be 1-65535 (got '0')\n" },
	{ "netload recv 65536 1000", "netload: port must be 1-65535 (got '65536')\n" },
	{ "netload recv 5001 0", "netload: ms must be 1-60000 (got '0')\n" },
	{ "netload recv 5001 60001", "netload: ms must be 1-60000 (got '60001')\n" },
	{ "netload send 10.0.2 5001 1000", "netload: '10.0.2' is not an IPv4 address\n" },
	{ "netload send 10.0.2.16 5001 1000 15", "netload: size must be 16-1472 bytes (got '15')\n" },
	{ "netload send 10.0.2.16 5001 1000 1473", "netload: size must be 16-1472 bytes (got '1473')\n" },
	{ "netload send 10.0.2.16 5001 1000 100 11G",
	  "netload: rate must be bits/s up to 10G, with an optional k, M or G, or 0 for no limit (got '11G')\n" },
	{ "netload send 10.0.2.16 5001 1000 100 M",
	  "netload: rate must be bits/s up to 10G, with an optional k, M or G, or 0 for no limit (got 'M')\n" },
	{ "netload send 10.0.2.16 5001 1000 100 99999999999999999999999G",
	  "netload: rate must be bits/s up to 10G, with an optional k, M or G, or 0 for no limit (got '99999999999999999999999G')\n" },
	{ "netload send 10.0.2.16 5001 1000 100 1M x",
	  "netload: usage: netload recv PORT ms | netload send IP PORT ms [size] [rate]\n" },
	{ "netload bogus 1 2", "netload: usage: netload recv PORT ms | netload send IP PORT ms [size] [rate]\n" },
};

CHECK_LOOP_TEST("args", test_args_bad_one_line_error,
		0, (int)(sizeof(bad_args) / sizeof(bad_args[0])))
{
	struct netload_args a;

	ck_assert_int_eq(parse(bad_args[_i].line, &a), -EINVAL);
	ck_assert_str_eq(errbuf, bad_args[_i].err);
}
END_TEST

/* --- the command's window, on the stack with the fake device -------- */

#define OUR_IP 0x0a00020fu	/* 10.0.2.15, the default */
#define SHELL_PORT 5555		/* the UDP shell's default port */
#define LOAD_PORT 5001
#define TICK_NS 10000000ull

static const uint8_t our_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t peer_mac[6] = { 0x52, 0x55, 0x0a, 0x00, 0x02, 0x02 };
static uint8_t frame[1600];

/* A UDP datagram from PEER (the shell's allowed client) to @dport. */
static void rx_udp(uint16_t dport, const void *data, size_t len)
{
	uint8_t *ip = frame + 14, *u = frame + 34;
	uint32_t ps = (PEER >> 16) + (PEER & 0xffff) + (OUR_IP >> 16) +
		      (OUR_IP & 0xffff) + 17 + (uint32_t)(8 + len);
	uint16_t c;

	memcpy(frame, our_mac, 6);
	memcpy(frame + 6, peer_mac, 6);
	put16(frame + 12, 0x0800);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(28 + len));
	ip[8] = 64;
	ip[9] = 17;
	put32(ip + 12, PEER);
	put32(ip + 16, OUR_IP);
	put16(ip + 10, fold(sum16(0, ip, 20)));
	put16(u, PEER_PORT);
	put16(u + 2, dport);
	put16(u + 4, (uint16_t)(8 + len));
	put16(u + 6, 0);
	memcpy(u + 8, data, len);
	c = fold(sum16(ps, u, 8 + len));
	put16(u + 6, c ? c : 0xffff);
	net_rx(frame, 34 + 8 + len);
}

/* The UDP shell's task, which the test plays while it runs the command;
 * while it is switched away, every 50 ms one load datagram arrives and,
 * the first times, a command for the shell, which wakes the task. */
static struct task *shell_task;
static unsigned shell_cmds_left, load_sent;

static void play_window(void)
{
	static bool playing;

	if (playing || shell_task->state == TASK_RUNNING)
		return;
	playing = true;
	for (int i = 0; i < 100000 && shell_task->state != TASK_RUNNING; i++) {
		fake_tick(0, TICK_NS);
		if (i % 5 != 4)
			continue;
		iperf_dgram_build(dg, 100, (int32_t)++load_sent, fake_now_ns);
		rx_udp(LOAD_PORT, dg, 100);
		if (shell_cmds_left > 0) {
			shell_cmds_left--;
			rx_udp(SHELL_PORT, "uptime", 6);
		}
	}
	playing = false;
}

CHECK_TEST("window", test_recv_window_outlasts_shell_datagrams)
{
	static char text[4096];
	struct out_buf ob;
	struct netload_args a;
	unsigned long long n = 0;
	uint64_t t0;
	char *line;

	fake_now_ns = 1000000000ull;
	fake_cpu_boot(0);
	fake_netdev_present = true;
	net_config_reset();
	udpsh_config_reset();
	out_buf_init(&ob, text, sizeof(text));
	/* The plain protocol, chosen out loud (its shell datagrams). */
	ck_assert_int_eq(udpsh_config_word("udpsh.key", "none", &ob.out), 0);
	net_start(&ob.out);
	udpsh_net_start(&ob.out);
	/* The shell task udpsh_net_start() made runs from the next tick. */
	for (struct task *t = NULL; !t; t = cpus[0].current->is_idle ? NULL : cpus[0].current)
		fake_tick(0, TICK_NS);
	shell_task = cpus[0].current;
	ck_assert_str_eq(shell_task->name, "udpsh");
	shell_cmds_left = 3;
	fake_switch_hook = play_window;

	ck_assert_int_eq(parse("netload recv 5001 1000", &a), 0);
	out_buf_init(&ob, text, sizeof(text));
	t0 = fake_now_ns;
	ck_assert_int_eq(netload_recv(&ob.out, &a), 0);
	ck_assert_uint_ge(fake_now_ns - t0, 1000000000ull);
	ck_assert_uint_eq(shell_cmds_left, 0);
	line = strstr(text, "netload recv: ");
	ck_assert_ptr_nonnull(line);
	ck_assert_int_eq(sscanf(line, "netload recv: %llu datagrams", &n), 1);
	ck_assert_uint_eq(n, load_sent);
	ck_assert_uint_ge(n, 19);
}
END_TEST

CHECK_CASE("accounting", setup, NULL, 0);
CHECK_CASE("report", setup, NULL, 0);

int main(void)
{
	return check_run(check_suite("netload", NULL, 0));
}
