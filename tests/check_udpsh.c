/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell core: framing of request datagrams, reply splitting at
 * lines and at UDPSH_DGRAM_MAX, the prompt last, the CIDR allowlist and
 * its edges, refusal of serial-only commands, the counters.  The
 * transport is a callback that records what would have been sent. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "kernel/random.h"
#include "lib/bytes.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "lib/sha256.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "shell/udpsh/udpsh.h"
#include "shell/udpsh/wire.h"
#include "check_main.h"
#include "shell_testcmds.h"

/* --- the recording transport ---------------------------------------- */

#define SENT_MAX 64

struct sent {
	uint32_t addr;
	uint16_t port;
	size_t len;
	char data[UDPSH_DGRAM_MAX + 1];
};

static struct sent sent[SENT_MAX];
static struct udpsh u;
static unsigned nsent;
static int send_result;

static int record_send(void *ctx, uint32_t addr, uint16_t port,
		       const char *data, size_t len)
{
	ck_assert_ptr_eq(ctx, &nsent);
	ck_assert_uint_ge(len, 1);
	ck_assert_uint_le(len, UDPSH_DGRAM_MAX);
	ck_assert_uint_lt(nsent, SENT_MAX);
	/* Every keyless reply datagram is marked as one: kept without it. */
	if (!u.keyed) {
		ck_assert_int_eq((unsigned char)data[0], UDPSH_REPLY_MARK);
		data++;
		len--;
	}
	sent[nsent].addr = addr;
	sent[nsent].port = port;
	sent[nsent].len = len;
	memcpy(sent[nsent].data, data, len);
	sent[nsent].data[len] = '\0';
	nsent++;
	return send_result;
}

/* --- the test command table ----------------------------------------- */

/* One line of @len bytes, the last a newline, the rest @c. */
static void put_line(struct out *o, size_t len, char c)
{
	char *s = malloc(len);

	memset(s, c, len - 1);
	s[len - 1] = '\n';
	out_write(o, s, len);
	free(s);
}

/* fill N LEN: N lines of LEN bytes each (newline included), line i made
 * of the letter 'a' + i. */
static int tcmd_fill(struct shell_ctx *sh, int argc, char **argv)
{
	unsigned long n = strtoul(argv[1], NULL, 10), len = strtoul(argv[2], NULL, 10);

	ck_assert_int_eq(argc, 3);
	for (unsigned long i = 0; i < n; i++)
		put_line(sh->out, len, (char)('a' + i % 26));
	return 0;
}

/* lines LEN...: one line per argument, of that many bytes. */
static int tcmd_lines(struct shell_ctx *sh, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		put_line(sh->out, strtoul(argv[i], NULL, 10), (char)('a' + i - 1));
	return 0;
}

/* raw LEN: LEN bytes of 'r', no newline, written a byte at a time. */
static int tcmd_raw(struct shell_ctx *sh, int argc, char **argv)
{
	unsigned long n = strtoul(argv[1], NULL, 10);

	ck_assert_int_eq(argc, 2);
	for (unsigned long i = 0; i < n; i++)
		out_write(sh->out, "r", 1);
	return 0;
}

/* probe: two 1000-byte lines, then how many datagrams had gone out
 * while the command was still running. */
static int tcmd_probe(struct shell_ctx *sh, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	put_line(sh->out, 1000, 'a');
	put_line(sh->out, 1000, 'b');
	out_printf(sh->out, "sent %u\n", nsent);
	return 0;
}

static bool refused_ran;

/* act: stands for `work start`: refused unauthenticated over UDP. */
static int tcmd_refuse(struct shell_ctx *sh, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (shell_refuse_unauthenticated(sh, "work start"))
		return 1;
	refused_ran = true;
	out_puts(sh->out, "started\n");
	return 0;
}

const struct shell_cmd shell_commands[] = {
	{ "help", "help [command]", "list commands, or show one's usage", cmd_help, false, true },
	{ "args", "args [word]...", "print the words", tcmd_args, false, true },
	{ "crash", "crash", "stop the machine", tcmd_crash, true, false },
	{ "fill", "fill N LEN", "N lines of LEN bytes", tcmd_fill, false, true },
	{ "lines", "lines LEN...", "lines of the given lengths", tcmd_lines, false, true },
	{ "raw", "raw LEN", "LEN bytes, no newline", tcmd_raw, false, true },
	{ "probe", "probe", "datagrams sent while running", tcmd_probe, false, true },
	{ "act", "act", "acts beyond the reply", tcmd_refuse, false, false },
	{ NULL, NULL, NULL, NULL, false, false },
};

/* --- helpers -------------------------------------------------------- */

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define CLIENT IP(10, 0, 2, 2)
#define CLIENT_PORT 40123


static void setup(void)
{
	udpsh_init(&u, record_send, &nsent);
	ck_assert_int_eq(udpsh_allow_set(&u, "10.0.2.0/24"), 0);
	nsent = 0;
	send_result = 0;
	crash_runs = 0;
	args_runs = 0;
}

static void dgram_from(const char *s, uint32_t addr)
{
	udpsh_input(&u, s, strlen(s), addr, CLIENT_PORT);
}

static void dgram(const char *s)
{
	dgram_from(s, CLIENT);
}

/* Exactly one datagram was sent, holding @want. */
static void assert_one_reply(const char *want)
{
	ck_assert_uint_eq(nsent, 1);
	ck_assert_str_eq(sent[0].data, want);
}

/* sent[i] is @len bytes of @c, then @tail. */
static void assert_sent(unsigned i, size_t len, char c, const char *tail)
{
	size_t tlen = strlen(tail);

	ck_assert_uint_lt(i, nsent);
	ck_assert_uint_eq(sent[i].len, len + tlen);
	for (size_t k = 0; k < len; k++)
		if (sent[i].data[k] != c)
			ck_abort_msg("datagram %u byte %zu is 0x%02x, not '%c'", i, k,
				     (unsigned char)sent[i].data[k], c);
	ck_assert_str_eq(sent[i].data + len, tail);
}

static char *allow_text(void)
{
	static char buf[UDPSH_ALLOW_TEXT_MAX];

	udpsh_allow_format(&u, buf, sizeof(buf));
	return buf;
}

/* --- request framing ------------------------------------------------ */

START_TEST(test_dgram_without_newline_runs)
{
	dgram("args a");
	assert_one_reply("2 [args] [a]\n> ");
}
END_TEST

START_TEST(test_dgram_with_lf_runs)
{
	dgram("args a\n");
	assert_one_reply("2 [args] [a]\n> ");
}
END_TEST

START_TEST(test_dgram_with_crlf_runs)
{
	dgram("args a\r\n");
	assert_one_reply("2 [args] [a]\n> ");
}
END_TEST

START_TEST(test_dgram_with_cr_runs)
{
	dgram("args a\r");
	assert_one_reply("2 [args] [a]\n> ");
}
END_TEST

START_TEST(test_dgram_reply_goes_to_source)
{
	ck_assert_int_eq(udpsh_allow_set(&u, "0.0.0.0/0"), 0);
	udpsh_input(&u, "args", 4, IP(192, 168, 7, 9), 5555);
	ck_assert_uint_eq(nsent, 1);
	ck_assert_uint_eq(sent[0].addr, IP(192, 168, 7, 9));
	ck_assert_uint_eq(sent[0].port, 5555);
}
END_TEST

START_TEST(test_dgram_empty_gets_prompt_only)
{
	udpsh_input(&u, "", 0, CLIENT, CLIENT_PORT);
	assert_one_reply("> ");
	ck_assert_uint_eq(u.stats.malformed, 0);
}
END_TEST

START_TEST(test_dgram_newline_only_gets_prompt_only)
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

START_TEST(test_dgram_two_lines_refused)
{
	dgram("args a\nargs b");
	assert_one_reply("datagram holds more than one line; send one command per datagram\n> ");
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.malformed, 1);
}
END_TEST

START_TEST(test_dgram_two_terminated_lines_refused)
{
	dgram("args a\r\nargs b\r\n");
	assert_one_reply("datagram holds more than one line; send one command per datagram\n> ");
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

START_TEST(test_dgram_trailing_empty_line_refused)
{
	dgram("args a\n\n");
	assert_one_reply("datagram holds more than one line; send one command per datagram\n> ");
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

START_TEST(test_dgram_inner_cr_refused)
{
	dgram("args a\rargs b\n");
	assert_one_reply("datagram holds more than one line; send one command per datagram\n> ");
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

START_TEST(test_dgram_nul_refused)
{
	udpsh_input(&u, "args\0a\n", 7, CLIENT, CLIENT_PORT);
	assert_one_reply("line holds control byte 0x00 at column 5; not run\n> ");
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.malformed, 1);
}
END_TEST

START_TEST(test_dgram_trailing_nul_refused)
{
	udpsh_input(&u, "args\0", 5, CLIENT, CLIENT_PORT);
	assert_one_reply("line holds control byte 0x00 at column 5; not run\n> ");
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

START_TEST(test_dgram_control_byte_refused)
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

START_TEST(test_dgram_255_byte_command_runs)
{
	long_command(255, "");
	ck_assert_uint_eq(nsent, 1);
	ck_assert_uint_eq(sent[0].len, strlen("2 [args] []\n> ") + 250);
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

START_TEST(test_dgram_255_byte_command_with_crlf_runs)
{
	long_command(255, "\r\n");
	ck_assert_uint_eq(nsent, 1);
	ck_assert_uint_eq(args_runs, 1);
	ck_assert_uint_eq(u.stats.malformed, 0);
}
END_TEST

START_TEST(test_dgram_256_byte_command_refused)
{
	long_command(256, "\n");
	assert_one_reply("line longer than 255 bytes (got 256); not run\n> ");
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.malformed, 1);
}
END_TEST

START_TEST(test_dgram_300_byte_command_refused)
{
	long_command(300, "");
	assert_one_reply("line longer than 255 bytes (got 300); not run\n> ");
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

START_TEST(test_dgram_too_many_words_refused)
{
	dgram("args 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n");
	assert_one_reply("too many words (got 17, at most 16); not run\n> ");
	ck_assert_uint_eq(u.stats.malformed, 1);
}
END_TEST

START_TEST(test_dgram_unknown_command_error)
{
	dgram("foo\n");
	assert_one_reply("unknown command 'foo'; try help\n> ");
	ck_assert_uint_eq(u.stats.malformed, 0);
	ck_assert_uint_eq(u.stats.answered, 1);
}
END_TEST

START_TEST(test_dgram_serial_only_refused)
{
	dgram("crash\n");
	assert_one_reply("crash: serial console only; not run over the network\n> ");
	ck_assert_uint_eq(crash_runs, 0);
}
END_TEST

START_TEST(test_dgram_help_omits_serial_only)
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

/* --- reply splitting ------------------------------------------------ */

START_TEST(test_split_short_output_with_prompt)
{
	dgram("fill 10 100");
	ck_assert_uint_eq(nsent, 1);
	ck_assert_uint_eq(sent[0].len, 1002);
	ck_assert_mem_eq(sent[0].data + 1000, "> ", 2);
}
END_TEST

START_TEST(test_split_1469_bytes_prompt_fits)
{
	/* 1469 + "> " is 1471, UDPSH_PLAIN_MAX: after the mark, 1472. */
	dgram("fill 1 1469");
	ck_assert_uint_eq(nsent, 1);
	assert_sent(0, 1468, 'a', "\n> ");
}
END_TEST

START_TEST(test_split_1470_bytes_prompt_alone)
{
	dgram("fill 1 1470");
	ck_assert_uint_eq(nsent, 2);
	assert_sent(0, 1469, 'a', "\n");
	ck_assert_str_eq(sent[1].data, "> ");
}
END_TEST

START_TEST(test_split_exactly_1471_in_one_line)
{
	dgram("fill 1 1471");
	ck_assert_uint_eq(nsent, 2);
	assert_sent(0, 1470, 'a', "\n");
	ck_assert_str_eq(sent[1].data, "> ");
}
END_TEST

START_TEST(test_split_exactly_1471_in_four_lines)
{
	dgram("lines 368 368 368 367");
	ck_assert_uint_eq(nsent, 2);
	ck_assert_uint_eq(sent[0].len, 1471);
	ck_assert_int_eq(sent[0].data[367], '\n');
	ck_assert_int_eq(sent[0].data[1470], '\n');
	ck_assert_int_eq(sent[0].data[1470 - 1], 'd');
	ck_assert_str_eq(sent[1].data, "> ");
}
END_TEST

START_TEST(test_split_one_line_past_1471_moves_whole)
{
	dgram("lines 368 368 368 367 368");
	ck_assert_uint_eq(nsent, 2);
	ck_assert_uint_eq(sent[0].len, 1471);
	assert_sent(1, 367, 'e', "\n> ");
}
END_TEST

START_TEST(test_split_at_line_boundaries)
{
	dgram("fill 3 1000");
	ck_assert_uint_eq(nsent, 3);
	assert_sent(0, 999, 'a', "\n");
	assert_sent(1, 999, 'b', "\n");
	assert_sent(2, 999, 'c', "\n> ");
}
END_TEST

START_TEST(test_split_packs_lines_greedily)
{
	/* 700 + 700 fit (1400), 73 more would not: 1473. */
	dgram("lines 700 700 73 2");
	ck_assert_uint_eq(nsent, 2);
	ck_assert_uint_eq(sent[0].len, 1400);
	ck_assert_int_eq(sent[0].data[699], '\n');
	ck_assert_int_eq(sent[0].data[700], 'b');
	ck_assert_uint_eq(sent[1].len, 73 + 2 + 2);
	ck_assert_str_eq(sent[1].data + 72, "\nd\n> ");
}
END_TEST

START_TEST(test_split_long_line_cut_at_1471)
{
	dgram("fill 1 3001");
	ck_assert_uint_eq(nsent, 3);
	assert_sent(0, 1471, 'a', "");
	assert_sent(1, 1471, 'a', "");
	assert_sent(2, 3000 - 2942, 'a', "\n> ");
}
END_TEST

START_TEST(test_split_long_line_after_short_one)
{
	dgram("lines 10 2000 5");
	ck_assert_uint_eq(nsent, 3);
	assert_sent(0, 9, 'a', "\n");
	assert_sent(1, 1471, 'b', "");
	/* 1461 b's joined the a line before it went out alone. */
	assert_sent(2, 1999 - 1471, 'b', "\ncccc\n> ");
}
END_TEST

START_TEST(test_split_unterminated_output_then_prompt)
{
	dgram("raw 5");
	assert_one_reply("rrrrr> ");
}
END_TEST

START_TEST(test_split_unterminated_1471_prompt_alone)
{
	dgram("raw 1471");
	ck_assert_uint_eq(nsent, 2);
	assert_sent(0, 1471, 'r', "");
	ck_assert_str_eq(sent[1].data, "> ");
}
END_TEST

START_TEST(test_split_unterminated_1472_cut_at_1471)
{
	dgram("raw 1472");
	ck_assert_uint_eq(nsent, 2);
	assert_sent(0, 1471, 'r', "");
	ck_assert_str_eq(sent[1].data, "r> ");
}
END_TEST

/* Whatever the sizes: every datagram within the limit, whole lines in
 * all but those a long line fills, the prompt only at the very end, and
 * the datagrams together the exact output. */
START_TEST(test_split_reassembles_exactly)
{
	static const unsigned sizes[][2] = {
		{ 1, 1 }, { 3, 490 }, { 4, 491 }, { 2, 736 }, { 2, 737 },
		{ 7, 300 }, { 13, 113 }, { 2, 1500 }, { 1, 5000 }, { 30, 49 },
	};

	for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
		unsigned n = sizes[t][0], len = sizes[t][1];
		size_t total = (size_t)n * len, got = 0;
		char cmd[64];
		char *all = malloc(total + 3);

		nsent = 0;
		snprintf(cmd, sizeof(cmd), "fill %u %u\n", n, len);
		dgram(cmd);
		for (unsigned i = 0; i < nsent; i++) {
			bool last = i + 1 == nsent;

			ck_assert_uint_le(sent[i].len, UDPSH_PLAIN_MAX);
			if (!last && sent[i].len < UDPSH_PLAIN_MAX)
				ck_assert_int_eq(sent[i].data[sent[i].len - 1], '\n');
			ck_assert_uint_le(got + sent[i].len, total + 2);
			memcpy(all + got, sent[i].data, sent[i].len);
			got += sent[i].len;
		}
		ck_assert_uint_eq(got, total + 2);
		ck_assert_mem_eq(all + total, "> ", 2);
		for (unsigned i = 0; i < n; i++) {
			const char *line = all + (size_t)i * len;

			for (unsigned k = 0; k + 1 < len; k++)
				ck_assert_int_eq(line[k], 'a' + i % 26);
			ck_assert_int_eq(line[len - 1], '\n');
		}
		free(all);
	}
}
END_TEST

START_TEST(test_split_streams_while_running)
{
	dgram("probe");
	ck_assert_uint_eq(nsent, 2);
	assert_sent(0, 999, 'a', "\n");
	assert_sent(1, 999, 'b', "\nsent 1\n> ");
}
END_TEST

/* --- the allowlist -------------------------------------------------- */

START_TEST(test_allow_empty_after_init_answers_nobody)
{
	udpsh_init(&u, record_send, &nsent);
	dgram("args");
	ck_assert_uint_eq(nsent, 0);
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.dropped_allow, 1);
	ck_assert_str_eq(allow_text(), "");
}
END_TEST

START_TEST(test_allow_24_first_and_last_answered)
{
	dgram_from("args", IP(10, 0, 2, 0));
	dgram_from("args", IP(10, 0, 2, 255));
	ck_assert_uint_eq(nsent, 2);
	ck_assert_uint_eq(sent[0].addr, IP(10, 0, 2, 0));
	ck_assert_uint_eq(sent[1].addr, IP(10, 0, 2, 255));
	ck_assert_uint_eq(u.stats.dropped_allow, 0);
}
END_TEST

START_TEST(test_allow_24_just_outside_dropped)
{
	dgram_from("args", IP(10, 0, 1, 255));
	dgram_from("args", IP(10, 0, 3, 0));
	dgram_from("args", IP(11, 0, 2, 2));
	ck_assert_uint_eq(nsent, 0);
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.datagrams_in, 3);
	ck_assert_uint_eq(u.stats.dropped_allow, 3);
	ck_assert_uint_eq(u.stats.answered, 0);
}
END_TEST

START_TEST(test_allow_32_exact_only)
{
	ck_assert_int_eq(udpsh_allow_set(&u, "127.0.0.1/32"), 0);
	dgram_from("args", IP(127, 0, 0, 0));
	dgram_from("args", IP(127, 0, 0, 2));
	ck_assert_uint_eq(nsent, 0);
	dgram_from("args", IP(127, 0, 0, 1));
	ck_assert_uint_eq(nsent, 1);
	ck_assert_uint_eq(sent[0].addr, IP(127, 0, 0, 1));
}
END_TEST

START_TEST(test_allow_bare_address_is_32)
{
	ck_assert_int_eq(udpsh_allow_set(&u, "127.0.0.1"), 0);
	ck_assert_str_eq(allow_text(), "127.0.0.1/32");
	ck_assert(udpsh_allowed(&u, IP(127, 0, 0, 1)));
	ck_assert(!udpsh_allowed(&u, IP(127, 0, 0, 2)));
}
END_TEST

START_TEST(test_allow_0_answers_everyone)
{
	ck_assert_int_eq(udpsh_allow_set(&u, "0.0.0.0/0"), 0);
	dgram_from("args", IP(0, 0, 0, 0));
	dgram_from("args", IP(255, 255, 255, 255));
	dgram_from("args", IP(128, 0, 0, 0));
	ck_assert_uint_eq(nsent, 3);
	ck_assert_uint_eq(u.stats.dropped_allow, 0);
}
END_TEST

START_TEST(test_allow_any_entry_matches)
{
	ck_assert_int_eq(udpsh_allow_set(&u, "10.0.2.0/24,127.0.0.0/8,192.168.1.7"), 0);
	ck_assert_str_eq(allow_text(), "10.0.2.0/24,127.0.0.0/8,192.168.1.7/32");
	ck_assert(udpsh_allowed(&u, IP(10, 0, 2, 77)));
	ck_assert(udpsh_allowed(&u, IP(127, 255, 255, 255)));
	ck_assert(udpsh_allowed(&u, IP(192, 168, 1, 7)));
	ck_assert(!udpsh_allowed(&u, IP(192, 168, 1, 6)));
	ck_assert(!udpsh_allowed(&u, IP(128, 0, 0, 0)));
}
END_TEST

START_TEST(test_allow_eight_entries_accepted)
{
	const char *text = "1.0.0.0/8,2.0.0.0/8,3.0.0.0/8,4.0.0.0/8,"
			   "5.0.0.0/8,6.0.0.0/8,7.0.0.0/8,8.0.0.0/8";

	ck_assert_int_eq(udpsh_allow_set(&u, text), 0);
	ck_assert_uint_eq(u.nallow, 8);
	ck_assert_str_eq(allow_text(), text);
	ck_assert(udpsh_allowed(&u, IP(8, 1, 2, 3)));
	ck_assert(!udpsh_allowed(&u, IP(9, 1, 2, 3)));
}
END_TEST

START_TEST(test_allow_nine_entries_refused_old_kept)
{
	ck_assert_int_eq(udpsh_allow_set(&u, "1.0.0.0/8,2.0.0.0/8,3.0.0.0/8,4.0.0.0/8,"
					 "5.0.0.0/8,6.0.0.0/8,7.0.0.0/8,8.0.0.0/8,"
					 "9.0.0.0/8"), -E2BIG);
	ck_assert_str_eq(allow_text(), "10.0.2.0/24");
}
END_TEST

START_TEST(test_allow_malformed_refused_old_kept)
{
	static const char *const bad[] = {
		"", ",", "10.0.2.0/24,", ",10.0.2.0/24", "10.0.2.0/24,,127.0.0.1",
		"10.0.2.1/24", "10.0.2.0/33", "10.0.2.0/", " 10.0.2.0/24",
		"10.0.2.0/24 ", "10.0.2.0/24, 127.0.0.1", "10.0.2/24", "10.0.2.256",
		"10.0.2.0/24;127.0.0.1", "010.000.002.000/024/1", "host",
		"255.255.255.255/32x", "1.2.3.4.5",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = udpsh_allow_set(&u, bad[i]);

		if (err != -EINVAL)
			ck_abort_msg("'%s' gave %d, not -EINVAL", bad[i], err);
		ck_assert_str_eq(allow_text(), "10.0.2.0/24");
		ck_assert_uint_eq(u.nallow, 1);
	}
}
END_TEST

START_TEST(test_allow_format_truncates_safely)
{
	char small[8];

	ck_assert_int_eq(udpsh_allow_set(&u, "10.0.2.0/24,127.0.0.1"), 0);
	ck_assert_uint_eq(udpsh_allow_format(&u, small, sizeof(small)),
			  strlen("10.0.2.0/24,127.0.0.1/32"));
	ck_assert_str_eq(small, "10.0.2.");
}
END_TEST

/* --- counters ------------------------------------------------------- */

START_TEST(test_stats_count_each_outcome)
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

START_TEST(test_stats_count_send_failures)
{
	send_result = -EAGAIN;
	dgram("fill 3 1000");
	ck_assert_uint_eq(nsent, 3);
	ck_assert_uint_eq(u.stats.send_failed, 3);
	ck_assert_uint_eq(u.stats.answered, 1);
}
END_TEST

/* --- HMAC-SHA256 (RFC 4231) ------------------------------------------ */

static void unhex(const char *h, uint8_t *out, size_t *len)
{
	size_t n = 0;

	for (; h[0] && h[1]; h += 2) {
		unsigned v;

		ck_assert_int_eq(sscanf(h, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
	}
	*len = n;
}

static void rep(uint8_t *out, uint8_t byte, size_t n)
{
	memset(out, byte, n);
}

START_TEST(test_hmac_rfc4231_vectors_match)
{
	static const struct {
		const char *key_hex;	/* NULL: key_byte x key_len */
		uint8_t key_byte;
		size_t key_len;
		const char *data;
		const char *data_hex;	/* NULL: data; "dd": 0xdd x 50; "cd": 0xcd x 50 */
		const char *mac;	/* truncated to its length (case 5) */
	} v[] = {
		{ NULL, 0x0b, 20, "Hi There", NULL,
		  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
		{ "4a656665", 0, 0, "what do ya want for nothing?", NULL,
		  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
		{ NULL, 0xaa, 20, NULL, "dd",
		  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" },
		{ "0102030405060708090a0b0c0d0e0f10111213141516171819", 0, 0, NULL, "cd",
		  "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" },
		{ NULL, 0x0c, 20, "Test With Truncation", NULL,
		  "a3b6167473100ee06e0c796c2955552b" },
		{ NULL, 0xaa, 131, "Test Using Larger Than Block-Size Key - Hash Key First", NULL,
		  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
		{ NULL, 0xaa, 131,
		  "This is a test using a larger than block-size key and a larger than "
		  "block-size data. The key needs to be hashed before being used by the "
		  "HMAC algorithm.", NULL,
		  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" },
	};

	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint8_t key[256], data[256], want[32], got[32];
		size_t klen, dlen, mlen;

		if (v[i].key_hex) {
			unhex(v[i].key_hex, key, &klen);
		} else {
			rep(key, v[i].key_byte, v[i].key_len);
			klen = v[i].key_len;
		}
		if (v[i].data) {
			dlen = strlen(v[i].data);
			memcpy(data, v[i].data, dlen);
		} else {
			rep(data, v[i].data_hex[0] == 'd' ? 0xdd : 0xcd, 50);
			dlen = 50;
		}
		unhex(v[i].mac, want, &mlen);
		hmac_sha256(key, klen, data, dlen, got);
		ck_assert_msg(memcmp(got, want, mlen) == 0, "RFC 4231 test case %u", i + 1);
	}
}
END_TEST

START_TEST(test_hmac_incremental_equals_one_shot)
{
	uint8_t key[20], a[32], b[32];
	struct hmac_sha256 h;
	char data[300];

	memset(key, 0x42, sizeof(key));
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (char)i;
	hmac_sha256(key, sizeof(key), data, sizeof(data), a);
	hmac_sha256_init(&h, key, sizeof(key));
	hmac_sha256_update(&h, data, 1);
	hmac_sha256_update(&h, data + 1, 63);
	hmac_sha256_update(&h, data + 64, sizeof(data) - 64);
	hmac_sha256_final(&h, b);
	ck_assert_mem_eq(a, b, 32);
}
END_TEST

START_TEST(test_nonce_from_generator_else_jitter)
{
	bool hw;

	fake_random = 0x0123456789abcdefull;
	ck_assert(random_nonce64(&hw) == 0x0123456789abcdefull);
	ck_assert(hw);
	fake_random = 0;		/* no generator: the cycle counter's jitter */
	ck_assert(random_nonce64(&hw) != 0);
	ck_assert(!hw);
}
END_TEST

START_TEST(test_ct_equal_compares_every_byte)
{
	uint8_t a[32], b[32];

	memset(a, 7, sizeof(a));
	memcpy(b, a, sizeof(b));
	ck_assert(ct_equal(a, b, 32));
	b[31] ^= 1;
	ck_assert(!ct_equal(a, b, 32));
	b[31] ^= 1;
	b[0] ^= 0x80;
	ck_assert(!ct_equal(a, b, 32));
	ck_assert(ct_equal(a, b, 0));
}
END_TEST

/* --- authenticated datagrams ----------------------------------------- */

#define TEST_NONCE 0x1122334455667788ull
static const uint8_t tkey[16] = "0123456789abcdef";

/* A request for @cmd spending @ticket under request id @id (16 bytes of
 * it) and @key into @d; its length. */
static size_t auth_req(uint8_t *d, uint64_t nonce, uint64_t ticket, uint8_t id,
		       const char *cmd, const uint8_t *key)
{
	struct udpsh_wire h = { .kind = UDPSH_KIND_REQUEST, .nonce = nonce, .ticket = ticket };

	memset(h.rid, id, sizeof(h.rid));
	return udpsh_wire_frame(key, 16, &h, cmd, strlen(cmd), d);
}

static void auth_send_from(uint64_t nonce, uint64_t ticket, uint8_t id, const char *cmd,
			   uint16_t port)
{
	uint8_t d[UDPSH_DGRAM_MAX];
	size_t n = auth_req(d, nonce, ticket, id, cmd, tkey);

	udpsh_input(&u, d, n, CLIENT, port);
}

static void auth_send(uint64_t nonce, uint64_t ticket, uint8_t id, const char *cmd)
{
	auth_send_from(nonce, ticket, id, cmd, CLIENT_PORT);
}

/* sent[i] as a reply under the key: it verifies and answers request id
 * @id with the boot nonce, number @num, @flags and @status. */
static struct udpsh_wire assert_auth_reply(unsigned i, uint8_t id, uint16_t num,
					   uint8_t flags, uint8_t status)
{
	struct udpsh_wire h;
	uint8_t rid[UDPSH_WIRE_RID];

	ck_assert_uint_lt(i, nsent);
	ck_assert_msg(udpsh_wire_open(tkey, 16, UDPSH_KIND_REPLY, (const uint8_t *)sent[i].data,
				      sent[i].len, &h), "reply %u does not verify", i);
	memset(rid, id, sizeof(rid));
	ck_assert_mem_eq(h.rid, rid, sizeof(rid));
	ck_assert(h.nonce == TEST_NONCE);
	ck_assert_uint_eq(h.num, num);
	ck_assert_uint_eq(h.flags, flags);
	ck_assert_uint_eq(h.status, status);
	return h;
}

/* A ticket for request id @id, from the stale answer to a request
 * without one. */
static uint64_t ticket_for(uint8_t id)
{
	unsigned before = nsent;
	struct udpsh_wire h;

	auth_send(0, 0, id, "args ticket");
	ck_assert_uint_eq(nsent, before + 1);
	h = assert_auth_reply(before, id, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
	ck_assert_uint_eq(sent[before].len, UDPSH_WIRE_OVERHEAD);
	ck_assert(h.ticket != 0);
	return h.ticket;
}

static void setup_keyed(void)
{
	setup();
	ck_assert_int_eq(udpsh_key_set(&u, tkey, sizeof(tkey), TEST_NONCE), 0);
}

START_TEST(test_key_shorter_than_16_refused)
{
	ck_assert_int_eq(udpsh_key_set(&u, tkey, 15, TEST_NONCE), -EINVAL);
	ck_assert_int_eq(udpsh_key_set(&u, tkey, 16, 0), -EINVAL);
	ck_assert(!u.keyed);
}
END_TEST

START_TEST(test_key_parse_hex_only)
{
	uint8_t k[UDPSH_KEY_MAX];
	char hex[200];

	ck_assert_int_eq(udpsh_key_parse("000102030405060708090a0b0c0d0e0F\n", 33, k), 16);
	ck_assert_uint_eq(k[15], 0x0f);
	ck_assert_int_eq(udpsh_key_parse("000102030405060708090a0b0c0d0e", 30, k), -EINVAL);
	ck_assert_int_eq(udpsh_key_parse("000102030405060708090a0b0c0d0e0g", 32, k), -EINVAL);
	ck_assert_int_eq(udpsh_key_parse("000102030405060708090a0b0c0d0e0f0", 33, k), -EINVAL);
	memset(hex, 'a', 128);
	ck_assert_int_eq(udpsh_key_parse(hex, 128, k), 64);
	memset(hex, 'a', 130);
	ck_assert_int_eq(udpsh_key_parse(hex, 130, k), -EINVAL);
}
END_TEST

START_TEST(test_auth_first_answer_stale_then_runs_once)
{
	uint64_t t = ticket_for(1);

	ck_assert_uint_eq(args_runs, 0);
	auth_send(TEST_NONCE, t, 2, "args a");
	ck_assert_uint_eq(nsent, 2);
	assert_auth_reply(1, 2, 0, UDPSH_FLAG_LAST, UDPSH_STATUS_OK);
	ck_assert_uint_eq(sent[1].len, UDPSH_WIRE_OVERHEAD + strlen("2 [args] [a]\n> "));
	ck_assert_mem_eq(sent[1].data + UDPSH_WIRE_HDR, "2 [args] [a]\n> ", 15);
	ck_assert_uint_eq(args_runs, 1);
	ck_assert_uint_eq(u.stats.stale, 1);
	ck_assert_uint_eq(u.stats.tickets, 1);
}
END_TEST

START_TEST(test_auth_long_reply_numbered_last_flagged)
{
	uint64_t t = ticket_for(1);

	nsent = 0;
	auth_send(TEST_NONCE, t, 2, "fill 4 1000");
	ck_assert_uint_eq(nsent, 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_auth_reply(i, 2, (uint16_t)i, i == 3 ? UDPSH_FLAG_LAST : 0,
				  UDPSH_STATUS_OK);
		ck_assert_uint_le(sent[i].len, UDPSH_DGRAM_MAX);
	}
}
END_TEST

/* Finding 6: the command's status travels in the last datagram. */
START_TEST(test_auth_status_failed_in_last_datagram)
{
	auth_send(TEST_NONCE, ticket_for(1), 2, "nosuch");
	assert_auth_reply(1, 2, 0, UDPSH_FLAG_LAST, UDPSH_STATUS_FAILED);
	auth_send(TEST_NONCE, ticket_for(3), 4, "crash");	/* serial only */
	assert_auth_reply(3, 4, 0, UDPSH_FLAG_LAST, UDPSH_STATUS_FAILED);
	auth_send(TEST_NONCE, ticket_for(5), 6, "");
	assert_auth_reply(5, 6, 0, UDPSH_FLAG_LAST, UDPSH_STATUS_OK);
}
END_TEST

/* Finding 5: the same request again gets the kept reply, byte for byte,
 * and never runs twice. */
START_TEST(test_auth_retransmission_resent_not_rerun)
{
	uint64_t t = ticket_for(1);

	nsent = 0;
	auth_send(TEST_NONCE, t, 2, "fill 3 1000");
	ck_assert_uint_eq(nsent, 3);
	auth_send(TEST_NONCE, t, 2, "fill 3 1000");
	ck_assert_uint_eq(nsent, 6);
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_uint_eq(sent[i].len, sent[i + 3].len);
		ck_assert_mem_eq(sent[i].data, sent[i + 3].data, sent[i].len);
	}
	ck_assert_uint_eq(u.stats.resent, 1);
	ck_assert_uint_eq(u.stats.answered, 1);
	ck_assert_uint_eq(u.stats.stale, 1);
}
END_TEST

START_TEST(test_auth_resend_bounded_then_gone)
{
	uint64_t t = ticket_for(1);

	auth_send(TEST_NONCE, t, 2, "args a");
	for (unsigned i = 0; i < UDPSH_RESEND_MAX; i++)
		auth_send(TEST_NONCE, t, 2, "args a");
	ck_assert_uint_eq(u.stats.resent, UDPSH_RESEND_MAX);
	nsent = 0;
	auth_send(TEST_NONCE, t, 2, "args a");
	ck_assert_uint_eq(nsent, 1);
	assert_auth_reply(0, 2, 0, UDPSH_FLAG_GONE | UDPSH_FLAG_LAST, 0);
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

/* A replay from another source is not sent the reply: gone, not run. */
START_TEST(test_auth_replay_from_elsewhere_gone)
{
	uint64_t t = ticket_for(1);

	auth_send(TEST_NONCE, t, 2, "args a");
	nsent = 0;
	auth_send_from(TEST_NONCE, t, 2, "args a", CLIENT_PORT + 1);
	ck_assert_uint_eq(nsent, 1);
	assert_auth_reply(0, 2, 0, UDPSH_FLAG_GONE | UDPSH_FLAG_LAST, 0);
	ck_assert_uint_eq(sent[0].port, CLIENT_PORT + 1);
	ck_assert_uint_eq(sent[0].len, UDPSH_WIRE_OVERHEAD);
	ck_assert_uint_eq(args_runs, 1);
	ck_assert_uint_eq(u.stats.gone, 1);
}
END_TEST

/* A ticket runs one request: another request spending it is refused. */
START_TEST(test_auth_ticket_spent_once)
{
	uint64_t t = ticket_for(1);

	auth_send(TEST_NONCE, t, 2, "args a");
	auth_send(TEST_NONCE, t, 3, "args b");
	ck_assert_uint_eq(args_runs, 1);
	assert_auth_reply(2, 3, 0, UDPSH_FLAG_GONE | UDPSH_FLAG_LAST, 0);
}
END_TEST

START_TEST(test_auth_wrong_nonce_or_unissued_ticket_stale)
{
	uint64_t t = ticket_for(1);

	auth_send(TEST_NONCE + 1, t, 2, "args a");	/* another boot's */
	auth_send(TEST_NONCE, t + 100, 3, "args a");	/* never issued */
	ck_assert_uint_eq(args_runs, 0);
	assert_auth_reply(1, 2, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
	assert_auth_reply(2, 3, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
	/* The ticket handed to request 1 still runs its request. */
	auth_send(TEST_NONCE, t, 4, "args a");
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

/* Finding 4's receive side: a replay flood of one request earns the same
 * ticket while unspent, then no answers at all; a new request id is
 * answered and runs. */
START_TEST(test_auth_stale_flood_limited_one_ticket)
{
	struct udpsh_wire h;
	uint64_t t;

	for (unsigned i = 0; i < 100; i++)
		auth_send(0, 0, 9, "args flood");
	ck_assert_uint_eq(nsent, UDPSH_REPEAT_MAX);
	h = assert_auth_reply(0, 9, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
	t = h.ticket;
	for (unsigned i = 1; i < nsent; i++)
		ck_assert(assert_auth_reply(i, 9, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0).ticket == t);
	ck_assert_uint_eq(u.stats.tickets, 1);
	ck_assert_uint_eq(u.stats.limited, 100 - UDPSH_REPEAT_MAX);
	auth_send(TEST_NONCE, ticket_for(1), 2, "args a");
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

/* Finding 3: many clients at once, no table of them: 64 tickets handed
 * out before any is spent all run, in any order. */
START_TEST(test_auth_64_clients_interleaved_all_run)
{
	uint64_t t[64];

	/* At the rate one source may ask: all 64 still young when spent. */
	for (unsigned i = 0; i < 64; i++) {
		t[i] = ticket_for((uint8_t)(i + 1));
		fake_now_ns += 1000000000ull / UDPSH_SOURCE_RATE;
	}
	nsent = 0;
	for (unsigned i = 64; i-- > 0;) {
		auth_send(TEST_NONCE, t[i], (uint8_t)(100 + i), "args a");
		nsent = 0;
	}
	ck_assert_uint_eq(args_runs, 64);
}
END_TEST

/* A ticket that left the window never runs; nothing locks the shell. */
START_TEST(test_auth_ticket_out_of_window_gone)
{
	uint64_t first = ticket_for(1);

	for (unsigned i = 0; i < UDPSH_TICKETS; i++) {
		nsent = 0;
		fake_now_ns += 1000000000ull / UDPSH_SOURCE_RATE;
		ticket_for((uint8_t)(2 + i % 200));
		/* Distinct ids: forget the remembered ones. */
		memset(u.recent, 0, sizeof(u.recent));
	}
	nsent = 0;
	auth_send(TEST_NONCE, first, 2, "args a");
	ck_assert_uint_eq(args_runs, 0);
	assert_auth_reply(0, 2, 0, UDPSH_FLAG_GONE | UDPSH_FLAG_LAST, 0);
	auth_send(TEST_NONCE, UINT64_MAX, 3, "args a");
	assert_auth_reply(1, 3, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
	nsent = 0;
	auth_send(TEST_NONCE, ticket_for(4), 5, "args a");
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

/* A reply longer than a slot keeps is sent once; a retransmission is
 * told it is gone, never run again. */
START_TEST(test_auth_reply_too_long_to_keep_gone)
{
	uint64_t t = ticket_for(1);

	nsent = 0;
	auth_send(TEST_NONCE, t, 2, "fill 50 1300");
	ck_assert_uint_eq(nsent, 50);
	nsent = 0;
	auth_send(TEST_NONCE, t, 2, "fill 50 1300");
	ck_assert_uint_eq(nsent, 1);
	assert_auth_reply(0, 2, 0, UDPSH_FLAG_GONE | UDPSH_FLAG_LAST, 0);
}
END_TEST

START_TEST(test_auth_bad_mac_no_reply_no_ticket)
{
	uint8_t d[256], other[16];
	size_t n;

	n = auth_req(d, 0, 0, 1, "args a", tkey);
	d[UDPSH_WIRE_HDR] ^= 1;			/* payload changed */
	udpsh_input(&u, d, n, CLIENT, CLIENT_PORT);
	n = auth_req(d, 0, 0, 1, "args a", tkey);
	d[42] = 1;				/* a reserved byte set */
	udpsh_input(&u, d, n, CLIENT, CLIENT_PORT);
	memset(other, 'x', sizeof(other));
	n = auth_req(d, 0, 0, 1, "args a", other);	/* wrong key */
	udpsh_input(&u, d, n, CLIENT, CLIENT_PORT);
	udpsh_input(&u, "args a", 6, CLIENT, CLIENT_PORT);	/* plain text */
	ck_assert_uint_eq(nsent, 0);
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.bad_mac, 4);
	ck_assert_uint_eq(u.stats.tickets, 0);
}
END_TEST

START_TEST(test_auth_cut_short_dropped_silently)
{
	uint8_t d[256];
	size_t n = auth_req(d, 0, 0, 1, "args a", tkey);

	udpsh_input_sized(&u, d, n, n + 2000, CLIENT, CLIENT_PORT);
	ck_assert_uint_eq(nsent, 0);
	ck_assert_uint_eq(u.stats.cut_short, 1);
}
END_TEST

START_TEST(test_busy_plain_never_larger_than_request)
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

/* Busy: status busy, no larger than the request, kept for a
 * retransmission, which gets busy again and never runs. */
START_TEST(test_busy_keyed_status_kept)
{
	struct udpsh_request rq;
	uint8_t d[128];
	size_t n = auth_req(d, TEST_NONCE, ticket_for(1), 2, "args", tkey);

	nsent = 0;
	ck_assert(udpsh_admit(&u, d, n, n, CLIENT, CLIENT_PORT, &rq));
	udpsh_busy(&u, &rq);
	ck_assert_uint_eq(nsent, 1);
	assert_auth_reply(0, 2, 0, UDPSH_FLAG_LAST, UDPSH_STATUS_BUSY);
	ck_assert_uint_le(sent[0].len, n);
	ck_assert(!udpsh_admit(&u, d, n, n, CLIENT, CLIENT_PORT, &rq));
	ck_assert_uint_eq(nsent, 2);
	assert_auth_reply(1, 2, 0, UDPSH_FLAG_LAST, UDPSH_STATUS_BUSY);
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

/* While a command runs (admitted, not yet served), its retransmission is
 * not answered: the reply is on its way. */
START_TEST(test_auth_retransmission_while_running_silent)
{
	struct udpsh_request rq;
	uint8_t d[128];
	size_t n = auth_req(d, TEST_NONCE, ticket_for(1), 2, "args a", tkey);

	nsent = 0;
	ck_assert(udpsh_admit(&u, d, n, n, CLIENT, CLIENT_PORT, &rq));
	ck_assert(!udpsh_admit(&u, d, n, n, CLIENT, CLIENT_PORT, &rq));
	ck_assert_uint_eq(nsent, 0);
}
END_TEST


/* --- tickets age; short answers are rate limited ---------------------- */

/* A relay holds a request that spends a good ticket and fires it after
 * the ticket's life: answered stale (a new ticket, which only the key
 * can use), never run; fired again, still never run.  Just inside the
 * life it runs. */
START_TEST(test_auth_held_request_past_life_stale_never_run)
{
	uint64_t t = ticket_for(1), t2;
	struct udpsh_wire h;

	nsent = 0;
	fake_now_ns += UDPSH_TICKET_LIFE_NS;
	auth_send(TEST_NONCE, t, 2, "args held");
	ck_assert_uint_eq(nsent, 1);
	h = assert_auth_reply(0, 2, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
	ck_assert(h.ticket != t);
	ck_assert_uint_eq(sent[0].len, UDPSH_WIRE_OVERHEAD);
	fake_now_ns += 30ull * 1000000000ull;
	auth_send(TEST_NONCE, t, 2, "args held");
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.answered, 0);
	/* A ticket spent within its life runs. */
	t2 = ticket_for(3);
	fake_now_ns += UDPSH_TICKET_LIFE_NS - 1;
	auth_send(TEST_NONCE, t2, 4, "args a");
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

/* A kept reply is sent again only while its ticket is young: a captured
 * request replayed later with the client's (spoofed) source gets "gone",
 * one short datagram, not the reply. */
START_TEST(test_auth_resend_only_while_ticket_young)
{
	uint64_t t = ticket_for(1);

	nsent = 0;
	auth_send(TEST_NONCE, t, 2, "fill 3 1000");
	ck_assert_uint_eq(nsent, 3);
	auth_send(TEST_NONCE, t, 2, "fill 3 1000");
	ck_assert_uint_eq(nsent, 6);
	ck_assert_uint_eq(u.stats.resent, 1);
	fake_now_ns += UDPSH_TICKET_LIFE_NS;
	nsent = 0;
	for (unsigned i = 0; i < UDPSH_RESEND_MAX; i++)
		auth_send(TEST_NONCE, t, 2, "fill 3 1000");
	ck_assert_uint_eq(u.stats.resent, 1);
	ck_assert_uint_eq(nsent, UDPSH_REPEAT_MAX);
	for (unsigned i = 0; i < nsent; i++) {
		assert_auth_reply(i, 2, 0, UDPSH_FLAG_GONE | UDPSH_FLAG_LAST, 0);
		ck_assert_uint_eq(sent[i].len, UDPSH_WIRE_OVERHEAD);
	}
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

/* Issue 51's measured case: 2,000 replays cycling 17 request ids (one
 * more than are remembered) from one source earned 1,984 tickets.  Now
 * the source's bucket bounds them: all at once, UDPSH_SOURCE_BURST; over
 * 0.2 s, the burst and 0.2 s of the rate. */
START_TEST(test_auth_replay_flood_17_ids_bounded_by_bucket)
{
	uint64_t step = 100000;		/* 0.1 ms between replays */

	for (unsigned i = 0; i < 2000; i++)
		auth_send(0, 0, (uint8_t)(1 + i % 17), "args replay");
	ck_assert_uint_eq(u.stats.tickets, UDPSH_SOURCE_BURST);
	ck_assert_uint_eq(nsent, UDPSH_SOURCE_BURST);
	ck_assert_uint_eq(u.stats.limited, 2000 - UDPSH_SOURCE_BURST);
	fake_now_ns += 10ull * 1000000000ull;	/* the bucket full again */
	nsent = 0;
	u.stats.tickets = 0;
	for (unsigned i = 0; i < 2000; i++) {
		auth_send(0, 0, (uint8_t)(1 + i % 17), "args replay");
		fake_now_ns += step;
	}
	ck_assert_uint_le(u.stats.tickets,
			  UDPSH_SOURCE_BURST + UDPSH_SOURCE_RATE * 2000 * step / 1000000000ull + 1);
	ck_assert_uint_ge(u.stats.tickets, UDPSH_SOURCE_BURST);
	ck_assert_uint_le(nsent, SENT_MAX);
	ck_assert_uint_eq(args_runs, 0);
}
END_TEST

/* Many sources (forged from the allowed /24) share the global bucket: a
 * flood at its full rate for a whole ticket life cannot push a young
 * ticket out of the window, and the ticket still runs. */
START_TEST(test_auth_flood_from_many_sources_cannot_churn_window)
{
	uint64_t t = ticket_for(1), start = fake_now_ns, step = 1000000;	/* 1 ms */
	uint8_t d[128];
	unsigned i = 0;

	while (fake_now_ns + step < start + UDPSH_TICKET_LIFE_NS) {
		size_t n = auth_req(d, 0, 0, (uint8_t)i, "args x", tkey);

		udpsh_input(&u, d, n, IP(10, 0, 2, i % 256), CLIENT_PORT);
		i++;
		fake_now_ns += step;
		nsent = 0;
	}
	ck_assert_uint_le(u.stats.tickets, 1 + UDPSH_GLOBAL_BURST +
			  UDPSH_GLOBAL_RATE * UDPSH_TICKET_LIFE_NS / 1000000000ull);
	ck_assert_uint_lt(u.stats.tickets, UDPSH_TICKETS);
	auth_send(TEST_NONCE, t, 2, "args a");
	ck_assert_uint_eq(args_runs, 1);
}
END_TEST

/* A replay refused for the rate still uses up its request id's share
 * (and keeps its entry, so that it cannot push out another's): 1,000
 * copies each of two requests over a second, from the client's own
 * address, earn at most UDPSH_REPEAT_MAX answers each, and the client's
 * next request is answered. */
START_TEST(test_auth_rate_limited_replay_keeps_its_share)
{
	for (unsigned i = 0; i < UDPSH_SOURCE_BURST; i++)
		ticket_for((uint8_t)(i + 1));
	nsent = 0;
	for (unsigned i = 0; i < 1000; i++) {
		auth_send(0, 0, 100, "args replayed");
		auth_send(0, 0, 99, "args replayed");
		fake_now_ns += 1000000;		/* 1 ms */
	}
	ck_assert_uint_le(nsent, 2 * UDPSH_REPEAT_MAX);
	nsent = 0;
	ticket_for(101);
	ck_assert_uint_eq(nsent, 1);
}
END_TEST

/* Over the rate, a fresh client is answered once the bucket refills. */
START_TEST(test_auth_limited_source_answered_after_refill)
{
	for (unsigned i = 0; i < UDPSH_SOURCE_BURST; i++)
		ticket_for((uint8_t)(i + 1));
	nsent = 0;
	auth_send(0, 0, 200, "args a");
	ck_assert_uint_eq(nsent, 0);
	fake_now_ns += 1000000000ull / UDPSH_SOURCE_RATE;
	auth_send(0, 0, 200, "args a");
	ck_assert_uint_eq(nsent, 1);
	assert_auth_reply(0, 200, 0, UDPSH_FLAG_STALE | UDPSH_FLAG_LAST, 0);
}
END_TEST

/* doc/shell.md's worked example: the bytes it shows are what this code
 * frames under the published test key. */
static char *doc_text(void)
{
	static char buf[1 << 16];
	char path[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/doc/shell.md", KP_TEST_SRCDIR);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* The hex bytes of the block after the line @marker, up to a blank line. */
static size_t doc_hex(const char *doc, const char *marker, uint8_t *out, size_t size)
{
	const char *p = strstr(doc, marker);
	size_t n = 0;

	ck_assert_msg(p != NULL, "doc/shell.md lacks %s", marker);
	p = strchr(p, '\n') + 1;
	if (strncmp(p, "```", 3) == 0)
		p = strchr(p, '\n') + 1;	/* the block's opening fence */
	while (*p && !(p[0] == '\n' || (p[0] == '`' && p[1] == '`'))) {
		const char *eol = strchr(p, '\n');
		const char *q = strstr(p, ": ");

		ck_assert(eol && q && q < eol);
		for (q += 2; q + 1 < eol && q[0] != ' ' ; ) {
			unsigned v;

			ck_assert_msg(sscanf(q, "%2x", &v) == 1, "bad hex in %s", marker);
			ck_assert_uint_lt(n, size);
			out[n++] = (uint8_t)v;
			q += 2;
			if (*q == ' ' && q[1] != ' ')
				q++;
		}
		p = eol + 1;
	}
	return n;
}

START_TEST(test_doc_worked_example_matches)
{
	static const uint8_t key[16] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
					 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f };
	const char *doc = doc_text();
	uint8_t want[512], got[512];
	struct udpsh_wire h = { .kind = UDPSH_KIND_REQUEST, .nonce = 0x0123456789abcdefull,
				.ticket = 7 };
	struct udpsh_wire r;
	size_t n, m;

	ck_assert_int_eq(udpsh_key_parse("000102030405060708090a0b0c0d0e0f", 32, got), 16);
	ck_assert_mem_eq(got, key, 16);
	for (unsigned i = 0; i < UDPSH_WIRE_RID; i++)
		h.rid[i] = (uint8_t)(0xa0 + i);
	n = doc_hex(doc, "<!-- udpsh-example-request -->", want, sizeof(want));
	m = udpsh_wire_frame(key, 16, &h, "uptime", 6, got);
	ck_assert_uint_eq(n, m);
	ck_assert_mem_eq(want, got, m);
	ck_assert(udpsh_wire_open(key, 16, UDPSH_KIND_REQUEST, want, n, &r));
	n = doc_hex(doc, "<!-- udpsh-example-reply -->", want, sizeof(want));
	h.kind = UDPSH_KIND_REPLY;
	h.flags = UDPSH_FLAG_LAST;
	h.status = UDPSH_STATUS_OK;
	h.ticket = 0;
	m = udpsh_wire_frame(key, 16, &h, "up 1.250 s\n> ", 13, got);
	ck_assert_uint_eq(n, m);
	ck_assert_mem_eq(want, got, m);
	ck_assert(udpsh_wire_open(key, 16, UDPSH_KIND_REPLY, want, n, &r));
}
END_TEST

START_TEST(test_plain_cut_short_reports_real_size)
{
	udpsh_input_sized(&u, "args", 4, 2000, CLIENT, CLIENT_PORT);
	assert_one_reply("line longer than 255 bytes (got 2000); not run\n> ");
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.cut_short, 1);
}
END_TEST

START_TEST(test_plain_acting_command_refused)
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
START_TEST(test_plain_reply_never_answered)
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

START_TEST(test_plain_two_shells_no_ping_pong)
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

/* --- keyless: 3x the request until the address echoes its cookie ---- */

/* Wire bytes of everything sent (mark and IPv4/UDP headers included). */
static size_t wire_sent(void)
{
	size_t n = 0;

	for (unsigned i = 0; i < nsent; i++)
		n += sent[i].len + 1 + UDPSH_WIRE_IP_UDP;
	return n;
}

/* The cookie in the hint that closes a cut reply. */
static void hint_cookie(char hex[UDPSH_COOKIE_HEX + 1])
{
	const char *last = sent[nsent - 1].data, *at = strstr(last, "cookie @");
	size_t tail = strlen(": start the request with it\n> ");

	ck_assert_msg(at, "no cookie in %s", last);
	memcpy(hex, at + 8, UDPSH_COOKIE_HEX);
	hex[UDPSH_COOKIE_HEX] = '\0';
	ck_assert_str_eq(at + 8 + UDPSH_COOKIE_HEX, ": start the request with it\n> ");
	ck_assert_uint_eq(strlen(at) , 8 + UDPSH_COOKIE_HEX + tail);
}

START_TEST(test_plain_bound_3x_then_cookie_whole)
{
	char hex[UDPSH_COOKIE_HEX + 1], cmd[64];
	size_t whole = 10 * 100 + 2;

	udpsh_cookie_set(&u, "boot secret", 11);
	dgram("fill 10 100");
	ck_assert_uint_le(wire_sent(), 3 * (11 + UDPSH_WIRE_IP_UDP));
	ck_assert_uint_eq(u.stats.cut, 1);
	hint_cookie(hex);
	/* The same address and port with the cookie: the whole reply. */
	nsent = 0;
	snprintf(cmd, sizeof(cmd), "@%s fill 10 100", hex);
	dgram(cmd);
	ck_assert_uint_eq(u.stats.cookies, 1);
	ck_assert_uint_eq(wire_sent(), whole + nsent * (1 + UDPSH_WIRE_IP_UDP));
	ck_assert_str_eq(sent[nsent - 1].data + sent[nsent - 1].len - 2, "> ");
	/* Still good in the next epoch; not two epochs on. */
	fake_now_ns += UDPSH_COOKIE_EPOCH_NS;
	nsent = 0;
	dgram(cmd);
	ck_assert_uint_eq(u.stats.cookies, 2);
	fake_now_ns += UDPSH_COOKIE_EPOCH_NS;
	nsent = 0;
	dgram(cmd);
	ck_assert_uint_eq(u.stats.cookies, 2);
	ck_assert_uint_le(wire_sent(), 3 * (strlen(cmd) + UDPSH_WIRE_IP_UDP));
	ck_assert_uint_eq(u.stats.cut, 2);
}
END_TEST

/* Another address's (or port's) cookie proves nothing; a wrong one is
 * taken off and the bound kept; a short request's answer still fits. */
START_TEST(test_plain_bound_cookie_bound_to_address)
{
	char hex[UDPSH_COOKIE_HEX + 1], cmd[64];

	udpsh_cookie_set(&u, "boot secret", 11);
	udpsh_cookie(&u, CLIENT + 1, CLIENT_PORT, fake_now_ns, hex);
	snprintf(cmd, sizeof(cmd), "@%s fill 10 100", hex);
	dgram(cmd);
	ck_assert_uint_eq(u.stats.cookies, 0);
	ck_assert_uint_le(wire_sent(), 3 * (strlen(cmd) + UDPSH_WIRE_IP_UDP));
	ck_assert_uint_eq(u.stats.cut, 1);
	/* A wrong cookie is taken off: the command runs without it. */
	nsent = 0;
	snprintf(cmd, sizeof(cmd), "@%s args x", hex);
	dgram(cmd);
	ck_assert_msg(strncmp(sent[0].data, "2 [args] [x]", 12) == 0, "got %s", sent[0].data);
	nsent = 0;
	udpsh_input(&u, "", 0, CLIENT, CLIENT_PORT);
	ck_assert_uint_eq(nsent, 1);
	ck_assert_str_eq(sent[0].data, "> ");
	nsent = 0;
	udpsh_input(&u, "x", 1, CLIENT, CLIENT_PORT);
	ck_assert_uint_le(wire_sent(), 3 * (1 + UDPSH_WIRE_IP_UDP));
	ck_assert_str_eq(sent[nsent - 1].data + sent[nsent - 1].len - 2, "> ");
}
END_TEST

START_TEST(test_keyed_acting_command_allowed)
{
	auth_send(TEST_NONCE, ticket_for(1), 2, "act");
	ck_assert(refused_ran);
	ck_assert_mem_eq(sent[1].data + UDPSH_WIRE_HDR, "started\n> ", 10);
}
END_TEST

static Suite *udpsh_suite(void)
{
	Suite *s = suite_create("udpsh");
	TCase *tc = tcase_create("framing");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_dgram_without_newline_runs);
	tcase_add_test(tc, test_dgram_with_lf_runs);
	tcase_add_test(tc, test_dgram_with_crlf_runs);
	tcase_add_test(tc, test_dgram_with_cr_runs);
	tcase_add_test(tc, test_dgram_reply_goes_to_source);
	tcase_add_test(tc, test_dgram_empty_gets_prompt_only);
	tcase_add_test(tc, test_dgram_newline_only_gets_prompt_only);
	tcase_add_test(tc, test_dgram_two_lines_refused);
	tcase_add_test(tc, test_dgram_two_terminated_lines_refused);
	tcase_add_test(tc, test_dgram_trailing_empty_line_refused);
	tcase_add_test(tc, test_dgram_inner_cr_refused);
	tcase_add_test(tc, test_dgram_nul_refused);
	tcase_add_test(tc, test_dgram_trailing_nul_refused);
	tcase_add_test(tc, test_dgram_control_byte_refused);
	tcase_add_test(tc, test_dgram_255_byte_command_runs);
	tcase_add_test(tc, test_dgram_255_byte_command_with_crlf_runs);
	tcase_add_test(tc, test_dgram_256_byte_command_refused);
	tcase_add_test(tc, test_dgram_300_byte_command_refused);
	tcase_add_test(tc, test_dgram_too_many_words_refused);
	tcase_add_test(tc, test_dgram_unknown_command_error);
	tcase_add_test(tc, test_dgram_serial_only_refused);
	tcase_add_test(tc, test_dgram_help_omits_serial_only);
	suite_add_tcase(s, tc);

	tc = tcase_create("split");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_split_short_output_with_prompt);
	tcase_add_test(tc, test_split_1469_bytes_prompt_fits);
	tcase_add_test(tc, test_split_1470_bytes_prompt_alone);
	tcase_add_test(tc, test_split_exactly_1471_in_one_line);
	tcase_add_test(tc, test_split_exactly_1471_in_four_lines);
	tcase_add_test(tc, test_split_one_line_past_1471_moves_whole);
	tcase_add_test(tc, test_split_at_line_boundaries);
	tcase_add_test(tc, test_split_packs_lines_greedily);
	tcase_add_test(tc, test_split_long_line_cut_at_1471);
	tcase_add_test(tc, test_split_long_line_after_short_one);
	tcase_add_test(tc, test_split_unterminated_output_then_prompt);
	tcase_add_test(tc, test_split_unterminated_1471_prompt_alone);
	tcase_add_test(tc, test_split_unterminated_1472_cut_at_1471);
	tcase_add_test(tc, test_split_reassembles_exactly);
	tcase_add_test(tc, test_split_streams_while_running);
	suite_add_tcase(s, tc);

	tc = tcase_create("allowlist");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_allow_empty_after_init_answers_nobody);
	tcase_add_test(tc, test_allow_24_first_and_last_answered);
	tcase_add_test(tc, test_allow_24_just_outside_dropped);
	tcase_add_test(tc, test_allow_32_exact_only);
	tcase_add_test(tc, test_allow_bare_address_is_32);
	tcase_add_test(tc, test_allow_0_answers_everyone);
	tcase_add_test(tc, test_allow_any_entry_matches);
	tcase_add_test(tc, test_allow_eight_entries_accepted);
	tcase_add_test(tc, test_allow_nine_entries_refused_old_kept);
	tcase_add_test(tc, test_allow_malformed_refused_old_kept);
	tcase_add_test(tc, test_allow_format_truncates_safely);
	suite_add_tcase(s, tc);

	tc = tcase_create("stats");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_stats_count_each_outcome);
	tcase_add_test(tc, test_stats_count_send_failures);
	suite_add_tcase(s, tc);

	tc = tcase_create("hmac");
	tcase_add_test(tc, test_hmac_rfc4231_vectors_match);
	tcase_add_test(tc, test_hmac_incremental_equals_one_shot);
	tcase_add_test(tc, test_ct_equal_compares_every_byte);
	tcase_add_test(tc, test_nonce_from_generator_else_jitter);
	suite_add_tcase(s, tc);

	tc = tcase_create("plain");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_key_shorter_than_16_refused);
	tcase_add_test(tc, test_key_parse_hex_only);
	tcase_add_test(tc, test_busy_plain_never_larger_than_request);
	tcase_add_test(tc, test_plain_cut_short_reports_real_size);
	tcase_add_test(tc, test_plain_acting_command_refused);
	tcase_add_test(tc, test_plain_reply_never_answered);
	tcase_add_test(tc, test_plain_two_shells_no_ping_pong);
	tcase_add_test(tc, test_plain_bound_3x_then_cookie_whole);
	tcase_add_test(tc, test_plain_bound_cookie_bound_to_address);
	suite_add_tcase(s, tc);

	tc = tcase_create("auth");
	tcase_add_checked_fixture(tc, setup_keyed, NULL);
	tcase_add_test(tc, test_auth_first_answer_stale_then_runs_once);
	tcase_add_test(tc, test_auth_long_reply_numbered_last_flagged);
	tcase_add_test(tc, test_auth_status_failed_in_last_datagram);
	tcase_add_test(tc, test_auth_retransmission_resent_not_rerun);
	tcase_add_test(tc, test_auth_resend_bounded_then_gone);
	tcase_add_test(tc, test_auth_replay_from_elsewhere_gone);
	tcase_add_test(tc, test_auth_ticket_spent_once);
	tcase_add_test(tc, test_auth_wrong_nonce_or_unissued_ticket_stale);
	tcase_add_test(tc, test_auth_stale_flood_limited_one_ticket);
	tcase_add_test(tc, test_auth_64_clients_interleaved_all_run);
	tcase_add_test(tc, test_auth_ticket_out_of_window_gone);
	tcase_add_test(tc, test_auth_reply_too_long_to_keep_gone);
	tcase_add_test(tc, test_auth_bad_mac_no_reply_no_ticket);
	tcase_add_test(tc, test_auth_cut_short_dropped_silently);
	tcase_add_test(tc, test_busy_keyed_status_kept);
	tcase_add_test(tc, test_auth_retransmission_while_running_silent);
	tcase_add_test(tc, test_doc_worked_example_matches);
	tcase_add_test(tc, test_auth_held_request_past_life_stale_never_run);
	tcase_add_test(tc, test_auth_resend_only_while_ticket_young);
	tcase_add_test(tc, test_auth_replay_flood_17_ids_bounded_by_bucket);
	tcase_add_test(tc, test_auth_flood_from_many_sources_cannot_churn_window);
	tcase_add_test(tc, test_auth_limited_source_answered_after_refill);
	tcase_add_test(tc, test_auth_rate_limited_replay_keeps_its_share);
	tcase_add_test(tc, test_keyed_acting_command_allowed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(udpsh_suite());
}
