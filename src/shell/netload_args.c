/* SPDX-License-Identifier: BSD-2-Clause */
/* netload's words into a request (netload_args.h).  The limits are the
 * engine's (net/netload.h); the error lines, being the user's, are the
 * shell's. */
#include "shell/netload_args.h"

#include <stdint.h>

#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "net/netload.h"
#include "shell/commands.h"

static const char netload_usage[] = "netload: usage: " CMD_NETLOAD_USAGE "\n";

static int netload_parse_port(const char *s, uint16_t *port, struct out *err)
{
	uint64_t v;

	if (parse_u64(s, &v) < 0 || v < 1 || v > 65535) {
		out_printf(err, "netload: port must be 1-65535 (got '%s')\n", s);
		return -EINVAL;
	}
	*port = (uint16_t)v;
	return 0;
}

static int netload_parse_ms(const char *s, unsigned *ms, struct out *err)
{
	uint64_t v;

	if (parse_u64(s, &v) < 0 || v < 1 || v > NETLOAD_MS_MAX) {
		out_printf(err, "netload: ms must be 1-%u (got '%s')\n", NETLOAD_MS_MAX, s);
		return -EINVAL;
	}
	*ms = (unsigned)v;
	return 0;
}

static int netload_parse_size(const char *s, unsigned *size, struct out *err)
{
	uint64_t v;

	if (parse_u64(s, &v) < 0 || v < NETLOAD_SIZE_MIN || v > NETLOAD_SIZE_MAX) {
		out_printf(err, "netload: size must be %u-%u bytes (got '%s')\n",
			   NETLOAD_SIZE_MIN, NETLOAD_SIZE_MAX, s);
		return -EINVAL;
	}
	*size = (unsigned)v;
	return 0;
}

/* Bits per second with an optional decimal suffix k, M or G. */
static int netload_parse_rate(const char *s, uint64_t *rate, struct out *err)
{
	char digits[24];
	size_t n = kstrnlen(s, sizeof(digits));
	uint64_t v, mult = 1;

	if (n > 0 && n < sizeof(digits)) {
		kmemcpy(digits, s, n + 1);
		switch (digits[n - 1]) {
		case 'k': case 'K': mult = 1000; break;
		case 'm': case 'M': mult = 1000000; break;
		case 'g': case 'G': mult = 1000000000; break;
		}
		if (mult > 1)
			digits[n - 1] = '\0';
		if (parse_u64(digits, &v) == 0 && v <= NETLOAD_RATE_MAX / mult &&
		    v * mult <= NETLOAD_RATE_MAX) {
			*rate = v * mult;
			return 0;
		}
	}
	out_printf(err, "netload: rate must be bits/s up to 10G, with an optional k, M or G, or 0 for no limit (got '%s')\n", s);
	return -EINVAL;
}

int netload_args_parse(int argc, char **argv, struct netload_args *a,
		       struct out *err)
{
	kmemset(a, 0, sizeof(*a));
	a->size = NETLOAD_SIZE_DEFAULT;
	a->rate = NETLOAD_RATE_DEFAULT;
	if (argc == 4 && kstreq(argv[1], "recv")) {
		if (netload_parse_port(argv[2], &a->port, err) < 0)
			return -EINVAL;
		return netload_parse_ms(argv[3], &a->ms, err);
	}
	if (argc < 5 || argc > 7 || !kstreq(argv[1], "send")) {
		out_puts(err, netload_usage);
		return -EINVAL;
	}
	a->send = true;
	if (parse_ipv4(argv[2], &a->ip) < 0) {
		out_printf(err, "netload: '%s' is not an IPv4 address\n", argv[2]);
		return -EINVAL;
	}
	if (netload_parse_port(argv[3], &a->port, err) < 0 ||
	    netload_parse_ms(argv[4], &a->ms, err) < 0)
		return -EINVAL;
	if (argc > 5 && netload_parse_size(argv[5], &a->size, err) < 0)
		return -EINVAL;
	if (argc > 6 && netload_parse_rate(argv[6], &a->rate, err) < 0)
		return -EINVAL;
	return 0;
}
