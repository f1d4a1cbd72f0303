/* The UDP shell core: see udpsh.h for the protocol. */
#include "shell/udpsh.h"

#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "shell/shell.h"

/* The reply being built: an out sink that holds at most one datagram.
 * buf[0..line) are whole lines, buf[line..len) the line still being
 * written.  A byte that does not fit sends the whole lines and keeps the
 * unfinished one; a line that fills buf alone is cut there. */
struct udpsh_reply {
	struct out out;
	struct udpsh *u;
	uint32_t addr;
	uint16_t port;
	size_t len, line;
	char buf[UDPSH_DGRAM_MAX];
};

static void udpsh_count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

static void udpsh_send(struct udpsh_reply *r, size_t len)
{
	if (r->u->send(r->u->send_ctx, r->addr, r->port, r->buf, len) < 0)
		udpsh_count(&r->u->stats.send_failed);
}

/* Send buf[0..n) and keep what follows it at the start of buf. */
static void udpsh_reply_flush(struct udpsh_reply *r, size_t n)
{
	udpsh_send(r, n);
	for (size_t i = n; i < r->len; i++)
		r->buf[i - n] = r->buf[i];
	r->len -= n;
	r->line = r->line > n ? r->line - n : 0;
}

static void udpsh_reply_putc(struct udpsh_reply *r, char c)
{
	if (r->len == UDPSH_DGRAM_MAX)
		udpsh_reply_flush(r, r->line ? r->line : r->len);
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

	if (r->len + plen > UDPSH_DGRAM_MAX)
		udpsh_reply_flush(r, r->len);
	kmemcpy(r->buf + r->len, SHELL_PROMPT, plen);
	r->len += plen;
	udpsh_reply_flush(r, r->len);
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

/* Run the datagram's command into @r; true when it was malformed. */
static bool udpsh_run(struct udpsh_reply *r, const char *s, size_t len)
{
	struct shell_ctx sh = { .out = &r->out, .remote = true };

	len = udpsh_strip_eol(s, len);
	if (kmemchr(s, '\n', len) || kmemchr(s, '\r', len)) {
		out_puts(&r->out, "datagram holds more than one line; send one command per datagram\n");
		return true;
	}
	return shell_run_line(&sh, s, len) == -EINVAL;
}

void udpsh_input(struct udpsh *u, const void *data, size_t len,
		 uint32_t addr, uint16_t port)
{
	struct udpsh_reply r;

	udpsh_count(&u->stats.datagrams_in);
	if (!udpsh_allowed(u, addr)) {
		udpsh_count(&u->stats.dropped_allow);
		return;
	}
	r.out.write = udpsh_reply_write;
	r.u = u;
	r.addr = addr;
	r.port = port;
	r.len = 0;
	r.line = 0;
	if (udpsh_run(&r, data, len))
		udpsh_count(&u->stats.malformed);
	udpsh_reply_finish(&r);
	udpsh_count(&u->stats.answered);
}
