/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell core's admission and serving (src/shell/udpsh/admit.c):
 * a datagram is one command, with or without one line end; more than one
 * line, a control byte, a command too long or cut short runs nothing and
 * gets one line; serial-only commands never run over the network and,
 * keyless, commands that act beyond the reply are refused; a reply is
 * never answered (two shells cannot be set bouncing); busy is never
 * larger than the request; the counters count each outcome. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "fake_hal.h"
#include "lib/errno.h"
#include "check_main.h"
#include "udpsh_testlib.h"

/* --- request framing ------------------------------------------------ */

CHECK_TEST("framing", test_dgram_without_newline_runs)
{
	dgram("args a");
	assert_one_reply("2 [args] [a]\n> ");
}
END_TEST

CHECK_TEST("framing", test_dgram_with_lf_runs)
{
	dgram("args a\n");
	assert_one_reply("2 [args] [a]\n> ");
}
END_TEST

CHECK_TEST("framing", test_dgram_with_crlf_runs)
{
	dgram("args a\r\n");
	assert_one_reply("2 [args] [a]\n> ");
}
END_TEST

CHECK_TEST("framing", test_dgram_with_cr_runs)
{
	dgram("args a\r");
	assert_one_reply("2 [args] [a]\n> ");
}
END_TEST

CHECK_TEST("framing", test_dgram_reply_goes_to_source)
{
	ck_assert_int_eq(udpsh_allow_set(&u, "0.0.0.0/0"), 0);
	udpsh_input(&u, "args", 4, IP(192, 168, 7, 9), 5555);
	ck_assert_uint_eq(nsent, 1);
	ck_assert_uint_eq(sent[0].addr, IP(192, 168, 7, 9));
	ck_assert_uint_eq(sent[0].port, 5555);
}
END_TEST

CHECK_TEST("framing", test_dgram_empty_gets_prompt_only)
{
	udpsh_input(&u, "", 0, CLIENT, CLIENT_PORT);
	assert_one_reply("> ");
	ck_assert_uint_eq(u.stats.malformed, 0);
}
END_TEST

CHECK_TEST("framing", test_dgram_newline_only_gets_prompt_only)
{
	dgram("\n");
	dgram("\r\n");
	dgram(" \t\n");
	ck_assert_uint_eq(nsent, 3);
	ck_assert_str_eq(sent[0].data, "> ");
	ck_assert_str_eq(sent[1].data, "> ");
	ck_assert_str_eq(sent[2].data, "> ");
}
END_TEST

CHECK_TEST("framing", test_dgram_two_lines_refused)
{
	dgram("args a\nargs b");
	assert_one_reply("datagram holds more than one line; send one command per datagram\n> ");
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.malformed, 1);
}
END_TEST

CHECK_TEST("framing", test_dgram_two_terminated_lines_refused)
{
	dgram("args a\r\nargs b\r\n");
	assert_one_reply("datagram holds more than one line; send one command per datagram\n> ");
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

CHECK_TEST("framing", test_dgram_trailing_empty_line_refused)
{
	dgram("args a\n\n");
	assert_one_reply("datagram holds more than one line; send one command per datagram\n> ");
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

CHECK_TEST("framing", test_dgram_inner_cr_refused)
{
	dgram("args a\rargs b\n");
	assert_one_reply("datagram holds more than one line; send one command per datagram\n> ");
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

CHECK_TEST("framing", test_dgram_nul_refused)
{
	udpsh_input(&u, "args\0a\n", 7, CLIENT, CLIENT_PORT);
	assert_one_reply("line holds control byte 0x00 at column 5; not run\n> ");
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.malformed, 1);
}
END_TEST

CHECK_TEST("framing", test_dgram_trailing_nul_refused)
{
	udpsh_input(&u, "args\0", 5, CLIENT, CLIENT_PORT);
	assert_one_reply("line holds control byte 0x00 at column 5; not run\n> ");
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

CHECK_TEST("framing", test_dgram_control_byte_refused)
{
	dgram("args \x07\n");
	assert_one_reply("line holds control byte 0x07 at column 6; not run\n> ");
	ck_assert_uint_eq(u.stats.malformed, 1);
}
END_TEST

static void long_command(size_t len, const char *eol)
{
	char buf[400];

	memset(buf, 'x', len);
	memcpy(buf, "args ", 5);
	strcpy(buf + len, eol);
	dgram(buf);
}

CHECK_TEST("framing", test_dgram_255_byte_command_runs)
{
	long_command(255, "");
	ck_assert_uint_eq(nsent, 1);
	ck_assert_uint_eq(sent[0].len, strlen("2 [args] []\n> ") + 250);
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

CHECK_TEST("framing", test_dgram_255_byte_command_with_crlf_runs)
{
	long_command(255, "\r\n");
	ck_assert_uint_eq(nsent, 1);
	ck_assert_uint_eq(args_runs, 1);
	ck_assert_uint_eq(u.stats.malformed, 0);
}
END_TEST

CHECK_TEST("framing", test_dgram_256_byte_command_refused)
{
	long_command(256, "\n");
	assert_one_reply("line longer than 255 bytes (got 256); not run\n> ");
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.malformed, 1);
}
END_TEST

CHECK_TEST("framing", test_dgram_300_byte_command_refused)
{
	long_command(300, "");
	assert_one_reply("line longer than 255 bytes (got 300); not run\n> ");
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

CHECK_TEST("framing", test_dgram_too_many_words_refused)
{
	dgram("args 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n");
	assert_one_reply("too many words (got 17, at most 16); not run\n> ");
	ck_assert_uint_eq(u.stats.malformed, 1);
}
END_TEST

CHECK_TEST("framing", test_dgram_unknown_command_error)
{
	dgram("foo\n");
	assert_one_reply("unknown command 'foo'; try help\n> ");
	ck_assert_uint_eq(u.stats.malformed, 0);
	ck_assert_uint_eq(u.stats.answered, 1);
}
END_TEST

CHECK_TEST("framing", test_dgram_serial_only_refused)
{
	dgram("crash\n");
	assert_one_reply("crash: serial console only; not run over the network\n> ");
	ck_assert_uint_eq(crash_runs, 0);
}
END_TEST

CHECK_TEST("framing", test_dgram_help_omits_serial_only)
{
	dgram("help");
	assert_one_reply("help   list commands, or show one's usage\n"
			 "args   print the words\n"
			 "fill   N lines of LEN bytes\n"
			 "lines  lines of the given lengths\n"
			 "raw    LEN bytes, no newline\n"
			 "probe  datagrams sent while running\n"
			 "act    acts beyond the reply\n"
			 "> ");
}
END_TEST

/* --- counters ------------------------------------------------------- */

CHECK_TEST("stats", test_stats_count_each_outcome)
{
	dgram("args");				/* answered */
	dgram("args\nargs");			/* answered, malformed */
	dgram("nope");				/* answered */
	dgram_from("args", IP(10, 0, 3, 1));	/* dropped */
	dgram("crash");				/* answered, refused */
	ck_assert_uint_eq(u.stats.datagrams_in, 5);
	ck_assert_uint_eq(u.stats.answered, 4);
	ck_assert_uint_eq(u.stats.dropped_allow, 1);
	ck_assert_uint_eq(u.stats.malformed, 1);
	ck_assert_uint_eq(u.stats.send_failed, 0);
}
END_TEST

CHECK_TEST("stats", test_stats_count_send_failures)
{
	send_result = -EAGAIN;
	dgram("fill 3 1000");
	ck_assert_uint_eq(nsent, 3);
	ck_assert_uint_eq(u.stats.send_failed, 3);
	ck_assert_uint_eq(u.stats.answered, 1);
}
END_TEST

CHECK_TEST("plain", test_busy_plain_never_larger_than_request)
{
	struct udpsh_request rq;

	ck_assert(udpsh_admit(&u, "args a", 6, 6, CLIENT, CLIENT_PORT, &rq));
	udpsh_busy(&u, &rq);
	ck_assert(udpsh_admit(&u, "ab", 2, 2, CLIENT, CLIENT_PORT, &rq));
	udpsh_busy(&u, &rq);
	ck_assert(udpsh_admit(&u, "", 0, 0, CLIENT, CLIENT_PORT, &rq));
	udpsh_busy(&u, &rq);
	ck_assert_uint_eq(nsent, 2);
	/* The mark and "busy", cut to the request's size. */
	ck_assert_str_eq(sent[0].data, "busy");
	ck_assert_str_eq(sent[1].data, "b");
	ck_assert_uint_eq(u.stats.busy, 3);
}
END_TEST

CHECK_TEST("plain", test_plain_cut_short_reports_real_size)
{
	udpsh_input_sized(&u, "args", 4, 2000, CLIENT, CLIENT_PORT);
	assert_one_reply("line longer than 255 bytes (got 2000); not run\n> ");
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.cut_short, 1);
}
END_TEST

CHECK_TEST("plain", test_plain_acting_command_refused)
{
	/* Refused before it runs: the table does not mark it keyless. */
	dgram("act");
	assert_one_reply("act: needs a key; this UDP shell is unauthenticated (udpsh.key)\n> ");
	ck_assert(!refused_ran);
	/* Its usage changes nothing and is shown. */
	dgram("act --help");
	ck_assert(!refused_ran);
}
END_TEST

/* A reply (the mark first) is never answered, and counted. */
CHECK_TEST("plain", test_plain_reply_never_answered)
{
	dgram("\x1e" "args a\n> ");
	dgram("\x1e");
	ck_assert_uint_eq(nsent, 0);
	ck_assert_uint_eq(u.stats.replies_in, 2);
	ck_assert_uint_eq(u.stats.answered, 0);
}
END_TEST

/* Two keyless shells that allow each other, one forged datagram from
 * one to the other: the reply goes to the first, which ignores it. */
static struct udpsh pp[2];
static struct { int to; char d[UDPSH_DGRAM_MAX]; size_t len; } pp_q[64];
static unsigned pp_n;

static int pp_send(void *ctx, uint32_t addr, uint16_t port, const char *d, size_t len)
{
	(void)addr;
	(void)port;
	if (pp_n < 64) {
		pp_q[pp_n].to = (int)(intptr_t)ctx;
		memcpy(pp_q[pp_n].d, d, len);
		pp_q[pp_n++].len = len;
	}
	return 0;
}

CHECK_TEST("plain", test_plain_two_shells_no_ping_pong)
{
	unsigned hops = 0;

	/* Shell 0 at 10.0.0.1 sends to shell 1 at 10.0.0.2, and back. */
	udpsh_init(&pp[0], pp_send, (void *)(intptr_t)1);
	udpsh_init(&pp[1], pp_send, (void *)(intptr_t)0);
	ck_assert_int_eq(udpsh_allow_set(&pp[0], "10.0.0.2"), 0);
	ck_assert_int_eq(udpsh_allow_set(&pp[1], "10.0.0.1"), 0);
	pp_n = 0;
	udpsh_input(&pp[0], "args a", 6, 0x0a000002, 5555);
	for (unsigned i = 0; i < pp_n && hops < 100; i++, hops++)
		udpsh_input(&pp[pp_q[i].to], pp_q[i].d, pp_q[i].len,
			    pp_q[i].to ? 0x0a000001 : 0x0a000002, 5555);
	ck_assert_uint_eq(pp_n, 1);
	ck_assert_uint_eq(pp[1].stats.replies_in, 1);
	ck_assert_uint_eq(pp[1].stats.answered, 0);
}
END_TEST

CHECK_TEST("keyed", test_keyed_acting_command_allowed)
{
	setup_keyed();		/* the suite's fixture is keyless */
	auth_send(TEST_NONCE, ticket_for(1), 2, "act");
	ck_assert(refused_ran);
	ck_assert_mem_eq(sent[1].data + UDPSH_WIRE_HDR, "started\n> ", 10);
}
END_TEST

int main(void)
{
	return check_run(check_suite("udpsh_admit", setup, 0));
}
