/* SPDX-License-Identifier: BSD-2-Clause */
/* The freestanding library: formatting, parsing, strings, the heap. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "hal/mem.h"
#include "kernel/heap.h"
#include "kernel/heap_test.h"
#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "check_main.h"

/* Some cases feed the formatter what printf would warn about, on purpose. */
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-overflow"
#pragma GCC diagnostic ignored "-Wformat-extra-args"

static char buf[256];

#define FMT_EQ(want, ...) do { \
	size_t n_ = ksnprintf(buf, sizeof(buf), __VA_ARGS__); \
	ck_assert_str_eq(buf, want); \
	ck_assert_uint_eq(n_, strlen(want)); \
} while (0)

CHECK_TEST("core", test_fmt_integers_match_printf_shapes)
{
	FMT_EQ("0", "%d", 0);
	FMT_EQ("-42", "%d", -42);
	FMT_EQ("-2147483648", "%d", INT32_MIN);
	FMT_EQ("-9223372036854775808", "%lld", (long long)INT64_MIN);
	FMT_EQ("18446744073709551615", "%llu", (unsigned long long)UINT64_MAX);
	FMT_EQ("ffffffff", "%x", 0xffffffffu);
	FMT_EQ("0x1A2B", "0x%X", 0x1a2b);
	FMT_EQ("  7|7  |007", "%3d|%-3d|%03d", 7, 7, 7);
	FMT_EQ("  -7|-07", "%4d|%03d", -7, -7);
	FMT_EQ("12345", "%zu", (size_t)12345);
	FMT_EQ("0x1000", "%p", (void *)0x1000);
	FMT_EQ("17", "%o", 15);
	FMT_EQ("255 -1", "%hhu %hhd", 255, 255);
}
END_TEST

CHECK_TEST("core", test_fmt_strings_chars_and_percent)
{
	FMT_EQ("a|bc  |  bc|b", "%c|%-4s|%4s|%.1s", 'a', "bc", "bc", "bc");
	FMT_EQ("(null)", "%s", (char *)NULL);
	FMT_EQ("100%", "%d%%", 100);
	FMT_EQ("x  y", "x%*sy", 2, "");
	FMT_EQ("%q", "%q");
}
END_TEST

CHECK_TEST("core", test_fmt_truncates_and_reports_full_length)
{
	char small[5];
	size_t n = ksnprintf(small, sizeof(small), "%s", "abcdefgh");

	ck_assert_uint_eq(n, 8);
	ck_assert_str_eq(small, "abcd");
	ck_assert_uint_eq(ksnprintf(NULL, 0, "%d", 12345), 5);
}
END_TEST

CHECK_TEST("core", test_out_buf_counts_what_did_not_fit)
{
	char b[8];
	struct out_buf ob;

	out_buf_init(&ob, b, sizeof(b));
	out_printf(&ob.out, "%s", "0123456789");
	ck_assert_str_eq(b, "0123456");
	ck_assert_uint_eq(ob.len, 7);
	ck_assert_uint_eq(ob.lost, 3);
}
END_TEST

CHECK_TEST("core", test_parse_u64_strict)
{
	uint64_t v = 7;

	ck_assert_int_eq(parse_u64("0", &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(parse_u64("18446744073709551615", &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(parse_u64("18446744073709551616", &v), -ERANGE);
	ck_assert_int_eq(parse_u64("99999999999999999999999", &v), -ERANGE);
	ck_assert_int_eq(parse_u64("", &v), -EINVAL);
	ck_assert_int_eq(parse_u64("-1", &v), -EINVAL);
	ck_assert_int_eq(parse_u64("+1", &v), -EINVAL);
	ck_assert_int_eq(parse_u64("12a", &v), -EINVAL);
	ck_assert_int_eq(parse_u64(" 1", &v), -EINVAL);
	ck_assert_int_eq(parse_u64("0x10", &v), -EINVAL);
	ck_assert_uint_eq(v, UINT64_MAX);	/* failures leave it alone */
}
END_TEST

CHECK_TEST("core", test_parse_ipv4_and_cidr_edges)
{
	uint32_t a;
	unsigned p;

	ck_assert_int_eq(parse_ipv4("10.0.2.2", &a), 0);
	ck_assert_uint_eq(a, 0x0a000202);
	ck_assert_int_eq(parse_ipv4("255.255.255.255", &a), 0);
	ck_assert_int_eq(parse_ipv4("256.0.0.1", &a), -EINVAL);
	ck_assert_int_eq(parse_ipv4("1.2.3", &a), -EINVAL);
	ck_assert_int_eq(parse_ipv4("1.2.3.4.5", &a), -EINVAL);
	ck_assert_int_eq(parse_ipv4("1..3.4", &a), -EINVAL);
	ck_assert_int_eq(parse_ipv4("0001.2.3.4", &a), -EINVAL);
	ck_assert_int_eq(parse_cidr("10.0.2.0/24", &a, &p), 0);
	ck_assert_uint_eq(a, 0x0a000200);
	ck_assert_uint_eq(p, 24);
	ck_assert_int_eq(parse_cidr("10.0.2.2", &a, &p), 0);
	ck_assert_uint_eq(p, 32);
	ck_assert_int_eq(parse_cidr("0.0.0.0/0", &a, &p), 0);
	ck_assert_uint_eq(p, 0);
	ck_assert_int_eq(parse_cidr("10.0.2.1/24", &a, &p), -EINVAL);
	ck_assert_int_eq(parse_cidr("10.0.2.0/33", &a, &p), -EINVAL);
	ck_assert_int_eq(parse_cidr("10.0.2.0/", &a, &p), -EINVAL);
	ck_assert_int_eq(parse_cidr("10.0.2.0/2x", &a, &p), -EINVAL);
}
END_TEST

CHECK_TEST("core", test_cidr_contains_edges)
{
	ck_assert(cidr_contains(0x0a000200, 24, 0x0a000200));
	ck_assert(cidr_contains(0x0a000200, 24, 0x0a0002ff));
	ck_assert(!cidr_contains(0x0a000200, 24, 0x0a000300));
	ck_assert(!cidr_contains(0x0a000200, 24, 0x0a0001ff));
	ck_assert(cidr_contains(0, 0, 0xffffffff));
	ck_assert(cidr_contains(0x0a000202, 32, 0x0a000202));
	ck_assert(!cidr_contains(0x0a000202, 32, 0x0a000203));
}
END_TEST

CHECK_TEST("core", test_kstring_helpers)
{
	char d[4];

	ck_assert_uint_eq(kstrlcpy(d, "abcdef", sizeof(d)), 6);
	ck_assert_str_eq(d, "abc");
	ck_assert(kstreq("ab", "ab"));
	ck_assert(!kstreq("ab", "abc"));
	ck_assert_int_lt(kstrcmp("ab", "b"), 0);
	ck_assert(kstarts_with("profile", "prof"));
	ck_assert(!kstarts_with("pro", "prof"));
	ck_assert_ptr_eq(kmemchr("a\0b", 'b', 3), (const char *)"a\0b" + 2);
	ck_assert_int_eq(kmemcmp("abc", "abd", 3), -1);
}
END_TEST

CHECK_TEST("core", test_heap_small_and_large_round_trip)
{
	void *p[64];

	for (int i = 0; i < 64; i++) {
		size_t sz = (size_t)1 << (i % 14);	/* 1 byte .. 8 KiB */
		p[i] = kmalloc(sz);
		ck_assert_ptr_nonnull(p[i]);
		for (size_t j = 0; j < sz; j++)
			ck_assert_uint_eq(((unsigned char *)p[i])[j], 0);
		memset(p[i], 0xa5, sz);
	}
	for (int i = 0; i < 64; i++)
		kfree(p[i]);
	size_t pages, used;
	heap_stats(&pages, &used);
	ck_assert_uint_eq(used, 0);
	/* A freed small object is handed out again, zeroed. */
	char *a = kmalloc(40);
	kfree(a);
	char *b = kmalloc(33);
	ck_assert_ptr_eq(a, b);
	ck_assert_uint_eq(b[0], 0);
	kfree(NULL);
}
END_TEST

int main(void)
{
	return check_run(check_suite("lib", NULL, 0));
}
