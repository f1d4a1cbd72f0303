/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell core: see udpsh.h for the protocol. */
#include "shell/udpsh.h"

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
	char buf[UDPSH_DGRAM_MAX];
};

static void udpsh_count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}



/* Frame @n payload bytes at @payload as a keyed reply into @d (room for
 * UDPSH_DGRAM_MAX); returns the datagram's length. */
static size_t udpsh_frame_reply(const struct udpsh *u, uint8_t *d, uint64_t seq,
				uint8_t flags, uint16_t num, const void *payload,
				size_t n)
{
	kmemcpy(d, UDPSH_AUTH_MAGIC, 4);
	be64_put(d + 4, u->nonce);
	be64_put(d + 12, seq);
	d[20] = UDPSH_DIR_REPLY;
	d[21] = flags;
	d[22] = (uint8_t)(num >> 8);
	d[23] = (uint8_t)num;
	be64_put(d + 24, __atomic_load_n(&u->mark, __ATOMIC_RELAXED));
	if (n)
		kmemcpy(d + UDPSH_AUTH_HDR, payload, n);
	hmac_sha256(u->key, u->key_len, d, UDPSH_AUTH_HDR + n, d + UDPSH_AUTH_HDR + n);
	return UDPSH_AUTH_OVERHEAD + n;
}

static void udpsh_send(struct udpsh_reply *r, size_t len, bool last)
{
	struct udpsh *u = r->u;
	const char *data = r->buf;

	if (r->rq->authenticated) {
		len = udpsh_frame_reply(u, u->tx, r->rq->seq, last ? UDPSH_FLAG_LAST : 0,
					r->num, r->buf, len);
		data = (const char *)u->tx;
	}
	r->num++;
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

/* The prompt goes last and whole: with the end of the output when both
 * fit one datagram, else alone after it. */
static void udpsh_reply_finish(struct udpsh_reply *r)
{
	size_t plen = sizeof(SHELL_PROMPT) - 1;

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

/* Run the request's command into @r; true when it was malformed. */
static bool udpsh_run(struct udpsh_reply *r)
{
	const struct udpsh_request *rq = r->rq;
	struct shell_ctx sh = { .out = &r->out, .remote = true,
				.authenticated = rq->authenticated };
	const char *s = rq->cmd;
	size_t len;

	if (rq->size > rq->len) {
		out_printf(&r->out, "line longer than %u bytes (got %zu); not run\n",
			   SHELL_LINE_MAX, rq->size);
		return true;
	}
	len = udpsh_strip_eol(s, rq->len);
	if (kmemchr(s, '\n', len) || kmemchr(s, '\r', len)) {
		out_puts(&r->out, "datagram holds more than one line; send one command per datagram\n");
		return true;
	}
	return shell_run_line(&sh, s, len) == -EINVAL;
}

int udpsh_key_set(struct udpsh *u, const void *key, size_t len, uint64_t nonce)
{
	if (len < UDPSH_KEY_MIN || len > UDPSH_KEY_MAX || !nonce)
		return -EINVAL;
	kmemcpy(u->key, key, len);
	u->key_len = len;
	u->nonce = nonce;
	u->mark = 0;
	u->keyed = true;
	return 0;
}

static int udpsh_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int udpsh_key_parse(const char *text, size_t len, uint8_t *key)
{
	size_t n = 0, i = 0;

	for (; i + 1 < len; i += 2) {
		int hi = udpsh_hex(text[i]), lo = udpsh_hex(text[i + 1]);

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

/* Remember a peer whose MAC verified; the least recently seen entry
 * makes room. */
static void udpsh_peer_note(struct udpsh *u, uint32_t addr, uint16_t port, uint64_t seq)
{
	struct udpsh_peer *p = NULL, *old = &u->peers[0];

	for (unsigned i = 0; i < UDPSH_PEERS; i++) {
		struct udpsh_peer *e = &u->peers[i];

		if (e->addr == addr && e->port == port && (e->addr || e->requests)) {
			p = e;
			break;
		}
		if (e->used < old->used)
			old = e;
	}
	if (!p) {
		p = old;
		kmemset(p, 0, sizeof(*p));
		p->addr = addr;
		p->port = port;
		udpsh_count(&u->stats.peers);
	}
	p->requests++;
	p->last_seq = seq;
	p->used = ++u->peer_clock;
}

/* A stale or busy answer: header and MAC, no payload. */
static void udpsh_send_short(struct udpsh *u, uint32_t addr, uint16_t port,
			     uint64_t seq, uint8_t flags)
{
	uint8_t d[UDPSH_AUTH_OVERHEAD];
	size_t n = udpsh_frame_reply(u, d, seq, flags | UDPSH_FLAG_LAST, 0, NULL, 0);

	if (u->send(u->send_ctx, addr, port, (const char *)d, n) < 0)
		udpsh_count(&u->stats.send_failed);
}

/* Keyed: check framing, MAC and freshness; fill @rq when it may run. */
static bool udpsh_admit_keyed(struct udpsh *u, const uint8_t *d, size_t len,
			      size_t size, struct udpsh_request *rq)
{
	uint8_t mac[SHA256_LEN];
	uint64_t nonce, seq;

	if (size > len) {
		/* No reassembly, and no MAC to check on a part. */
		udpsh_count(&u->stats.cut_short);
		return false;
	}
	if (len < UDPSH_AUTH_OVERHEAD || kmemcmp(d, UDPSH_AUTH_MAGIC, 4) != 0 ||
	    d[20] != UDPSH_DIR_REQUEST) {
		udpsh_count(&u->stats.bad_mac);
		return false;
	}
	hmac_sha256(u->key, u->key_len, d, len - UDPSH_AUTH_MAC, mac);
	if (!ct_equal(mac, d + len - UDPSH_AUTH_MAC, UDPSH_AUTH_MAC)) {
		udpsh_count(&u->stats.bad_mac);
		return false;
	}
	nonce = be64_get(d + 4);
	seq = be64_get(d + 12);
	udpsh_peer_note(u, rq->addr, rq->port, seq);
	rq->authenticated = true;
	rq->seq = seq;
	if (nonce != u->nonce || seq <= __atomic_load_n(&u->mark, __ATOMIC_RELAXED)) {
		udpsh_count(&u->stats.stale);
		rq->stale = true;
		return true;
	}
	__atomic_store_n(&u->mark, seq, __ATOMIC_RELAXED);
	rq->cmd = (const char *)d + UDPSH_AUTH_HDR;
	rq->len = len - UDPSH_AUTH_OVERHEAD;
	rq->size = rq->len;
	return true;
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
	rq->addr = addr;
	rq->port = port;
	rq->dgram_len = len;
	if (u->keyed)
		return udpsh_admit_keyed(u, data, len, size, rq);
	if (size > len)
		udpsh_count(&u->stats.cut_short);
	rq->cmd = data;
	rq->len = len;
	rq->size = size;
	return true;
}

void udpsh_busy(struct udpsh *u, const struct udpsh_request *rq)
{
	static const char busy[] = "busy";
	size_t n = sizeof(busy) - 1;

	if (rq->stale) {
		udpsh_send_short(u, rq->addr, rq->port, rq->seq, UDPSH_FLAG_STALE);
		return;
	}
	udpsh_count(&u->stats.busy);
	if (rq->authenticated) {
		udpsh_send_short(u, rq->addr, rq->port, rq->seq, UDPSH_FLAG_BUSY);
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

	if (rq->stale) {
		udpsh_send_short(u, rq->addr, rq->port, rq->seq, UDPSH_FLAG_STALE);
		return;
	}
	r.out.write = udpsh_reply_write;
	r.u = u;
	r.rq = rq;
	r.len = 0;
	r.line = 0;
	r.num = 0;
	r.cap = rq->authenticated ? UDPSH_DGRAM_MAX - UDPSH_AUTH_OVERHEAD
				  : UDPSH_DGRAM_MAX;
	if (udpsh_run(&r))
		udpsh_count(&u->stats.malformed);
	udpsh_reply_finish(&r);
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
