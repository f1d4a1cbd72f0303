/* SPDX-License-Identifier: BSD-2-Clause */
/* The keyed UDP shell's wire format (shell/udpsh/wire.h), built into the
 * kernel and into tools/kshell alike.
 *
 * What it guarantees: udpsh_wire_open() takes a datagram only when its
 * magic, kind and reserved zero bytes are right and its MAC, over every
 * byte before it, verifies under the key, compared in constant time
 * (ct_equal()); udpsh_key_parse() and udpsh_key_weak() refuse a key too
 * short, too long, not hex, or one byte repeated, and print nothing.
 * Against: anyone without the key who forges or alters a datagram in
 * either direction, or times the compare to guess a MAC. */
#include "shell/udpsh/wire.h"

#include "lib/bytes.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/sha256.h"

size_t udpsh_wire_frame(const uint8_t *key, size_t klen, const struct udpsh_wire *h,
			const void *payload, size_t n, uint8_t *d)
{
	kmemset(d, 0, UDPSH_WIRE_HDR);
	kmemcpy(d, UDPSH_WIRE_MAGIC, 4);
	d[4] = h->kind;
	d[5] = h->flags;
	d[6] = h->status;
	be64_put(d + 8, h->nonce);
	be64_put(d + 16, h->ticket);
	kmemcpy(d + 24, h->rid, UDPSH_WIRE_RID);
	d[40] = (uint8_t)(h->num >> 8);
	d[41] = (uint8_t)h->num;
	if (n)
		kmemcpy(d + UDPSH_WIRE_HDR, payload, n);
	hmac_sha256(key, klen, d, UDPSH_WIRE_HDR + n, d + UDPSH_WIRE_HDR + n);
	return UDPSH_WIRE_OVERHEAD + n;
}

/* The bytes the format keeps zero are zero. */
static bool udpsh_wire_zeros(const uint8_t *d)
{
	static const uint8_t zero[6];

	return d[7] == 0 && kmemcmp(d + 42, zero, sizeof(zero)) == 0;
}

bool udpsh_wire_open(const uint8_t *key, size_t klen, uint8_t kind,
		     const uint8_t *d, size_t len, struct udpsh_wire *h)
{
	uint8_t mac[SHA256_LEN];

	if (len < UDPSH_WIRE_OVERHEAD || kmemcmp(d, UDPSH_WIRE_MAGIC, 4) != 0 ||
	    d[4] != kind || !udpsh_wire_zeros(d))
		return false;
	hmac_sha256(key, klen, d, len - UDPSH_WIRE_MAC, mac);
	if (!ct_equal(mac, d + len - UDPSH_WIRE_MAC, UDPSH_WIRE_MAC))
		return false;
	h->kind = d[4];
	h->flags = d[5];
	h->status = d[6];
	h->nonce = be64_get(d + 8);
	h->ticket = be64_get(d + 16);
	kmemcpy(h->rid, d + 24, UDPSH_WIRE_RID);
	h->num = (uint16_t)(d[40] << 8 | d[41]);
	return true;
}

int udpsh_key_parse(const char *text, size_t len, uint8_t *key)
{
	size_t n = 0, i = 0;

	for (; i + 1 < len; i += 2) {
		int hi = khexdigit(text[i]), lo = khexdigit(text[i + 1]);

		if (hi < 0 || lo < 0)
			break;
		if (n == UDPSH_KEY_MAX)
			return -EINVAL;
		key[n++] = (uint8_t)(hi << 4 | lo);
	}
	for (; i < len; i++)
		if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
			return -EINVAL;
	return n >= UDPSH_KEY_MIN ? (int)n : -EINVAL;
}

bool udpsh_key_weak(const uint8_t *key, size_t len)
{
	for (size_t i = 1; i < len; i++)
		if (key[i] != key[0])
			return false;
	return true;
}
