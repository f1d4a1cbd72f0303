/* SPDX-License-Identifier: BSD-2-Clause */
/* Output sinks: every command writes to a struct out, so the serial
 * console, the simulator's stdin shell and the UDP shell share one code. */
#ifndef KPROF_LIB_OUT_H
#define KPROF_LIB_OUT_H

#include <stdarg.h>
#include <stddef.h>

struct out {
	/* Takes a run of bytes; a sink that fills up drops the rest and
	 * says so itself (see struct out_buf). */
	void (*write)(struct out *o, const char *s, size_t n);
};

void out_write(struct out *o, const char *s, size_t n);
void out_puts(struct out *o, const char *s);
void out_printf(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void out_vprintf(struct out *o, const char *fmt, va_list ap);

/* A sink into a caller-supplied buffer, always NUL-terminated.  Output
 * past the end is counted in @lost rather than written. */
struct out_buf {
	struct out out;
	char *buf;
	size_t size;
	size_t len;
	size_t lost;
};

void out_buf_init(struct out_buf *ob, char *buf, size_t size);

#endif
