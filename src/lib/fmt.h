/* SPDX-License-Identifier: BSD-2-Clause */
/* printf-style formatting without libc.
 *
 * Conversions: %d %i %u %x %X %o %c %s %p %%, with the flags '-' '0',
 * a width (or *), a precision for %s (or *), and the length modifiers
 * hh h l ll z t j.  No floating point: src/ is integer-only. */
#ifndef KPROF_LIB_FMT_H
#define KPROF_LIB_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* Where formatted bytes go: called with runs of bytes, in order. */
typedef void (*fmt_emit_fn)(void *ctx, const char *s, size_t n);

/* Format to @emit; returns the number of bytes produced. */
size_t kvformat(fmt_emit_fn emit, void *ctx, const char *fmt, va_list ap);

/* snprintf semantics: always terminates when size > 0, returns the length
 * the whole output would have had. */
size_t ksnprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
size_t kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

#endif
