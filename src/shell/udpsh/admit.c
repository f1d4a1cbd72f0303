/* SPDX-License-Identifier: BSD-2-Clause */
/* Admission and serving: the two halves of handling one datagram (the
 * protocol: udpsh.h).  udpsh_admit() runs in the transport's receive
 * path and decides; udpsh_serve() runs the command in a task.
 *
 * What it guarantees, for any bytes from any source:
 *  - nothing runs unless the source is allowed (allow.c) and, keyed, the
 *    datagram verifies and spends a fresh ticket (tickets.c); a datagram
 *    that may not run is answered, if at all, before it takes a queue
 *    slot;
 *  - a datagram holding more than one line, a NUL or other control byte,
 *    a command longer than SHELL_LINE_MAX or one cut short runs nothing
 *    and gets one line saying why;
 *  - a line without a verified MAC runs with authenticated false, so
 *    commands that act beyond the reply refuse it, and serial-only
 *    commands never run over the network;
 *  - a keyless datagram that starts with UDPSH_REPLY_MARK (a reply) is
 *    never answered; "busy" is never larger than the request.
 * Against: any remote peer, with or without a forged source address. */
#include "shell/udpsh/internal.h"

#include "lib/errno.h"
#include "lib/kstring.h"
#include "shell/shell.h"

void udpsh_init(struct udpsh *u, udpsh_send_fn send, void *send_ctx)
{
	kmemset(u, 0, sizeof(*u));
	u->send = send;
	u->send_ctx = send_ctx;
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

/* Run @rq's command into @out; shell_run_line()'s result, or
 * -EINVAL when the datagram was malformed. */
static int udpsh_run(const struct udpsh_request *rq, struct out *out)
{
	struct shell_ctx sh = { .out = out, .remote = true,
				.authenticated = rq->authenticated };
	const char *s = rq->cmd;
	size_t len;

	if (rq->size > rq->len) {
		out_printf(out, "line longer than %u bytes (got %zu); not run\n",
			   SHELL_LINE_MAX, rq->size);
		return -EINVAL;
	}
	len = udpsh_strip_eol(s, rq->len);
	if (kmemchr(s, '\n', len) || kmemchr(s, '\r', len)) {
		out_puts(out, "datagram holds more than one line; send one command per datagram\n");
		return -EINVAL;
	}
	return shell_run_line(&sh, s, len);
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

	udpsh_reply_open(&r, u, rq);
	rc = udpsh_run(rq, &r.out);
	if (rc == -EINVAL)
		udpsh_count(&u->stats.malformed);
	udpsh_reply_close(&r, rc ? UDPSH_STATUS_FAILED : UDPSH_STATUS_OK);
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
