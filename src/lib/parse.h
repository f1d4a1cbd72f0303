/* SPDX-License-Identifier: BSD-2-Clause */
/* Strict number and address parsing for shell arguments and the command
 * line: whole-string matches only, overflow reported, never guessed. */
#ifndef KPROF_LIB_PARSE_H
#define KPROF_LIB_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* Decimal digits only, no sign, no spaces, at most UINT64_MAX.  Returns 0,
 * -EINVAL (not a number) or -ERANGE (too large). */
int parse_u64(const char *s, uint64_t *out);

/* Dotted quad "a.b.c.d", each 0-255, in host byte order. */
int parse_ipv4(const char *s, uint32_t *out);

/* "a.b.c.d/n" (n 0-32) or a bare address (n = 32).  Host bits of the
 * address must be zero, so a typo cannot widen an allowlist. */
int parse_cidr(const char *s, uint32_t *addr, unsigned *prefix);

/* True when @addr lies in @net/@prefix (host byte order). */
bool cidr_contains(uint32_t net, unsigned prefix, uint32_t addr);

#endif
