/* SPDX-License-Identifier: BSD-2-Clause */
#include "lib/parse.h"

#include "lib/errno.h"

int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned d;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* One decimal octet 0-255 with at most three digits; advances *s. */
static bool parse_octet(const char **s, uint32_t *out)
{
	const char *p = *s;
	uint32_t v = 0;
	int digits = 0;

	while (*p >= '0' && *p <= '9' && digits < 4) {
		v = v * 10 + (uint32_t)(*p++ - '0');
		digits++;
	}
	if (digits == 0 || digits > 3 || v > 255)
		return false;
	*out = v;
	*s = p;
	return true;
}

static int parse_ipv4_prefix(const char **s, uint32_t *out)
{
	uint32_t addr = 0;

	for (int i = 0; i < 4; i++) {
		uint32_t octet;

		if (i > 0 && *(*s)++ != '.')
			return -EINVAL;
		if (!parse_octet(s, &octet))
			return -EINVAL;
		addr = addr << 8 | octet;
	}
	*out = addr;
	return 0;
}

int parse_ipv4(const char *s, uint32_t *out)
{
	uint32_t addr;

	if (parse_ipv4_prefix(&s, &addr) < 0 || *s)
		return -EINVAL;
	*out = addr;
	return 0;
}

static uint32_t prefix_mask(unsigned prefix)
{
	return prefix == 0 ? 0 : ~(uint32_t)0 << (32 - prefix);
}

int parse_cidr(const char *s, uint32_t *addr, unsigned *prefix)
{
	uint32_t a;
	uint64_t n = 32;

	if (parse_ipv4_prefix(&s, &a) < 0)
		return -EINVAL;
	if (*s == '/') {
		if (parse_u64(s + 1, &n) < 0 || n > 32)
			return -EINVAL;
	} else if (*s) {
		return -EINVAL;
	}
	if (a & ~prefix_mask((unsigned)n))
		return -EINVAL;
	*addr = a;
	*prefix = (unsigned)n;
	return 0;
}

bool cidr_contains(uint32_t net, unsigned prefix, uint32_t addr)
{
	return ((addr ^ net) & prefix_mask(prefix)) == 0;
}
