/* SPDX-License-Identifier: BSD-2-Clause */
/* Tickets and replay: with a key, what may run and what a repeated
 * datagram gets (the protocol: udpsh.h; the reasons: doc/internals.md,
 * "The UDP shell's key and what it protects").
 *
 * What it guarantees, for datagrams whose MAC verified:
 *  - a request runs only by spending a ticket this shell issued in this
 *    boot, at most UDPSH_TICKET_LIFE_NS ago, that nobody spent: a
 *    recorded request never runs twice, never in another boot (the
 *    nonce), never after a relay held it past its ticket's life;
 *  - a retransmission from the requester's address and port gets the
 *    reply kept for it, never a second run, and only while its ticket is
 *    young and at most UDPSH_RESEND_MAX times: a replay with a forged
 *    source cannot reflect a kept reply later;
 *  - every short answer (stale, gone) is UDPSH_WIRE_OVERHEAD bytes, no
 *    larger than the request, and takes a token from its source's bucket
 *    and the global one; one request id is answered at most
 *    UDPSH_REPEAT_MAX times: a replay flood, whatever ids and allowed
 *    addresses it cycles, earns a bounded number of answers and tickets,
 *    and cannot push a young ticket out of the window;
 *  - no table of clients: nothing a client sends locks others out.
 * Against: anyone who records, replays, delays or floods keyed
 * datagrams, from any allowed source address.  Forgery itself is the
 * MAC's to stop (wire.c). */
#include "shell/udpsh/internal.h"

#include "hal/timer.h"
#include "lib/errno.h"
#include "lib/kstring.h"

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

void udpsh_keep(struct udpsh *u, int slot, const uint8_t *d, size_t len)
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

void udpsh_kept_done(struct udpsh *u, int slot)
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

bool udpsh_admit_keyed(struct udpsh *u, const uint8_t *d, size_t len,
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
