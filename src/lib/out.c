/* SPDX-License-Identifier: BSD-2-Clause */
#include "lib/out.h"

#include "lib/fmt.h"
#include "lib/kstring.h"

void out_write(struct out *o, const char *s, size_t n)
{
	if (n)
		o->write(o, s, n);
}

void out_puts(struct out *o, const char *s)
{
	out_write(o, s, kstrlen(s));
}

static void emit_to_out(void *ctx, const char *s, size_t n)
{
	out_write(ctx, s, n);
}

void out_vprintf(struct out *o, const char *fmt, va_list ap)
{
	kvformat(emit_to_out, o, fmt, ap);
}

void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_vprintf(o, fmt, ap);
	va_end(ap);
}

static void out_buf_write(struct out *o, const char *s, size_t n)
{
	struct out_buf *ob = (struct out_buf *)o;
	size_t room = ob->size - 1 - ob->len;
	size_t take = n < room ? n : room;

	kmemcpy(ob->buf + ob->len, s, take);
	ob->len += take;
	ob->buf[ob->len] = '\0';
	ob->lost += n - take;
}

void out_buf_init(struct out_buf *ob, char *buf, size_t size)
{
	ob->out.write = out_buf_write;
	ob->buf = buf;
	ob->size = size;
	ob->len = 0;
	ob->lost = 0;
	if (size)
		buf[0] = '\0';
}

