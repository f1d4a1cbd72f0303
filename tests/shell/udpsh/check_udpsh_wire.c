/* SPDX-License-Identifier: BSD-2-Clause */
/* The keyed wire (src/shell/udpsh/wire.c) and what it stands on:
 * HMAC-SHA256 against RFC 4231's vectors, the constant-time compare, the
 * boot nonce's source, the key's parser, and doc/shell.md's worked
 * example framed byte for byte by this code. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fake_hal.h"
#include "kernel/random.h"
#include "lib/bytes.h"
#include "lib/errno.h"
#include "lib/sha256.h"
#include "check_main.h"
#include "udpsh_testlib.h"

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

CHECK_TEST("hmac", test_hmac_rfc4231_vectors_match)
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

CHECK_TEST("hmac", test_hmac_incremental_equals_one_shot)
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

CHECK_TEST("hmac", test_nonce_from_generator_else_jitter)
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

CHECK_TEST("hmac", test_ct_equal_compares_every_byte)
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

CHECK_TEST("keys", test_key_shorter_than_16_refused)
{
	ck_assert_int_eq(udpsh_key_set(&u, tkey, 15, TEST_NONCE), -EINVAL);
	ck_assert_int_eq(udpsh_key_set(&u, tkey, 16, 0), -EINVAL);
	ck_assert(!u.keyed);
}
END_TEST

CHECK_TEST("keys", test_key_parse_hex_only)
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

CHECK_TEST("doc", test_doc_worked_example_matches)
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

int main(void)
{
	return check_run(check_suite("udpsh_wire", setup, 0));
}
