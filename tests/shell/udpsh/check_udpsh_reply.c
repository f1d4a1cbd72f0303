/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell's reply packing (src/shell/udpsh/reply.c): output cut
 * at line ends and at UDPSH_PLAIN_MAX, a line longer than that cut
 * inside, the prompt last and never split, datagrams sent as the output
 * is written, and together exactly the output. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "check_main.h"
#include "udpsh_testlib.h"

/* --- reply splitting ------------------------------------------------ */

CHECK_TEST("split", test_split_short_output_with_prompt)
{
	dgram("fill 10 100");
	ck_assert_uint_eq(nsent, 1);
	ck_assert_uint_eq(sent[0].len, 1002);
	ck_assert_mem_eq(sent[0].data + 1000, "> ", 2);
}
END_TEST

CHECK_TEST("split", test_split_1469_bytes_prompt_fits)
{
	/* 1469 + "> " is 1471, UDPSH_PLAIN_MAX: after the mark, 1472. */
	dgram("fill 1 1469");
	ck_assert_uint_eq(nsent, 1);
	assert_sent(0, 1468, 'a', "\n> ");
}
END_TEST

CHECK_TEST("split", test_split_1470_bytes_prompt_alone)
{
	dgram("fill 1 1470");
	ck_assert_uint_eq(nsent, 2);
	assert_sent(0, 1469, 'a', "\n");
	ck_assert_str_eq(sent[1].data, "> ");
}
END_TEST

CHECK_TEST("split", test_split_exactly_1471_in_one_line)
{
	dgram("fill 1 1471");
	ck_assert_uint_eq(nsent, 2);
	assert_sent(0, 1470, 'a', "\n");
	ck_assert_str_eq(sent[1].data, "> ");
}
END_TEST

CHECK_TEST("split", test_split_exactly_1471_in_four_lines)
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

CHECK_TEST("split", test_split_one_line_past_1471_moves_whole)
{
	dgram("lines 368 368 368 367 368");
	ck_assert_uint_eq(nsent, 2);
	ck_assert_uint_eq(sent[0].len, 1471);
	assert_sent(1, 367, 'e', "\n> ");
}
END_TEST

CHECK_TEST("split", test_split_at_line_boundaries)
{
	dgram("fill 3 1000");
	ck_assert_uint_eq(nsent, 3);
	assert_sent(0, 999, 'a', "\n");
	assert_sent(1, 999, 'b', "\n");
	assert_sent(2, 999, 'c', "\n> ");
}
END_TEST

CHECK_TEST("split", test_split_packs_lines_greedily)
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

CHECK_TEST("split", test_split_long_line_cut_at_1471)
{
	dgram("fill 1 3001");
	ck_assert_uint_eq(nsent, 3);
	assert_sent(0, 1471, 'a', "");
	assert_sent(1, 1471, 'a', "");
	assert_sent(2, 3000 - 2942, 'a', "\n> ");
}
END_TEST

CHECK_TEST("split", test_split_long_line_after_short_one)
{
	dgram("lines 10 2000 5");
	ck_assert_uint_eq(nsent, 3);
	assert_sent(0, 9, 'a', "\n");
	assert_sent(1, 1471, 'b', "");
	/* 1461 b's joined the a line before it went out alone. */
	assert_sent(2, 1999 - 1471, 'b', "\ncccc\n> ");
}
END_TEST

CHECK_TEST("split", test_split_unterminated_output_then_prompt)
{
	dgram("raw 5");
	assert_one_reply("rrrrr> ");
}
END_TEST

CHECK_TEST("split", test_split_unterminated_1471_prompt_alone)
{
	dgram("raw 1471");
	ck_assert_uint_eq(nsent, 2);
	assert_sent(0, 1471, 'r', "");
	ck_assert_str_eq(sent[1].data, "> ");
}
END_TEST

CHECK_TEST("split", test_split_unterminated_1472_cut_at_1471)
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
CHECK_TEST("split", test_split_reassembles_exactly)
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

CHECK_TEST("split", test_split_streams_while_running)
{
	dgram("probe");
	ck_assert_uint_eq(nsent, 2);
	assert_sent(0, 999, 'a', "\n");
	assert_sent(1, 999, 'b', "\nsent 1\n> ");
}
END_TEST

int main(void)
{
	return check_run(check_suite("udpsh_reply", setup, 0));
}
