/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell's allowlist (src/shell/udpsh/allow.c): its CIDR edges,
 * nobody answered before it names someone, eight entries at most, a
 * malformed list refused whole with the old one kept. */
#include <check.h>
#include <string.h>

#include "fake_hal.h"
#include "lib/errno.h"
#include "check_main.h"
#include "udpsh_testlib.h"

static char *allow_text(void)
{
	static char buf[UDPSH_ALLOW_TEXT_MAX];

	udpsh_allow_format(&u, buf, sizeof(buf));
	return buf;
}

/* --- the allowlist -------------------------------------------------- */

CHECK_TEST("allowlist", test_allow_empty_after_init_answers_nobody)
{
	udpsh_init(&u, record_send, &nsent);
	dgram("args");
	ck_assert_uint_eq(nsent, 0);
	ck_assert_uint_eq(args_runs, 0);
	ck_assert_uint_eq(u.stats.dropped_allow, 1);
	ck_assert_str_eq(allow_text(), "");
}
END_TEST

CHECK_TEST("allowlist", test_allow_24_first_and_last_answered)
{
	dgram_from("args", IP(10, 0, 2, 0));
	dgram_from("args", IP(10, 0, 2, 255));
	ck_assert_uint_eq(nsent, 2);
	ck_assert_uint_eq(sent[0].addr, IP(10, 0, 2, 0));
	ck_assert_uint_eq(sent[1].addr, IP(10, 0, 2, 255));
	ck_assert_uint_eq(u.stats.dropped_allow, 0);
}
END_TEST

CHECK_TEST("allowlist", test_allow_24_just_outside_dropped)
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

CHECK_TEST("allowlist", test_allow_32_exact_only)
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

CHECK_TEST("allowlist", test_allow_bare_address_is_32)
{
	ck_assert_int_eq(udpsh_allow_set(&u, "127.0.0.1"), 0);
	ck_assert_str_eq(allow_text(), "127.0.0.1/32");
	ck_assert(udpsh_allowed(&u, IP(127, 0, 0, 1)));
	ck_assert(!udpsh_allowed(&u, IP(127, 0, 0, 2)));
}
END_TEST

CHECK_TEST("allowlist", test_allow_0_answers_everyone)
{
	ck_assert_int_eq(udpsh_allow_set(&u, "0.0.0.0/0"), 0);
	dgram_from("args", IP(0, 0, 0, 0));
	dgram_from("args", IP(255, 255, 255, 255));
	dgram_from("args", IP(128, 0, 0, 0));
	ck_assert_uint_eq(nsent, 3);
	ck_assert_uint_eq(u.stats.dropped_allow, 0);
}
END_TEST

CHECK_TEST("allowlist", test_allow_any_entry_matches)
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

CHECK_TEST("allowlist", test_allow_eight_entries_accepted)
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

CHECK_TEST("allowlist", test_allow_nine_entries_refused_old_kept)
{
	ck_assert_int_eq(udpsh_allow_set(&u, "1.0.0.0/8,2.0.0.0/8,3.0.0.0/8,4.0.0.0/8,"
					 "5.0.0.0/8,6.0.0.0/8,7.0.0.0/8,8.0.0.0/8,"
					 "9.0.0.0/8"), -E2BIG);
	ck_assert_str_eq(allow_text(), "10.0.2.0/24");
}
END_TEST

CHECK_TEST("allowlist", test_allow_malformed_refused_old_kept)
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

CHECK_TEST("allowlist", test_allow_format_truncates_safely)
{
	char small[8];

	ck_assert_int_eq(udpsh_allow_set(&u, "10.0.2.0/24,127.0.0.1"), 0);
	ck_assert_uint_eq(udpsh_allow_format(&u, small, sizeof(small)),
			  strlen("10.0.2.0/24,127.0.0.1/32"));
	ck_assert_str_eq(small, "10.0.2.");
}
END_TEST

int main(void)
{
	return check_run(check_suite("udpsh_allow", setup, 0));
}
