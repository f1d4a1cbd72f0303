/* SPDX-License-Identifier: BSD-2-Clause */
/* The keyed UDP shell's client side: see udpsh_client.h. */
#define _POSIX_C_SOURCE 200809L

#include "udpsh_client.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#define UC_LINE_MAX 4095
#define UC_DGRAM_MAX 65536
#define STALE_RETRIES 3
/* Silence before the request goes again, doubling up to the second. */
#define RESEND_FIRST_MS 400
#define RESEND_MAX_MS 1600

static void uc_say(struct udpsh_client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void uc_say(struct udpsh_client *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
}

static bool valid_port(const char *p)
{
	char *end;
	long v;

	if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 5)
		return false;
	v = strtol(p, &end, 10);
	return v >= 1 && v <= 65535;
}

int udpsh_client_connect(struct udpsh_client *c, const char *target,
			 const char *default_port)
{
	char host[256];
	const char *port = default_port;
	const char *colon = strrchr(target, ':');
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM };
	struct addrinfo *res, *ai;
	size_t n = colon ? (size_t)(colon - target) : strlen(target);
	int err;

	c->fd = -1;
	c->err[0] = '\0';
	c->rbuf = NULL;
	c->io = NULL;
	c->reply_max = UC_REPLY_MAX;
	if (n >= sizeof(host)) {
		uc_say(c, "host name too long: %s", target);
		return -2;
	}
	memcpy(host, target, n);
	host[n] = '\0';
	if (colon)
		port = colon + 1;
	if (!valid_port(port)) {
		uc_say(c, "port must be 1-65535 (got %s)", port);
		return -2;
	}
	err = getaddrinfo(host, port, &hints, &res);
	if (err) {
		uc_say(c, "%s: %s", target, gai_strerror(err));
		return -2;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		c->fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (c->fd < 0)
			continue;
		if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(c->fd);
		c->fd = -1;
	}
	freeaddrinfo(res);
	if (c->fd < 0) {
		uc_say(c, "cannot reach %s: %s", target, strerror(errno));
		return -1;
	}
	return 0;
}

void udpsh_client_close(struct udpsh_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->rbuf);
	c->rbuf = NULL;
}

static long long now_ms(const struct udpsh_client *c)
{
	struct timespec ts;

	if (c->io)
		return c->io->now_ms(c->io->ctx);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int udpsh_client_send(struct udpsh_client *c, const void *d, size_t len)
{
	if (c->io)
		return c->io->send(c->io->ctx, d, len);
	if (send(c->fd, d, len, 0) < 0) {
		/* An ICMP error for the last datagram is reported here. */
		if (errno == ECONNREFUSED)
			return UC_REFUSED;
		uc_say(c, "send: %s", strerror(errno));
		return UC_ERROR;
	}
	return 0;
}

/* Wait up to @timeout_ms for a datagram into @buf; its length, -1 on
 * timeout, -2 on error (said), -3 when the port refused it.  On loopback
 * (and wherever ICMP comes back) a port nobody listens on answers with
 * a port unreachable at once, which the connected socket reports as
 * ECONNREFUSED: waiting out the timeout for it would only hide why. */
ssize_t udpsh_client_recv(struct udpsh_client *c, void *buf, size_t size,
			  int timeout_ms)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };

	if (c->io)
		return c->io->recv(c->io->ctx, buf, size, timeout_ms);
	for (;;) {
		ssize_t n;
		int r = poll(&p, 1, timeout_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		n = recv(c->fd, buf, size, 0);
		if (n >= 0)
			return n;
		if (errno == ECONNREFUSED)
			return -3;
		if (errno == EINTR)
			continue;
		uc_say(c, "recv: %s", strerror(errno));
		return -2;
	}
}

/* One keyed exchange's state: the request as sent, the reply's parts. */
struct kx {
	uint8_t req[UDPSH_WIRE_OVERHEAD + UC_LINE_MAX + 1];
	size_t req_len;
	uint8_t rid[UDPSH_WIRE_RID];
	bool ticketed;		/* a request spending a ticket went out */
	char **part;		/* part[num]: a payload, NULL until it came */
	size_t *part_len;
	unsigned nparts;	/* room in part[] */
	long last;		/* the number flagged last; -1: not yet */
	long top;		/* the highest number that came; -1: none */
	unsigned have;		/* parts that came */
	size_t bytes;
	uint64_t nonce;		/* the boot of the parts that came */
	uint8_t status;
};

/* A new request for @cmd spending @ticket of boot @nonce (0, 0: none
 * yet), under a fresh random request id. */
static int kx_request(struct udpsh_client *c, struct kx *x, const char *cmd,
		      size_t len, uint64_t nonce, uint64_t ticket)
{
	struct udpsh_wire h = { .kind = UDPSH_KIND_REQUEST, .nonce = nonce, .ticket = ticket };

	if (getrandom(x->rid, sizeof(x->rid), 0) != (ssize_t)sizeof(x->rid)) {
		uc_say(c, "getrandom: %s", strerror(errno));
		return UC_ERROR;
	}
	memcpy(h.rid, x->rid, sizeof(h.rid));
	x->req_len = udpsh_wire_frame(c->key, c->key_len, &h, cmd, len, x->req);
	if (ticket)
		x->ticketed = true;
	return 0;
}

/* Forget every part that came: a reply starts over.  None is kept above
 * the highest number that came. */
static void kx_drop_parts(struct kx *x)
{
	for (long i = 0; i <= x->top; i++) {
		free(x->part[i]);
		x->part[i] = NULL;
	}
	x->last = -1;
	x->top = -1;
	x->have = 0;
	x->bytes = 0;
	x->status = 0;
}

static void kx_free(struct kx *x)
{
	kx_drop_parts(x);
	free(x->part);
	free(x->part_len);
}

/* Room in part[] for number @num. */
static int kx_room(struct udpsh_client *c, struct kx *x, unsigned num)
{
	unsigned room = num + 64;
	char **np;
	size_t *nl;

	if (num < x->nparts)
		return 0;
	np = realloc(x->part, room * sizeof(*np));
	if (np)
		x->part = np;
	nl = np ? realloc(x->part_len, room * sizeof(*nl)) : NULL;
	if (!nl) {
		uc_say(c, "out of memory");
		return UC_ERROR;
	}
	x->part_len = nl;
	/* A peer may name number 65535 at once: cleared in bulk. */
	memset(x->part + x->nparts, 0, (room - x->nparts) * sizeof(*x->part));
	memset(x->part_len + x->nparts, 0, (room - x->nparts) * sizeof(*x->part_len));
	x->nparts = room;
	return 0;
}

/* The most reply bytes @c keeps: its reply_max, within UC_REPLY_MAX. */
static size_t kx_reply_max(const struct udpsh_client *c)
{
	return c->reply_max && c->reply_max < UC_REPLY_MAX ? c->reply_max : UC_REPLY_MAX;
}

/* Keep reply datagram @num's @n payload bytes (a second copy is dropped).
 * The parts kept so far are counted before this one is: past the cap,
 * the exchange ends here, holding no more than the cap. */
static int kx_keep(struct udpsh_client *c, struct kx *x, unsigned num,
		   const uint8_t *p, size_t n)
{
	int rc;

	if (num < x->nparts && x->part[num])
		return 0;
	if (x->bytes + n > kx_reply_max(c)) {
		uc_say(c, "reply longer than %zu bytes; nothing printed", kx_reply_max(c));
		return UC_TOO_LONG;
	}
	if ((rc = kx_room(c, x, num)))
		return rc;
	if (!(x->part[num] = malloc(n ? n : 1))) {
		uc_say(c, "out of memory");
		return UC_ERROR;
	}
	memcpy(x->part[num], p, n);
	x->part_len[num] = n;
	x->bytes += n;
	x->have++;
	if ((long)num > x->top)
		x->top = num;
	return 0;
}

/* Refuse a datagram that cannot belong to the reply taking shape: one
 * of another boot than the parts before it, a number above the last, a
 * last that disagrees with an earlier last or sits below a number that
 * came.  0, or UC_BAD_REPLY (said). */
static int kx_fits(struct udpsh_client *c, const struct kx *x, const struct udpsh_wire *h)
{
	bool last = h->flags & UDPSH_FLAG_LAST;

	if (x->have && h->nonce != x->nonce)
		uc_say(c, "reply datagrams from two boots of the kernel; nothing printed");
	else if (last && x->last >= 0 && h->num != x->last)
		uc_say(c, "two reply datagrams flagged last (%ld and %u); nothing printed",
		       x->last, (unsigned)h->num);
	else if (last && h->num < x->top)
		uc_say(c, "reply datagram %ld came, above the one flagged last (%u); nothing printed",
		       x->top, (unsigned)h->num);
	else if (x->last >= 0 && h->num > x->last)
		uc_say(c, "reply datagram %u came, above the one flagged last (%ld); nothing printed",
		       (unsigned)h->num, x->last);
	else
		return 0;
	return UC_BAD_REPLY;
}

/* Every part 0..last has come.  kx_fits() keeps every number at or
 * below the last, so counting them is enough. */
static bool kx_whole(const struct kx *x)
{
	return x->last >= 0 && x->top <= x->last && x->have == (unsigned long)x->last + 1;
}

/* The first reply number that has not come. */
static unsigned kx_missing(const struct kx *x)
{
	unsigned i = 0;

	while (i < x->nparts && x->part[i])
		i++;
	return i;
}

/* The parts in order, NUL-terminated. */
static int kx_join(struct udpsh_client *c, const struct kx *x, char **reply,
		   size_t *reply_len)
{
	char *all;
	size_t off = 0;

	for (long i = 0; i <= x->last; i++) {
		if ((unsigned long)i >= x->nparts || !x->part[i]) {
			uc_say(c, "reply datagram %ld never came; nothing printed", i);
			return UC_BAD_REPLY;
		}
	}
	if (!(all = malloc(x->bytes + 1))) {
		uc_say(c, "out of memory");
		return UC_ERROR;
	}
	for (long i = 0; i <= x->last; i++) {
		memcpy(all + off, x->part[i], x->part_len[i]);
		off += x->part_len[i];
	}
	all[off] = '\0';
	*reply = all;
	*reply_len = off;
	return 0;
}

/* A reply datagram for us: verified under the key, answering x's request. */
static bool kx_ours(struct udpsh_client *c, const struct kx *x, const uint8_t *d,
		    size_t n, struct udpsh_wire *h)
{
	if (!udpsh_wire_open(c->key, c->key_len, UDPSH_KIND_REPLY, d, n, h)) {
		c->forged++;
		return false;
	}
	/* Anything else, however well signed, answers another request:
	 * an old one, or one recorded and played back. */
	return memcmp(h->rid, x->rid, UDPSH_WIRE_RID) == 0;
}

/* What went out and never came back, said: nothing (UC_TIMEOUT), a
 * ticketed request unanswered, or a reply in part, @why it ended. */
static int kx_unfinished(struct udpsh_client *c, const struct kx *x, const char *why)
{
	if (!x->have && !x->ticketed)
		return UC_TIMEOUT;
	if (!x->have)
		uc_say(c, "no reply to the request that spent its ticket %s: the command may still have run",
		       why);
	else if (x->last < 0)
		uc_say(c, "reply incomplete: datagram %u and after never came %s; nothing printed",
		       kx_missing(x), why);
	else
		uc_say(c, "reply incomplete: datagram %u of %ld never came %s; nothing printed",
		       kx_missing(x), x->last + 1, why);
	return UC_INCOMPLETE;
}

/* A stale answer: not run.  Whatever came before it was another boot's
 * (the shell restarted and forgot our ticket): drop it, and go again
 * with the ticket the answer carries, under a new id.  2, or a UC_ code. */
static int kx_stale(struct udpsh_client *c, struct kx *x, const struct udpsh_wire *h,
		    const char *cmd, size_t len, unsigned *stale)
{
	int rc;

	if (++*stale > STALE_RETRIES) {
		uc_say(c, "the kernel keeps answering stale");
		return UC_INCOMPLETE;
	}
	kx_drop_parts(x);
	if ((rc = kx_request(c, x, cmd, len, h->nonce, h->ticket)))
		return rc;
	return 2;
}

/* Take one verified datagram of ours: 0 to go on, 1 when the reply is
 * whole, 2 when a new request with a ticket is to go, or a UC_ code. */
static int kx_take(struct udpsh_client *c, struct kx *x, const struct udpsh_wire *h,
		   const uint8_t *d, size_t n, const char *cmd, size_t len,
		   unsigned *stale)
{
	int rc;

	if (h->flags & UDPSH_FLAG_STALE)
		return kx_stale(c, x, h, cmd, len, stale);
	if (h->flags & UDPSH_FLAG_GONE) {
		uc_say(c, "the kernel took this request but no longer keeps its reply; it may have run");
		return UC_INCOMPLETE;
	}
	if ((rc = kx_fits(c, x, h)))
		return rc;
	if (!x->have)
		c->heard_ns = real_ns();
	if ((rc = kx_keep(c, x, h->num, d + UDPSH_WIRE_HDR, n - UDPSH_WIRE_OVERHEAD)))
		return rc;
	x->nonce = c->nonce = h->nonce;
	if ((h->flags & UDPSH_FLAG_LAST) && x->last < 0) {
		x->last = h->num;
		x->status = h->status;
	}
	return kx_whole(x) ? 1 : 0;
}

/* The exchange's clocks, in ms on now_ms(): the request last sent, the
 * last news, the end of it all. */
struct kx_clock {
	long long sent, heard, end;
	int resend_ms, timeout_ms;
};

/* How long to wait for the next datagram: to the next resend, the end
 * of the silence allowed or the deadline, whichever comes first. */
static int kx_wait(const struct kx_clock *k, long long now)
{
	long long wait = k->sent + k->resend_ms - now;

	if (wait > k->heard + k->timeout_ms - now)
		wait = k->heard + k->timeout_ms - now;
	if (wait > k->end - now)
		wait = k->end - now;
	return wait > 0 ? (int)wait : 0;
}

/* Listen until the reply is whole, the request must go again (0), or
 * the exchange ends (a UC_ code, or 1: whole). */
static int kx_listen(struct udpsh_client *c, struct kx *x, struct kx_clock *k,
		     const char *cmd, size_t len, unsigned *stale, uint8_t *buf)
{
	char why[64];

	for (;;) {
		long long now = now_ms(c);
		struct udpsh_wire h;
		unsigned had;
		ssize_t n;
		int rc;

		if (now >= k->end) {
			snprintf(why, sizeof(why), "within %d s (%d times the timeout, in all)",
				 UDPSH_CLIENT_DEADLINE_FACTOR * k->timeout_ms / 1000,
				 UDPSH_CLIENT_DEADLINE_FACTOR);
			return kx_unfinished(c, x, why);
		}
		if (now - k->heard >= k->timeout_ms) {
			snprintf(why, sizeof(why), "within %d s", k->timeout_ms / 1000);
			return kx_unfinished(c, x, why);
		}
		n = udpsh_client_recv(c, buf, UC_DGRAM_MAX, kx_wait(k, now));
		if (n == -1 && now_ms(c) - k->sent >= k->resend_ms) {
			/* Lost either way: the same request again. */
			k->resend_ms = k->resend_ms * 2 > RESEND_MAX_MS ? RESEND_MAX_MS :
									 k->resend_ms * 2;
			k->sent = now_ms(c);
			return 0;
		}
		if (n == -1)
			continue;
		if (n < 0)
			return n == -3 ? UC_REFUSED : UC_ERROR;
		if (!kx_ours(c, x, buf, (size_t)n, &h))
			continue;
		had = x->have;
		rc = kx_take(c, x, &h, buf, (size_t)n, cmd, len, stale);
		/* Only news restarts the silence clock: copies of what came
		 * already, resent again and again, never do; and nothing
		 * moves the deadline. */
		if (x->have != had || rc == 2)
			k->heard = now_ms(c);
		if (rc == 2) {
			/* A new request with the ticket: the one that runs,
			 * first sent now. */
			k->resend_ms = RESEND_FIRST_MS;
			k->sent = k->heard;
			c->sent_ns = real_ns();
			return 0;
		}
		if (rc)
			return rc;
	}
}

/* The exchange's loop: send, listen, resend on silence, take a ticket. */
static int kx_run(struct udpsh_client *c, struct kx *x, const char *cmd, size_t len,
		  int timeout_ms, uint8_t *buf)
{
	unsigned stale = 0;
	long long start = now_ms(c);
	struct kx_clock k = {
		.sent = start, .heard = start,
		.end = start + (long long)UDPSH_CLIENT_DEADLINE_FACTOR * timeout_ms,
		.resend_ms = RESEND_FIRST_MS, .timeout_ms = timeout_ms,
	};
	int rc = kx_request(c, x, cmd, len, 0, 0);

	c->sent_ns = real_ns();
	while (rc == 0 && (rc = udpsh_client_send(c, x->req, x->req_len)) == 0)
		rc = kx_listen(c, x, &k, cmd, len, &stale, buf);
	return rc;
}

int udpsh_client_exchange(struct udpsh_client *c, const char *cmd, size_t len,
			  int timeout_ms, char **reply, size_t *reply_len)
{
	struct kx x = { .last = -1, .top = -1 };
	int rc;

	c->err[0] = '\0';
	*reply = NULL;
	*reply_len = 0;
	if (!c->rbuf && !(c->rbuf = malloc(UC_DGRAM_MAX))) {
		uc_say(c, "out of memory");
		return UC_ERROR;
	}
	if (len > UC_LINE_MAX) {
		uc_say(c, "line longer than %d bytes (got %zu); not sent", UC_LINE_MAX, len);
		return UC_ERROR;
	}
	rc = kx_run(c, &x, cmd, len, timeout_ms, c->rbuf);
	if (rc == 1) {
		if (x.status == UDPSH_STATUS_BUSY) {
			uc_say(c, "the kernel is busy; command not run");
			rc = UC_BUSY;
		} else {
			rc = kx_join(c, &x, reply, reply_len);
			if (rc == 0 && x.status != UDPSH_STATUS_OK)
				rc = UC_FAILED;
		}
	}
	kx_free(&x);
	return rc;
}
