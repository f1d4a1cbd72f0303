/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: the shell's input paths.  The input is one UDP shell
 * datagram (udpsh_input(), allowlist open to the source) and also a byte
 * stream typed at the console (shell_input_feed(), in pieces whose sizes
 * come from the input), against a command table that parses but never
 * runs commands (fuzz_commands.c).  The UDP shell's protocol is checked
 * on every reply: 1 to UDPSH_DGRAM_MAX bytes a datagram starting with the
 * reply mark, and the prompt exactly the last two bytes sent; a datagram
 * that itself starts with the mark is never answered.  Keyed, the input goes in twice: as it
 * is (no MAC can verify: never an answer) and as the payload of a request
 * with a good MAC (first without a ticket, then with the one the stale
 * answer gave), whose reply datagrams must verify, answer that request,
 * be numbered from 0 and end with the one flagged last. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out.h"
#include "lib/sha256.h"
#include "shell/shell.h"
#include "shell/udpsh/udpsh.h"
#include "shell/udpsh/wire.h"

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

/* Keyed replies: verify, answer the request sent, in order, last flagged
 * once at the end. */
static uint8_t fz_rid[UDPSH_WIRE_RID];
static uint64_t fz_ticket;		/* the last stale answer's */

static int fz_send_keyed(void *ctx, uint32_t addr, uint16_t port, const char *data,
			 size_t len)
{
	struct udpsh_wire h;

	(void)ctx;
	(void)addr;
	(void)port;
	if (len > UDPSH_DGRAM_MAX || fz_keyed_last ||
	    !udpsh_wire_open(fz_key, sizeof(fz_key), UDPSH_KIND_REPLY,
			     (const uint8_t *)data, len, &h) ||
	    memcmp(h.rid, fz_rid, sizeof(fz_rid)) != 0 || h.num != fz_next_num++)
		abort();
	fz_keyed_last = h.flags & UDPSH_FLAG_LAST;
	fz_ticket = h.ticket;
	return 0;
}

/* A request for the @n bytes at @cmd under request id @id. */
static size_t fz_request(uint8_t *req, uint8_t id, uint64_t ticket, const uint8_t *cmd,
			 size_t n)
{
	struct udpsh_wire h = { .kind = UDPSH_KIND_REQUEST, .nonce = 0x1234, .ticket = ticket };

	memset(fz_rid, id, sizeof(fz_rid));
	memcpy(h.rid, fz_rid, sizeof(fz_rid));
	fz_next_num = 0;
	fz_keyed_last = 0;
	return udpsh_wire_frame(fz_key, sizeof(fz_key), &h, cmd, n, req);
}

static void fz_keyed(const uint8_t *data, size_t size)
{
	static struct udpsh k;
	static uint8_t req[UDPSH_DGRAM_MAX];
	size_t n = size < UDPSH_DGRAM_MAX - UDPSH_WIRE_OVERHEAD ?
		   size : UDPSH_DGRAM_MAX - UDPSH_WIRE_OVERHEAD;

	udpsh_init(&k, fz_send_keyed, NULL);
	if (udpsh_allow_set(&k, "10.0.2.0/24") != 0 ||
	    udpsh_key_set(&k, fz_key, sizeof(fz_key), 0x1234) != 0)
		abort();
	fz_next_num = 0;
	fz_keyed_last = 0;
	udpsh_input(&k, data, size, 0x0a000202u, 4000);
	if (fz_next_num != 0)
		abort();		/* a datagram without a good MAC was answered */
	/* Without a ticket: one stale answer, which hands one out. */
	udpsh_input(&k, req, fz_request(req, 1, 0, data, n), 0x0a000202u, 4000);
	if (!fz_keyed_last || !fz_ticket)
		abort();
	udpsh_input(&k, req, fz_request(req, 2, fz_ticket, data, n), 0x0a000202u, 4000);
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
	if (size && data[0] == UDPSH_REPLY_MARK) {
		if (fz_replies != 0)
			abort();	/* answered a reply: ping-pong */
	} else if (fz_replies == 0 || fz_last_len < 2 || fz_last[0] != UDPSH_REPLY_MARK ||
		   memcmp(fz_last + fz_last_len - 2, SHELL_PROMPT, 2) != 0) {
		abort();
	}

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
