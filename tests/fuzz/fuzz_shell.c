/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: the shell's input paths.  The input is one UDP shell
 * datagram (udpsh_input(), allowlist open to the source) and also a byte
 * stream typed at the console (shell_input_feed(), in pieces whose sizes
 * come from the input), against a command table that parses but never
 * runs commands (fuzz_commands.c).  The UDP shell's protocol is checked
 * on every reply: 1 to UDPSH_DGRAM_MAX bytes a datagram, and the prompt
 * exactly the last two bytes sent.  Keyed, the input goes in twice: as it
 * is (no MAC can verify: never an answer) and as the payload of a request
 * with a good MAC, whose reply datagrams must verify, be numbered from 0
 * and end with the one flagged last. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out.h"
#include "lib/sha256.h"
#include "shell/shell.h"
#include "shell/udpsh.h"

static char fz_last[UDPSH_DGRAM_MAX];
static size_t fz_last_len, fz_replies;

static int fz_send(void *ctx, uint32_t addr, uint16_t port, const char *data, size_t len)
{
	(void)ctx;
	if (addr != 0x0a000202u || port != 4000 || len < 1 || len > UDPSH_DGRAM_MAX)
		abort();
	memcpy(fz_last, data, len);
	fz_last_len = len;
	fz_replies++;
	return 0;
}

static const uint8_t fz_key[16] = "fuzz-shell-key-0";
static unsigned fz_next_num;
static int fz_keyed_last;

/* Keyed replies: verify, in order, last flagged once at the end. */
static int fz_send_keyed(void *ctx, uint32_t addr, uint16_t port, const char *data,
			 size_t len)
{
	const uint8_t *d = (const uint8_t *)data;
	uint8_t mac[SHA256_LEN];

	(void)ctx;
	(void)addr;
	(void)port;
	if (len < UDPSH_AUTH_OVERHEAD || len > UDPSH_DGRAM_MAX || fz_keyed_last)
		abort();
	hmac_sha256(fz_key, sizeof(fz_key), d, len - UDPSH_AUTH_MAC, mac);
	if (memcmp(mac, d + len - UDPSH_AUTH_MAC, UDPSH_AUTH_MAC) != 0 ||
	    (unsigned)(d[22] << 8 | d[23]) != fz_next_num++)
		abort();
	fz_keyed_last = d[21] & UDPSH_FLAG_LAST;
	return 0;
}

static void fz_keyed(const uint8_t *data, size_t size)
{
	static struct udpsh k;
	static uint8_t req[UDPSH_DGRAM_MAX];
	size_t n = size < UDPSH_DGRAM_MAX - UDPSH_AUTH_OVERHEAD ?
		   size : UDPSH_DGRAM_MAX - UDPSH_AUTH_OVERHEAD;

	udpsh_init(&k, fz_send_keyed, NULL);
	if (udpsh_allow_set(&k, "10.0.2.0/24") != 0 ||
	    udpsh_key_set(&k, fz_key, sizeof(fz_key), 0x1234) != 0)
		abort();
	fz_next_num = 0;
	fz_keyed_last = 0;
	udpsh_input(&k, data, size, 0x0a000202u, 4000);
	if (fz_next_num != 0)
		abort();		/* a datagram without a good MAC was answered */
	memset(req, 0, UDPSH_AUTH_HDR);
	memcpy(req, UDPSH_AUTH_MAGIC, 4);
	req[11] = 0x34;			/* nonce 0x1234 */
	req[10] = 0x12;
	req[19] = 1;			/* sequence 1 */
	req[20] = UDPSH_DIR_REQUEST;
	memcpy(req + UDPSH_AUTH_HDR, data, n);
	hmac_sha256(fz_key, sizeof(fz_key), req, UDPSH_AUTH_HDR + n, req + UDPSH_AUTH_HDR + n);
	udpsh_input(&k, req, UDPSH_AUTH_OVERHEAD + n, 0x0a000202u, 4000);
	if (!fz_keyed_last)
		abort();
}

static void fz_discard(struct out *o, const char *s, size_t n)
{
	(void)o;
	(void)s;
	(void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct udpsh u;
	static struct out sink = { .write = fz_discard };
	struct shell_ctx sh = { .out = &sink, .remote = false };
	struct shell_input in;
	size_t pos = 0;

	udpsh_init(&u, fz_send, NULL);
	if (udpsh_allow_set(&u, "10.0.2.0/24") != 0)
		abort();
	fz_replies = 0;
	fz_last_len = 0;
	udpsh_input(&u, data, size, 0x0a000202u, 4000);
	if (fz_replies == 0 || fz_last_len < 2 ||
	    memcmp(fz_last + fz_last_len - 2, SHELL_PROMPT, 2) != 0)
		abort();

	fz_keyed(data, size);

	shell_input_init(&in, size && (data[0] & 1));
	while (pos < size) {
		size_t piece = 1 + data[pos] % 64;

		if (piece > size - pos)
			piece = size - pos;
		shell_input_feed(&in, &sh, (const char *)data + pos, piece);
		pos += piece;
	}
	return 0;
}
