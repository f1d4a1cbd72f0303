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
/* The most reply bytes kept. */
#define UC_REPLY_MAX (16u << 20)
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

static long long now_ms(void)
{
	struct timespec ts;

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
	char **part;		/* part[num]: a payload, NULL until it came */
	size_t *part_len;
	unsigned nparts;	/* room in part[] */
	long last;		/* the number flagged last; -1: not yet */
	unsigned have;		/* parts that came */
	size_t bytes;
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
	return 0;
}

static void kx_free(struct kx *x)
{
	for (unsigned i = 0; i < x->nparts; i++)
		free(x->part[i]);
	free(x->part);
	free(x->part_len);
}

/* Keep reply datagram @num's @n payload bytes (a second copy is dropped). */
static int kx_keep(struct udpsh_client *c, struct kx *x, unsigned num,
		   const uint8_t *p, size_t n)
{
	if (num >= x->nparts) {
		unsigned room = num + 64;
		char **np = realloc(x->part, room * sizeof(*np));
		size_t *nl;

		if (np)
			x->part = np;
		nl = np ? realloc(x->part_len, room * sizeof(*nl)) : NULL;
		if (!nl)
			goto nomem;
		x->part_len = nl;
		for (unsigned i = x->nparts; i < room; i++)
			x->part[i] = NULL;
		x->nparts = room;
	}
	if (x->part[num])
		return 0;
	if (x->bytes + n > UC_REPLY_MAX) {
		uc_say(c, "reply longer than %u bytes; nothing printed", UC_REPLY_MAX);
		return UC_ERROR;
	}
	if (!(x->part[num] = malloc(n ? n : 1)))
		goto nomem;
	memcpy(x->part[num], p, n);
	x->part_len[num] = n;
	x->bytes += n;
	x->have++;
	return 0;
nomem:
	uc_say(c, "out of memory");
	return UC_ERROR;
}

static bool kx_whole(const struct kx *x)
{
	return x->last >= 0 && x->have == (unsigned)x->last + 1;
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
	char *all = malloc(x->bytes + 1);
	size_t off = 0;

	if (!all) {
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

/* Nothing new came for @timeout_ms: say what is missing. */
static int kx_silent(struct udpsh_client *c, const struct kx *x, int timeout_ms)
{
	if (!x->have)
		return UC_TIMEOUT;
	if (x->last < 0)
		uc_say(c, "reply incomplete: datagram %u and after never came within %d s; nothing printed",
		       kx_missing(x), timeout_ms / 1000);
	else
		uc_say(c, "reply incomplete: datagram %u of %ld never came within %d s; nothing printed",
		       kx_missing(x), x->last + 1, timeout_ms / 1000);
	return UC_INCOMPLETE;
}

/* Take one verified datagram of ours: 0 to go on, 1 when the reply is
 * whole, 2 when a new request with a ticket is to go, or a UC_ code. */
static int kx_take(struct udpsh_client *c, struct kx *x, const struct udpsh_wire *h,
		   const uint8_t *d, size_t n, const char *cmd, size_t len,
		   unsigned *stale)
{
	int rc;

	if (h->flags & UDPSH_FLAG_STALE) {
		/* Not run; the ticket it carries is bound to our id. */
		if (++*stale > STALE_RETRIES) {
			uc_say(c, "the kernel keeps answering stale");
			return UC_INCOMPLETE;
		}
		if ((rc = kx_request(c, x, cmd, len, h->nonce, h->ticket)))
			return rc;
		return 2;
	}
	if (h->flags & UDPSH_FLAG_GONE) {
		uc_say(c, "the kernel took this request but no longer keeps its reply; it may have run");
		return UC_INCOMPLETE;
	}
	if (!x->have)
		c->heard_ns = real_ns();
	if ((rc = kx_keep(c, x, h->num, d + UDPSH_WIRE_HDR, n - UDPSH_WIRE_OVERHEAD)))
		return rc;
	c->nonce = h->nonce;
	if (h->flags & UDPSH_FLAG_LAST) {
		x->last = h->num;
		x->status = h->status;
	}
	return kx_whole(x) ? 1 : 0;
}

/* The exchange's loop: send, listen, resend on silence, take a ticket. */
static int kx_run(struct udpsh_client *c, struct kx *x, const char *cmd, size_t len,
		  int timeout_ms, uint8_t *buf)
{
	unsigned stale = 0, had;
	int rc = kx_request(c, x, cmd, len, 0, 0), resend_ms = RESEND_FIRST_MS;
	long long heard = now_ms(), sent = heard;

	c->sent_ns = real_ns();
	while (rc == 0 && (rc = udpsh_client_send(c, x->req, x->req_len)) == 0) {
		for (;;) {
			long long now = now_ms();
			long long wait = sent + resend_ms - now;
			struct udpsh_wire h;
			ssize_t n;

			if (now - heard >= timeout_ms) {
				rc = kx_silent(c, x, timeout_ms);
				break;
			}
			if (wait > heard + timeout_ms - now)
				wait = heard + timeout_ms - now;
			n = udpsh_client_recv(c, buf, UC_DGRAM_MAX, wait > 0 ? (int)wait : 0);
			if (n == -1 && now_ms() - sent >= resend_ms) {
				/* Lost either way: the same request again. */
				resend_ms = resend_ms * 2 > RESEND_MAX_MS ? RESEND_MAX_MS : resend_ms * 2;
				sent = now_ms();
				break;
			}
			if (n == -1)
				continue;
			if (n < 0) {
				rc = n == -3 ? UC_REFUSED : UC_ERROR;
				break;
			}
			if (!kx_ours(c, x, buf, (size_t)n, &h))
				continue;
			had = x->have;
			rc = kx_take(c, x, &h, buf, (size_t)n, cmd, len, &stale);
			/* Only news restarts the clock: copies of what came
			 * already, resent again and again, never do. */
			if (x->have != had || rc == 2)
				heard = now_ms();
			if (rc == 2) {
				/* A new request with the ticket: the one that
				 * runs, first sent now. */
				rc = 0;
				resend_ms = RESEND_FIRST_MS;
				sent = heard;
				c->sent_ns = real_ns();
				break;
			}
			if (rc)
				break;
		}
	}
	return rc;
}

int udpsh_client_exchange(struct udpsh_client *c, const char *cmd, size_t len,
			  int timeout_ms, char **reply, size_t *reply_len)
{
	struct kx x = { .last = -1 };
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
