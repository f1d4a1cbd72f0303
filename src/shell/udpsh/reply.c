/* SPDX-License-Identifier: BSD-2-Clause */
/* Reply packing: a command's output into reply datagrams, sent as it is
 * written (the protocol: udpsh.h).
 *
 * What it guarantees, whatever the command writes:
 *  - no datagram is larger than UDPSH_DGRAM_MAX, so none is fragmented
 *    on an Ethernet path; lines stay whole but for one longer than a
 *    datagram; the prompt goes last and whole, so a client knows the end;
 *  - keyless, every datagram starts with UDPSH_REPLY_MARK, which no shell
 *    answers: a forged datagram cannot set two shells bouncing;
 *  - keyless, to an address that has not echoed its cookie (cookie.c),
 *    the reply takes at most UDPSH_AMP_FACTOR times the request's wire
 *    bytes, hint included: a forged source cannot use the shell to
 *    amplify a flood toward the address it names;
 *  - keyed, every datagram is framed and MACed under the key (wire.c),
 *    names the request it answers and its number in the reply, and the
 *    last carries the command's status: a client takes nothing a third
 *    party wrote, and sees a datagram lost or reordered.
 * Against: a peer that forges its source address, and one that injects
 * or reorders datagrams on the path. */
#include "shell/udpsh/internal.h"

#include "hal/timer.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "shell/shell.h"

/* The header of a reply to @rq. */
static void udpsh_reply_hdr(const struct udpsh *u, const struct udpsh_request *rq,
			    struct udpsh_wire *h)
{
	kmemset(h, 0, sizeof(*h));
	h->kind = UDPSH_KIND_REPLY;
	h->nonce = u->nonce;
	kmemcpy(h->rid, rq->rid, UDPSH_WIRE_RID);
}

/* The hint a cut reply ends with: its datagram, mark and prompt included,
 * fits the smallest bound (an empty request's 3 * 28 wire bytes). */
#define UDPSH_HINT_FMT "cookie @%s: start the request with it\n"
#define UDPSH_HINT_LEN (sizeof("cookie @: start the request with it\n") - 1 + UDPSH_COOKIE_HEX)
#define UDPSH_HINT_COST (UDPSH_WIRE_IP_UDP + 1 + UDPSH_HINT_LEN + 2)

/* Keyless: may a datagram of @len bytes (mark included) go out within the
 * request's bound, keeping room for the hint unless it is the last?  Once
 * one may not, none of the output does (r->cut): the hint closes it. */
static bool udpsh_within_bound(struct udpsh_reply *r, size_t len, bool last)
{
	size_t cost = len + UDPSH_WIRE_IP_UDP;
	size_t room = r->rq->budget;

	if (room == SIZE_MAX)
		return true;
	if (!last || r->cut)
		room = room > UDPSH_HINT_COST ? room - UDPSH_HINT_COST : 0;
	if (r->cut || r->spent + cost > room) {
		r->cut = true;
		return false;
	}
	r->spent += cost;
	return true;
}

static void udpsh_send(struct udpsh_reply *r, size_t len, bool last)
{
	struct udpsh *u = r->u;
	const char *data = r->buf;

	if (!r->rq->authenticated) {
		/* Marked as a reply, which no shell answers. */
		u->tx[0] = UDPSH_REPLY_MARK;
		kmemcpy(u->tx + 1, r->buf, len);
		data = (const char *)u->tx;
		len++;
	} else {
		struct udpsh_wire h;

		udpsh_reply_hdr(u, r->rq, &h);
		h.flags = last ? UDPSH_FLAG_LAST : 0;
		h.status = last ? r->status : 0;
		h.num = r->num;
		len = udpsh_wire_frame(u->key, u->key_len, &h, r->buf, len, u->tx);
		udpsh_keep(u, r->rq->slot, u->tx, len);
		data = (const char *)u->tx;
	}
	r->num++;
	if (!r->rq->authenticated && !udpsh_within_bound(r, len, last))
		return;
	if (u->send(u->send_ctx, r->rq->addr, r->rq->port, data, len) < 0)
		udpsh_count(&u->stats.send_failed);
}

/* Send buf[0..n) and keep what follows it at the start of buf. */
static void udpsh_reply_flush(struct udpsh_reply *r, size_t n, bool last)
{
	udpsh_send(r, n, last);
	for (size_t i = n; i < r->len; i++)
		r->buf[i - n] = r->buf[i];
	r->len -= n;
	r->line = r->line > n ? r->line - n : 0;
}

static void udpsh_reply_putc(struct udpsh_reply *r, char c)
{
	if (r->len == r->cap)
		udpsh_reply_flush(r, r->line ? r->line : r->len, false);
	r->buf[r->len++] = c;
	if (c == '\n')
		r->line = r->len;
}

static void udpsh_reply_write(struct out *o, const char *s, size_t n)
{
	struct udpsh_reply *r = (struct udpsh_reply *)o;

	for (size_t i = 0; i < n; i++)
		udpsh_reply_putc(r, s[i]);
}

/* Keyless: the wire bytes the end of the reply takes (below): the rest
 * of the output and the prompt, in one datagram or two. */
static size_t udpsh_finish_cost(const struct udpsh_reply *r, size_t plen)
{
	size_t one = UDPSH_WIRE_IP_UDP + 1;

	if (r->len + plen > r->cap)
		return 2 * one + r->len + plen;
	return one + r->len + plen;
}

/* The prompt goes last and whole: with the end of the output when both
 * fit one datagram, else alone after it. */
static void udpsh_reply_finish(struct udpsh_reply *r)
{
	size_t plen = sizeof(SHELL_PROMPT) - 1;

	/* Keyless and over the bound: what fitted went; the rest gives way
	 * to the hint (udpsh_within_bound() kept room for it). */
	if (!r->rq->authenticated && r->rq->budget != SIZE_MAX &&
	    (r->cut || r->spent + udpsh_finish_cost(r, plen) > r->rq->budget)) {
		char hex[UDPSH_COOKIE_HEX + 1];

		udpsh_cookie(r->u, r->rq->addr, r->rq->port, hal_clock_ns(), hex);
		udpsh_count(&r->u->stats.cut);
		r->len = (size_t)ksnprintf(r->buf, r->cap, UDPSH_HINT_FMT, hex);
		r->line = r->len;
		r->cut = false;
	}

	if (r->len + plen > r->cap)
		udpsh_reply_flush(r, r->len, false);
	kmemcpy(r->buf + r->len, SHELL_PROMPT, plen);
	r->len += plen;
	udpsh_reply_flush(r, r->len, true);
}

void udpsh_send_short(struct udpsh *u, const struct udpsh_request *rq,
		      uint8_t flags, uint8_t status, uint64_t ticket, int slot)
{
	uint8_t d[UDPSH_WIRE_OVERHEAD];
	struct udpsh_wire h;
	size_t n;

	udpsh_reply_hdr(u, rq, &h);
	h.flags = flags | UDPSH_FLAG_LAST;
	h.status = status;
	h.ticket = ticket;
	n = udpsh_wire_frame(u->key, u->key_len, &h, NULL, 0, d);
	udpsh_keep(u, slot, d, n);
	if (u->send(u->send_ctx, rq->addr, rq->port, (const char *)d, n) < 0)
		udpsh_count(&u->stats.send_failed);
}

void udpsh_reply_open(struct udpsh_reply *r, struct udpsh *u,
		      const struct udpsh_request *rq)
{
	r->out.write = udpsh_reply_write;
	r->u = u;
	r->rq = rq;
	r->len = 0;
	r->line = 0;
	r->num = 0;
	r->spent = 0;
	r->cut = false;
	r->status = UDPSH_STATUS_OK;
	r->cap = rq->authenticated ? UDPSH_DGRAM_MAX - UDPSH_WIRE_OVERHEAD
				   : UDPSH_PLAIN_MAX;
}

void udpsh_reply_close(struct udpsh_reply *r, uint8_t status)
{
	r->status = status;
	udpsh_reply_finish(r);
}
