/* SPDX-License-Identifier: BSD-2-Clause */
/* The allowlist: the source networks the shell answers at all.
 *
 * What it guarantees: a datagram from outside every entry runs nothing
 * and gets no answer, not even an error (udpsh_admit() asks first, and
 * the transport's receive path before the datagram takes a queue slot);
 * a list that is malformed or longer than UDPSH_ALLOW_MAX entries is
 * refused whole and the old one kept.
 * Against: hosts outside the allowed networks.  Not against one that
 * forges an allowed source address: only the key stops that (tickets.c),
 * and keyless the cookie bound (cookie.c) limits what it can reflect. */
#include "shell/udpsh/udpsh.h"

#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/parse.h"

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
