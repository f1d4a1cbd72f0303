/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell core: see udpsh.h for the protocol. */
#include "shell/udpsh/udpsh.h"

#include "hal/timer.h"
#include "lib/bytes.h"
#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "lib/sha256.h"
#include "shell/shell.h"

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

#define NS_PER_SEC 1000000000ull

static void udpsh_count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}



/* Keep the @len-byte datagram at @d in @slot for retransmissions, while
 * the whole reply fits. */
static void udpsh_keep(struct udpsh *u, int slot, const uint8_t *d, size_t len)
{
	struct udpsh_kept *k;

	if (slot < 0)
		return;
	k = &u->kept[slot];
	if (!k->whole)
		return;
	if (k->ndgrams == UDPSH_CACHE_DGRAMS || k->bytes + len > UDPSH_CACHE_BYTES) {
		k->whole = false;
		return;
	}
	kmemcpy(k->data + k->bytes, d, len);
	k->lens[k->ndgrams++] = (uint16_t)len;
	k->bytes += (uint32_t)len;
}

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

void udpsh_init(struct udpsh *u, udpsh_send_fn send, void *send_ctx)
{
	kmemset(u, 0, sizeof(*u));
	u->send = send;
	u->send_ctx = send_ctx;
}

/* Parse one entry of @n bytes at @s into @c. */
static int udpsh_parse_entry(const char *s, size_t n, struct udpsh_cidr *c)
{
	char entry[sizeof("255.255.255.255/32")];

	if (n == 0 || n >= sizeof(entry))
		return -EINVAL;
	kmemcpy(entry, s, n);
	entry[n] = '\0';
	return parse_cidr(entry, &c->net, &c->prefix);
}

int udpsh_allow_set(struct udpsh *u, const char *text)
{
	struct udpsh_cidr list[UDPSH_ALLOW_MAX];
	unsigned n = 0;
	const char *s = text;

	for (;;) {
		const char *comma = s;
		int err;

		while (*comma && *comma != ',')
			comma++;
		if (n == UDPSH_ALLOW_MAX)
			return -E2BIG;
		err = udpsh_parse_entry(s, (size_t)(comma - s), &list[n]);
		if (err)
			return err;
		n++;
		if (!*comma)
			break;
		s = comma + 1;
	}
	kmemcpy(u->allow, list, n * sizeof(list[0]));
	u->nallow = n;
	return 0;
}

bool udpsh_allowed(const struct udpsh *u, uint32_t addr)
{
	for (unsigned i = 0; i < u->nallow; i++)
		if (cidr_contains(u->allow[i].net, u->allow[i].prefix, addr))
			return true;
	return false;
}

size_t udpsh_allow_format(const struct udpsh *u, char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned i = 0; i < u->nallow; i++) {
		uint32_t a = u->allow[i].net;
		size_t room = len < size ? size - len : 0;

		len += ksnprintf(room ? buf + len : NULL, room, "%s%u.%u.%u.%u/%u",
				 i ? "," : "", a >> 24, (a >> 16) & 0xff,
				 (a >> 8) & 0xff, a & 0xff, u->allow[i].prefix);
	}
	return len;
}

/* Drop one trailing line end: "\n", "\r\n" or "\r". */
static size_t udpsh_strip_eol(const char *s, size_t len)
{
	if (len && s[len - 1] == '\n')
		len--;
	if (len && s[len - 1] == '\r')
		len--;
	return len;
}

/* Run the request's command into @r; shell_run_line()'s result, or
 * -EINVAL when the datagram was malformed. */
static int udpsh_run(struct udpsh_reply *r)
{
	const struct udpsh_request *rq = r->rq;
	struct shell_ctx sh = { .out = &r->out, .remote = true,
				.authenticated = rq->authenticated };
	const char *s = rq->cmd;
	size_t len;

	if (rq->size > rq->len) {
		out_printf(&r->out, "line longer than %u bytes (got %zu); not run\n",
			   SHELL_LINE_MAX, rq->size);
		return -EINVAL;
	}
	len = udpsh_strip_eol(s, rq->len);
	if (kmemchr(s, '\n', len) || kmemchr(s, '\r', len)) {
		out_puts(&r->out, "datagram holds more than one line; send one command per datagram\n");
		return -EINVAL;
	}
	return shell_run_line(&sh, s, len);
}

int udpsh_key_set(struct udpsh *u, const void *key, size_t len, uint64_t nonce)
{
	if (len < UDPSH_KEY_MIN || len > UDPSH_KEY_MAX || !nonce)
		return -EINVAL;
	kmemcpy(u->key, key, len);
	u->key_len = len;
	u->nonce = nonce;
	u->ticket_top = 0;
	kmemset(u->ticket_spent, 0, sizeof(u->ticket_spent));
	kmemset(u->recent, 0, sizeof(u->recent));
	kmemset(u->sources, 0, sizeof(u->sources));
	u->global.credit_ns = UDPSH_GLOBAL_BURST * (NS_PER_SEC / UDPSH_GLOBAL_RATE);
	u->global.at_ns = hal_clock_ns();
	for (unsigned i = 0; i < UDPSH_CACHE_SLOTS; i++)
		u->kept[i].state = UDPSH_KEPT_FREE;
	u->keyed = true;
	return 0;
}

/* --- tickets ---------------------------------------------------------- */

static uint64_t *udpsh_ticket_word(struct udpsh *u, uint64_t t, uint64_t *bit)
{
	*bit = 1ull << (t % 64);
	return &u->ticket_spent[(t % UDPSH_TICKETS) / 64];
}

/* Issued in this boot: the nonce matched and the shell counted this far. */
static bool udpsh_ticket_issued(const struct udpsh *u, uint64_t t)
{
	return t != 0 && t <= u->ticket_top;
}

/* Issued less than UDPSH_TICKET_LIFE_NS ago (in the window: its birth
 * time is still its own). */
static bool udpsh_ticket_young(const struct udpsh *u, uint64_t t)
{
	return hal_clock_ns() - u->ticket_born[t % UDPSH_TICKETS] < UDPSH_TICKET_LIFE_NS;
}

/* Still in the window, where its bit says whether it was spent. */
static bool udpsh_ticket_in_window(const struct udpsh *u, uint64_t t)
{
	return udpsh_ticket_issued(u, t) && u->ticket_top - t < UDPSH_TICKETS;
}

static bool udpsh_ticket_spent(struct udpsh *u, uint64_t t)
{
	uint64_t bit, *w = udpsh_ticket_word(u, t, &bit);

	return (*w & bit) != 0;
}

/* In the window, unspent (young or not). */
static bool udpsh_ticket_unspent(struct udpsh *u, uint64_t t)
{
	return udpsh_ticket_in_window(u, t) && !udpsh_ticket_spent(u, t);
}

/* May run a request: in the window, unspent and young. */
static bool udpsh_ticket_fresh(struct udpsh *u, uint64_t t)
{
	return udpsh_ticket_unspent(u, t) && udpsh_ticket_young(u, t);
}

static void udpsh_ticket_spend(struct udpsh *u, uint64_t t)
{
	uint64_t bit, *w = udpsh_ticket_word(u, t, &bit);

	*w |= bit;
}

/* The next ticket; its bit, last used by the one that now leaves the
 * window, starts clear. */
static uint64_t udpsh_ticket_issue(struct udpsh *u)
{
	uint64_t bit, t = ++u->ticket_top, *w = udpsh_ticket_word(u, t, &bit);

	*w &= ~bit;
	u->ticket_born[t % UDPSH_TICKETS] = hal_clock_ns();
	udpsh_count(&u->stats.tickets);
	return t;
}

/* --- short answers, rate limited per request id and per source -------- */

/* Bring @b's credit up to @now, at most @burst tokens of 1/@rate s. */
static void udpsh_bucket_fill(struct udpsh_bucket *b, uint64_t now,
			      unsigned rate, unsigned burst)
{
	uint64_t cap = burst * (NS_PER_SEC / rate);

	if (now > b->at_ns)
		b->credit_ns += now - b->at_ns;
	if (b->credit_ns > cap)
		b->credit_ns = cap;
	b->at_ns = now;
}

static bool udpsh_bucket_has(const struct udpsh_bucket *b, unsigned rate)
{
	return b->credit_ns >= NS_PER_SEC / rate;
}

/* @addr's bucket, or a new one, full, in place of the one idle longest:
 * the global bucket bounds what fresh buckets for many addresses give. */
static struct udpsh_bucket *udpsh_source_bucket(struct udpsh *u, uint32_t addr,
						uint64_t now)
{
	struct udpsh_bucket *b = &u->sources[0];

	for (unsigned i = 0; i < UDPSH_SOURCES; i++) {
		struct udpsh_bucket *e = &u->sources[i];

		if (e->at_ns && e->addr == addr)
			return e;
		if (e->at_ns < b->at_ns)
			b = e;
	}
	b->addr = addr;
	b->credit_ns = UDPSH_SOURCE_BURST * (NS_PER_SEC / UDPSH_SOURCE_RATE);
	b->at_ns = now;
	return b;
}

/* One short answer to @addr, if both its bucket and the global one hold
 * a token: true, and both are charged. */
static bool udpsh_rate_take(struct udpsh *u, uint32_t addr)
{
	uint64_t now = hal_clock_ns();
	struct udpsh_bucket *src = udpsh_source_bucket(u, addr, now);

	udpsh_bucket_fill(src, now, UDPSH_SOURCE_RATE, UDPSH_SOURCE_BURST);
	udpsh_bucket_fill(&u->global, now, UDPSH_GLOBAL_RATE, UDPSH_GLOBAL_BURST);
	if (!udpsh_bucket_has(src, UDPSH_SOURCE_RATE) ||
	    !udpsh_bucket_has(&u->global, UDPSH_GLOBAL_RATE))
		return false;
	src->credit_ns -= NS_PER_SEC / UDPSH_SOURCE_RATE;
	u->global.credit_ns -= NS_PER_SEC / UDPSH_GLOBAL_RATE;
	return true;
}

/* The remembered entry for @rid, or a new one (the oldest replaced). */
static struct udpsh_recent *udpsh_recent_get(struct udpsh *u, const uint8_t *rid)
{
	struct udpsh_recent *r;

	for (unsigned i = 0; i < UDPSH_RECENT; i++)
		if (kmemcmp(u->recent[i].rid, rid, UDPSH_WIRE_RID) == 0 && u->recent[i].answers)
			return &u->recent[i];
	r = &u->recent[u->recent_next++ % UDPSH_RECENT];
	kmemcpy(r->rid, rid, UDPSH_WIRE_RID);
	r->ticket = 0;
	r->answers = 0;
	return r;
}

/* One more short answer for @rq's request id, or NULL (counted) when it
 * was asked UDPSH_REPEAT_MAX times already or its source or everyone is
 * over the rate. */
static struct udpsh_recent *udpsh_recent_answer(struct udpsh *u,
						const struct udpsh_request *rq)
{
	struct udpsh_recent *r = udpsh_recent_get(u, rq->rid);

	if (r->answers >= UDPSH_REPEAT_MAX) {
		udpsh_count(&u->stats.limited);
		return NULL;
	}
	/* Counted whether or not the rate lets it be answered: a replay
	 * refused for the rate must still use up its id's share, not take
	 * a new entry (and a token) each time it comes. */
	r->answers++;
	if (!udpsh_rate_take(u, rq->addr)) {
		udpsh_count(&u->stats.limited);
		return NULL;
	}
	return r;
}

/* A reply of header and MAC alone (kept in @slot when that is >= 0). */
static void udpsh_send_short(struct udpsh *u, const struct udpsh_request *rq,
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

/* No valid ticket: not run; a fresh ticket, the same one while unspent
 * and young for the same request id. */
static void udpsh_answer_stale(struct udpsh *u, const struct udpsh_request *rq)
{
	struct udpsh_recent *r = udpsh_recent_answer(u, rq);

	if (!r)
		return;
	if (!udpsh_ticket_fresh(u, r->ticket))
		r->ticket = udpsh_ticket_issue(u);
	udpsh_count(&u->stats.stale);
	udpsh_send_short(u, rq, UDPSH_FLAG_STALE, 0, r->ticket, -1);
}

/* --- kept replies ------------------------------------------------------- */

static struct udpsh_kept *udpsh_kept_find(struct udpsh *u, uint64_t ticket,
					  const uint8_t *rid)
{
	for (unsigned i = 0; i < UDPSH_CACHE_SLOTS; i++) {
		struct udpsh_kept *k = &u->kept[i];

		if (__atomic_load_n(&k->state, __ATOMIC_ACQUIRE) != UDPSH_KEPT_FREE &&
		    k->ticket == ticket && kmemcmp(k->rid, rid, UDPSH_WIRE_RID) == 0)
			return k;
	}
	return NULL;
}

/* A slot for @rq's reply: a free one, else the least recently used one
 * whose command is done; -1 when every slot's is still running. */
static int udpsh_kept_take(struct udpsh *u, const struct udpsh_request *rq,
			   uint64_t ticket)
{
	struct udpsh_kept *k = NULL;
	int slot = -1;

	for (unsigned i = 0; i < UDPSH_CACHE_SLOTS; i++) {
		struct udpsh_kept *e = &u->kept[i];
		uint8_t st = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);

		if (st == UDPSH_KEPT_RUNNING)
			continue;
		if (!k || st == UDPSH_KEPT_FREE || (k->state != UDPSH_KEPT_FREE && e->used < k->used)) {
			k = e;
			slot = (int)i;
		}
	}
	if (!k)
		return -1;
	k->whole = true;
	k->resends = 0;
	k->addr = rq->addr;
	k->port = rq->port;
	k->ticket = ticket;
	k->used = ++u->kept_clock;
	kmemcpy(k->rid, rq->rid, UDPSH_WIRE_RID);
	k->ndgrams = 0;
	k->bytes = 0;
	k->state = UDPSH_KEPT_RUNNING;
	return slot;
}

/* The command is done: its slot may be resent, or reused. */
static void udpsh_kept_done(struct udpsh *u, int slot)
{
	if (slot >= 0)
		__atomic_store_n(&u->kept[slot].state, UDPSH_KEPT_DONE, __ATOMIC_RELEASE);
}

static void udpsh_kept_resend(struct udpsh *u, struct udpsh_kept *k)
{
	const uint8_t *d = k->data;

	k->resends++;
	k->used = ++u->kept_clock;
	udpsh_count(&u->stats.resent);
	for (unsigned i = 0; i < k->ndgrams; d += k->lens[i++])
		if (u->send(u->send_ctx, k->addr, k->port, (const char *)d, k->lens[i]) < 0)
			udpsh_count(&u->stats.send_failed);
}

/* A spent ticket (or one that left the window): never run again.  The
 * same request from the same source gets its kept reply again while the
 * ticket is young (after that a replay with a forged source would only
 * reflect it); while its command runs, nothing (the reply is on its
 * way); else "gone". */
static void udpsh_answer_spent(struct udpsh *u, const struct udpsh_request *rq,
			       uint64_t ticket)
{
	struct udpsh_kept *k = udpsh_kept_find(u, ticket, rq->rid);

	if (k && k->addr == rq->addr && k->port == rq->port) {
		if (__atomic_load_n(&k->state, __ATOMIC_ACQUIRE) == UDPSH_KEPT_RUNNING)
			return;
		if (k->whole && k->resends < UDPSH_RESEND_MAX &&
		    udpsh_ticket_in_window(u, ticket) && udpsh_ticket_young(u, ticket)) {
			udpsh_kept_resend(u, k);
			return;
		}
	}
	if (!udpsh_recent_answer(u, rq))
		return;
	udpsh_count(&u->stats.gone);
	udpsh_send_short(u, rq, UDPSH_FLAG_GONE, 0, 0, -1);
}

/* Keyed: check framing and MAC, answer what may not run; fill @rq when
 * it may. */
static bool udpsh_admit_keyed(struct udpsh *u, const uint8_t *d, size_t len,
			      size_t size, struct udpsh_request *rq)
{
	struct udpsh_wire h;

	if (size > len) {
		/* No reassembly, and no MAC to check on a part. */
		udpsh_count(&u->stats.cut_short);
		return false;
	}
	if (!udpsh_wire_open(u->key, u->key_len, UDPSH_KIND_REQUEST, d, len, &h)) {
		udpsh_count(&u->stats.bad_mac);
		return false;
	}
	kmemcpy(rq->rid, h.rid, UDPSH_WIRE_RID);
	if (h.nonce != u->nonce || !udpsh_ticket_issued(u, h.ticket)) {
		udpsh_answer_stale(u, rq);
		return false;
	}
	if (!udpsh_ticket_unspent(u, h.ticket)) {
		udpsh_answer_spent(u, rq, h.ticket);
		return false;
	}
	/* Unspent but old: held back and fired late, never run. */
	if (!udpsh_ticket_young(u, h.ticket)) {
		udpsh_answer_stale(u, rq);
		return false;
	}
	udpsh_ticket_spend(u, h.ticket);
	rq->slot = udpsh_kept_take(u, rq, h.ticket);
	rq->authenticated = true;
	rq->cmd = (const char *)d + UDPSH_WIRE_HDR;
	rq->len = len - UDPSH_WIRE_OVERHEAD;
	rq->size = rq->len;
	return true;
}

/* --- keyless: the amplification bound's cookie ------------------------- */

void udpsh_cookie_set(struct udpsh *u, const void *secret, size_t len)
{
	if (len > sizeof(u->cookie_secret))
		len = sizeof(u->cookie_secret);
	kmemset(u->cookie_secret, 0, sizeof(u->cookie_secret));
	kmemcpy(u->cookie_secret, secret, len);
	u->amp_limit = true;
}

static void udpsh_cookie_epoch(const struct udpsh *u, uint32_t addr, uint16_t port,
			       uint64_t epoch, char hex[UDPSH_COOKIE_HEX + 1])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t msg[14], mac[SHA256_LEN];

	msg[0] = (uint8_t)(addr >> 24);
	msg[1] = (uint8_t)(addr >> 16);
	msg[2] = (uint8_t)(addr >> 8);
	msg[3] = (uint8_t)addr;
	msg[4] = (uint8_t)(port >> 8);
	msg[5] = (uint8_t)port;
	be64_put(msg + 6, epoch);
	hmac_sha256(u->cookie_secret, sizeof(u->cookie_secret), msg, sizeof(msg), mac);
	for (unsigned i = 0; i < UDPSH_COOKIE_HEX / 2; i++) {
		hex[2 * i] = digits[mac[i] >> 4];
		hex[2 * i + 1] = digits[mac[i] & 15];
	}
	hex[UDPSH_COOKIE_HEX] = '\0';
}

void udpsh_cookie(const struct udpsh *u, uint32_t addr, uint16_t port,
		  uint64_t now_ns, char hex[UDPSH_COOKIE_HEX + 1])
{
	udpsh_cookie_epoch(u, addr, port, now_ns / UDPSH_COOKIE_EPOCH_NS, hex);
}

/* A request starting "@" and 16 hex digits (then one space, or the end):
 * take the cookie off @rq's command; true when it is this address's, of
 * this epoch or the last. */
static bool udpsh_cookie_take(const struct udpsh *u, struct udpsh_request *rq)
{
	char want[UDPSH_COOKIE_HEX + 1];
	uint64_t epoch = hal_clock_ns() / UDPSH_COOKIE_EPOCH_NS;
	size_t n = 1 + UDPSH_COOKIE_HEX;
	bool ok;

	if (rq->len < n || rq->cmd[0] != '@')
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((rq->cmd[i] >= '0' && rq->cmd[i] <= '9') ||
		      (rq->cmd[i] >= 'a' && rq->cmd[i] <= 'f')))
			return false;
	if (rq->len > n && rq->cmd[n] != ' ')
		return false;
	udpsh_cookie_epoch(u, rq->addr, rq->port, epoch, want);
	ok = ct_equal(want, rq->cmd + 1, UDPSH_COOKIE_HEX);
	if (!ok && epoch) {
		udpsh_cookie_epoch(u, rq->addr, rq->port, epoch - 1, want);
		ok = ct_equal(want, rq->cmd + 1, UDPSH_COOKIE_HEX);
	}
	if (rq->len > n)
		n++;
	rq->cmd += n;
	rq->len -= n;
	rq->size -= n;
	return ok;
}

/* Keyless: the reply's bound, from the request as it came. */
static void udpsh_bound(struct udpsh *u, struct udpsh_request *rq)
{
	rq->budget = SIZE_MAX;
	if (!u->amp_limit)
		return;
	if (udpsh_cookie_take(u, rq)) {
		udpsh_count(&u->stats.cookies);
		return;
	}
	rq->budget = UDPSH_AMP_FACTOR * (rq->dgram_len + UDPSH_WIRE_IP_UDP);
}

bool udpsh_admit(struct udpsh *u, const void *data, size_t len, size_t size,
		 uint32_t addr, uint16_t port, struct udpsh_request *rq)
{
	udpsh_count(&u->stats.datagrams_in);
	if (!udpsh_allowed(u, addr)) {
		udpsh_count(&u->stats.dropped_allow);
		return false;
	}
	kmemset(rq, 0, sizeof(*rq));
	rq->slot = -1;
	rq->budget = SIZE_MAX;
	rq->addr = addr;
	rq->port = port;
	rq->dgram_len = len;
	if (u->keyed)
		return udpsh_admit_keyed(u, data, len, size, rq);
	/* Another shell's reply (ours, bounced back by a forged request, or
	 * a second keyless shell's): answering it would start a ping-pong. */
	if (len && *(const uint8_t *)data == UDPSH_REPLY_MARK) {
		udpsh_count(&u->stats.replies_in);
		return false;
	}
	if (size > len)
		udpsh_count(&u->stats.cut_short);
	rq->cmd = data;
	rq->len = len;
	rq->size = size;
	udpsh_bound(u, rq);
	return true;
}

void udpsh_busy(struct udpsh *u, const struct udpsh_request *rq)
{
	static const char busy[] = UDPSH_REPLY_MARK_STR "busy";
	size_t n = sizeof(busy) - 1;

	udpsh_count(&u->stats.busy);
	if (rq->authenticated) {
		udpsh_send_short(u, rq, 0, UDPSH_STATUS_BUSY, 0, rq->slot);
		udpsh_kept_done(u, rq->slot);
		return;
	}
	if (n > rq->dgram_len)
		n = rq->dgram_len;
	if (n && u->send(u->send_ctx, rq->addr, rq->port, busy, n) < 0)
		udpsh_count(&u->stats.send_failed);
}

void udpsh_serve(struct udpsh *u, const struct udpsh_request *rq)
{
	struct udpsh_reply r;
	int rc;

	r.out.write = udpsh_reply_write;
	r.u = u;
	r.rq = rq;
	r.len = 0;
	r.line = 0;
	r.num = 0;
	r.spent = 0;
	r.cut = false;
	r.cap = rq->authenticated ? UDPSH_DGRAM_MAX - UDPSH_WIRE_OVERHEAD
				  : UDPSH_PLAIN_MAX;
	rc = udpsh_run(&r);
	if (rc == -EINVAL)
		udpsh_count(&u->stats.malformed);
	r.status = rc ? UDPSH_STATUS_FAILED : UDPSH_STATUS_OK;
	udpsh_reply_finish(&r);
	udpsh_kept_done(u, rq->slot);
	udpsh_count(&u->stats.answered);
}

void udpsh_input_sized(struct udpsh *u, const void *data, size_t len,
		       size_t size, uint32_t addr, uint16_t port)
{
	struct udpsh_request rq;

	if (udpsh_admit(u, data, len, size, addr, port, &rq))
		udpsh_serve(u, &rq);
}

void udpsh_input(struct udpsh *u, const void *data, size_t len,
		 uint32_t addr, uint16_t port)
{
	udpsh_input_sized(u, data, len, len, addr, port);
}
