/* SPDX-License-Identifier: BSD-2-Clause */
/* What the files of src/shell/udpsh share and nobody else needs: the
 * calls from one concern into another as a request goes through the core
 * (admit.c, then reply.c; tickets.c and cookie.c on the way). */
#ifndef KPROF_SHELL_UDPSH_INTERNAL_H
#define KPROF_SHELL_UDPSH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/out.h"
#include "shell/udpsh/udpsh.h"
#include "shell/udpsh/wire.h"

#define NS_PER_SEC 1000000000ull

/* Counters have one writer (the caller of udpsh_input()); readers
 * elsewhere load them relaxed (udpsh_stats_read()). */
static inline void udpsh_count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* ---- reply.c: the reply to one request, packed into datagrams ---- */

/* The reply being built: an out sink that holds at most one datagram's
 * payload.  buf[0..line) are whole lines, buf[line..len) the line still
 * being written.  A byte that does not fit sends the whole lines and
 * keeps the unfinished one; a line that fills buf alone is cut there.
 * Keyed, each payload goes out inside the authenticated framing. */
struct udpsh_reply {
	struct out out;
	struct udpsh *u;
	const struct udpsh_request *rq;
	size_t len, line, cap;
	uint16_t num;		/* the next datagram's reply number */
	size_t spent;		/* keyless: wire bytes sent so far */
	bool cut;		/* keyless: the bound was reached; the rest dropped */
	uint8_t status;		/* keyed: the command's, in the last datagram */
	char buf[UDPSH_DGRAM_MAX];
};

/* Start @r, the reply to @rq: its out sink takes the command's output. */
void udpsh_reply_open(struct udpsh_reply *r, struct udpsh *u,
		      const struct udpsh_request *rq);

/* Send what is left of @r's output and the prompt; keyed, the last
 * datagram carries @status. */
void udpsh_reply_close(struct udpsh_reply *r, uint8_t status);

/* Keyed: a reply of header and MAC alone to @rq, with @flags (LAST is
 * added), @status and @ticket; kept in @slot when that is >= 0.  From the
 * receive path: never waits. */
void udpsh_send_short(struct udpsh *u, const struct udpsh_request *rq,
		      uint8_t flags, uint8_t status, uint64_t ticket, int slot);

/* ---- tickets.c: keyed admission, tickets, kept replies ---- */

/* Keyed: check framing and MAC, answer what may not run (stale, gone, a
 * kept reply again); fill @rq and return true when it may. */
bool udpsh_admit_keyed(struct udpsh *u, const uint8_t *d, size_t len,
		       size_t size, struct udpsh_request *rq);

/* Keep the @len-byte datagram at @d in @slot (-1: none) for
 * retransmissions, while the whole reply fits. */
void udpsh_keep(struct udpsh *u, int slot, const uint8_t *d, size_t len);

/* The command in @slot (-1: none) is done: its reply may be resent, its
 * slot reused. */
void udpsh_kept_done(struct udpsh *u, int slot);

/* ---- cookie.c: the keyless amplification bound ---- */

/* Keyless: set @rq's budget, from the request as it came; a valid cookie
 * is taken off its command and lifts the bound. */
void udpsh_bound(struct udpsh *u, struct udpsh_request *rq);

#endif
