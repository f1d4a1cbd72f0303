/* SPDX-License-Identifier: BSD-2-Clause */
/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), integer-only, for the
 * UDP shell's authenticated datagrams.  No allocation; any context. */
#ifndef KPROF_LIB_SHA256_H
#define KPROF_LIB_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_BLOCK 64

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;		/* hashed so far */
	uint8_t buf[SHA256_BLOCK];
	size_t nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN]);

/* HMAC-SHA256 with a key of any length (one longer than a block is
 * hashed first, as RFC 2104 says). */
struct hmac_sha256 {
	struct sha256 inner;
	uint8_t okey[SHA256_BLOCK];
};

void hmac_sha256_init(struct hmac_sha256 *h, const void *key, size_t klen);
void hmac_sha256_update(struct hmac_sha256 *h, const void *data, size_t len);
void hmac_sha256_final(struct hmac_sha256 *h, uint8_t out[SHA256_LEN]);

/* One call: the MAC of @data under @key. */
void hmac_sha256(const void *key, size_t klen, const void *data, size_t len,
		 uint8_t out[SHA256_LEN]);

/* True when the @n bytes at @a and @b are equal, in time that depends
 * only on @n: a MAC check must not tell an attacker how many of its
 * leading bytes were right. */
bool ct_equal(const void *a, const void *b, size_t n);

#endif
