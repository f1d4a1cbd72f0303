/* SPDX-License-Identifier: BSD-2-Clause */
/* The keyless UDP shell's amplification bound and its cookies
 * (src/shell/udpsh/cookie.c, cut in reply.c): 3x the request until the
 * address and port echo their cookie, which is good for this epoch and
 * the last and proves nothing for another address. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "fake_hal.h"
#include "check_main.h"
#include "udpsh_testlib.h"

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

CHECK_TEST("cookie", test_plain_bound_3x_then_cookie_whole)
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
CHECK_TEST("cookie", test_plain_bound_cookie_bound_to_address)
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

int main(void)
{
	return check_run(check_suite("udpsh_cookies", setup, 0));
}
