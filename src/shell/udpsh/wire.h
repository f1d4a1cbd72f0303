/* SPDX-License-Identifier: BSD-2-Clause */
/* The keyed UDP shell's wire format, second version: the one definition
 * that the kernel (src/shell/udpsh/) and its client (tools/kshell.c) both
 * compile.  doc/shell.md ("The keyed wire") shows one request and its
 * reply byte by byte under a published test key; check_udpsh_wire checks that
 * example against this code.
 *
 * Every datagram, either way:
 *
 *   off len
 *   0   4   magic "KPA2"
 *   4   1   kind: 1 request, 2 reply
 *   5   1   flags (reply): 1 last, 2 stale, 4 gone
 *   6   1   status (reply, in the datagram flagged last): 0 ok,
 *           1 the command failed, 2 busy (not run)
 *   7   1   zero
 *   8   8   boot nonce, big-endian: a request's is the one its ticket
 *           came with (0 before it has one); a reply's is the shell's
 *   16  8   ticket, big-endian: a request spends it (0: none yet); a
 *           stale reply hands out the one to retry with; else 0
 *   24  16  request id: chosen at random by the client for each request
 *           it sends, repeated by every datagram of the reply to it
 *   40  2   reply number, big-endian: 0, 1, 2 ... within one reply
 *   42  6   zero
 *   48  n   payload: the command, or a piece of the output
 *   48+n 32 HMAC-SHA256 under the key of bytes 0 .. 48+n
 *
 * A request runs once, when it spends a ticket the shell issued in this
 * boot (the nonce is the boot's) and nobody has spent yet.  Anything
 * else that verifies is answered in one short datagram (UDPSH_WIRE_
 * OVERHEAD bytes, no larger than any request): stale (not run; retry
 * with the ticket it carries, under a new request id) or, for a spent
 * ticket, the reply kept for it sent again (a retransmission) or gone
 * (it was spent; the reply is no longer kept: it may have run). */
#ifndef KPROF_SHELL_UDPSH_WIRE_H
#define KPROF_SHELL_UDPSH_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The first byte of every keyless reply datagram (ASCII RS, a control
 * byte no command can start with); a shell never answers a datagram that
 * starts with it.  Here because kshell reads it too. */
#define UDPSH_REPLY_MARK 0x1e
#define UDPSH_REPLY_MARK_STR "\x1e"

#define UDPSH_KEY_MIN 16
#define UDPSH_KEY_MAX 64

#define UDPSH_WIRE_MAGIC "KPA2"
#define UDPSH_WIRE_HDR 48
#define UDPSH_WIRE_MAC 32
#define UDPSH_WIRE_OVERHEAD (UDPSH_WIRE_HDR + UDPSH_WIRE_MAC)
#define UDPSH_WIRE_RID 16

#define UDPSH_KIND_REQUEST 1
#define UDPSH_KIND_REPLY 2

#define UDPSH_FLAG_LAST 1
#define UDPSH_FLAG_STALE 2
#define UDPSH_FLAG_GONE 4

#define UDPSH_STATUS_OK 0
#define UDPSH_STATUS_FAILED 1
#define UDPSH_STATUS_BUSY 2

/* One datagram's header, decoded. */
struct udpsh_wire {
	uint8_t kind, flags, status;
	uint16_t num;
	uint64_t nonce, ticket;
	uint8_t rid[UDPSH_WIRE_RID];
};

/* Write header @h, the @n payload bytes at @payload and the MAC under
 * @key (@klen bytes) into @d, which has room for UDPSH_WIRE_OVERHEAD + @n
 * bytes.  Returns the datagram's length. */
size_t udpsh_wire_frame(const uint8_t *key, size_t klen, const struct udpsh_wire *h,
			const void *payload, size_t n, uint8_t *d);

/* Check the @len bytes at @d: magic, zero bytes, @kind and the MAC under
 * @key.  True, with the header in @h, when they hold; the payload is
 * then d[UDPSH_WIRE_HDR .. len - UDPSH_WIRE_MAC). */
bool udpsh_wire_open(const uint8_t *key, size_t klen, uint8_t kind,
		     const uint8_t *d, size_t len, struct udpsh_wire *h);

/* Read a key written in hex (two digits a byte, either case), optionally
 * followed by blanks or line ends, from the @len bytes at @text into
 * @key (UDPSH_KEY_MAX bytes).  Returns the key's length, or -EINVAL when
 * the text is not that or the key is not UDPSH_KEY_MIN to UDPSH_KEY_MAX
 * bytes.  Never prints: the caller says what was wrong without the key. */
int udpsh_key_parse(const char *text, size_t len, uint8_t *key);

/* True when @key (@len bytes) is one byte repeated (all zero, all 0xff,
 * ...): what a placeholder or a failed random source writes, never a
 * secret.  Every reader of a key refuses it. */
bool udpsh_key_weak(const uint8_t *key, size_t len);

#endif
