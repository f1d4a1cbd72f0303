/* SPDX-License-Identifier: BSD-2-Clause */
#include "lib/fmt.h"

#include <stdbool.h>
#include <stdint.h>

#include "lib/kstring.h"

struct spec {
	bool left;
	bool zero;
	int width;
	int precision;		/* -1: none */
	int length;		/* 0 int, 1 long, 2 long long, -1 short, -2 char */
	bool size_t_len;
};

static void emit_pad(fmt_emit_fn emit, void *ctx, char c, int n, size_t *out)
{
	static const char spaces[] = "                ";
	static const char zeros[] = "0000000000000000";
	const char *src = c == '0' ? zeros : spaces;

	while (n > 0) {
		int chunk = n > 16 ? 16 : n;
		emit(ctx, src, (size_t)chunk);
		*out += (size_t)chunk;
		n -= chunk;
	}
}

static void emit_field(fmt_emit_fn emit, void *ctx, const struct spec *sp,
		       const char *sign, const char *digits, size_t ndigits,
		       size_t *out)
{
	size_t nsign = kstrlen(sign);
	int pad = sp->width - (int)(nsign + ndigits);

	if (!sp->left && !sp->zero)
		emit_pad(emit, ctx, ' ', pad, out);
	if (nsign) {
		emit(ctx, sign, nsign);
		*out += nsign;
	}
	if (!sp->left && sp->zero)
		emit_pad(emit, ctx, '0', pad, out);
	emit(ctx, digits, ndigits);
	*out += ndigits;
	if (sp->left)
		emit_pad(emit, ctx, ' ', pad, out);
}

static size_t utoa_rev(char *end, uint64_t v, unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	size_t n = 0;

	do {
		*--end = digits[v % base];
		v /= base;
		n++;
	} while (v);
	return n;
}

static uint64_t fetch_unsigned(const struct spec *sp, va_list *ap)
{
	if (sp->size_t_len)
		return va_arg(*ap, size_t);
	switch (sp->length) {
	case 2: return va_arg(*ap, unsigned long long);
	case 1: return va_arg(*ap, unsigned long);
	case -1: return (unsigned short)va_arg(*ap, unsigned int);
	case -2: return (unsigned char)va_arg(*ap, unsigned int);
	default: return va_arg(*ap, unsigned int);
	}
}

static int64_t fetch_signed(const struct spec *sp, va_list *ap)
{
	if (sp->size_t_len)
		return (int64_t)va_arg(*ap, size_t);
	switch (sp->length) {
	case 2: return va_arg(*ap, long long);
	case 1: return va_arg(*ap, long);
	case -1: return (short)va_arg(*ap, int);
	case -2: return (signed char)va_arg(*ap, int);
	default: return va_arg(*ap, int);
	}
}

static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	*sp = (struct spec){ .precision = -1 };
	for (;; f++) {
		if (*f == '-')
			sp->left = true;
		else if (*f == '0')
			sp->zero = true;
		else
			break;
	}
	if (*f == '*') {
		sp->width = va_arg(*ap, int);
		if (sp->width < 0) {
			sp->left = true;
			sp->width = -sp->width;
		}
		f++;
	}
	while (*f >= '0' && *f <= '9')
		sp->width = sp->width * 10 + (*f++ - '0');
	if (*f == '.') {
		f++;
		sp->precision = 0;
		if (*f == '*') {
			sp->precision = va_arg(*ap, int);
			f++;
		}
		while (*f >= '0' && *f <= '9')
			sp->precision = sp->precision * 10 + (*f++ - '0');
	}
	for (;; f++) {
		if (*f == 'l')
			sp->length++;
		else if (*f == 'h')
			sp->length--;
		else if (*f == 'z' || *f == 't' || *f == 'j')
			sp->size_t_len = true;
		else
			break;
	}
	return f;
}

size_t kvformat(fmt_emit_fn emit, void *ctx, const char *fmt, va_list ap_in)
{
	size_t out = 0;
	char buf[24];
	char *end = buf + sizeof(buf);
	va_list ap;

	va_copy(ap, ap_in);
	while (*fmt) {
		const char *run = fmt;
		struct spec sp;

		while (*fmt && *fmt != '%')
			fmt++;
		if (fmt > run) {
			emit(ctx, run, (size_t)(fmt - run));
			out += (size_t)(fmt - run);
		}
		if (!*fmt)
			break;
		fmt = parse_spec(fmt + 1, &sp, &ap);
		switch (*fmt) {
		case 'd':
		case 'i': {
			int64_t v = fetch_signed(&sp, &ap);
			uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
			size_t n = utoa_rev(end, mag, 10, false);
			emit_field(emit, ctx, &sp, v < 0 ? "-" : "", end - n, n, &out);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o': {
			unsigned base = *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16;
			size_t n = utoa_rev(end, fetch_unsigned(&sp, &ap), base,
					    *fmt == 'X');
			emit_field(emit, ctx, &sp, "", end - n, n, &out);
			break;
		}
		case 'p': {
			size_t n = utoa_rev(end, (uintptr_t)va_arg(ap, void *), 16, false);
			emit_field(emit, ctx, &sp, "0x", end - n, n, &out);
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);
			sp.zero = false;
			emit_field(emit, ctx, &sp, "", &c, 1, &out);
			break;
		}
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			size_t n = sp.precision >= 0 ? kstrnlen(s, (size_t)sp.precision)
						     : kstrlen(s);
			sp.zero = false;
			emit_field(emit, ctx, &sp, "", s, n, &out);
			break;
		}
		case '%':
			emit(ctx, "%", 1);
			out++;
			break;
		case '\0':
			fmt--;	/* a lone '%' at the end prints nothing */
			break;
		default:	/* unknown conversion: show it as written */
			emit(ctx, fmt - 1, 2);
			out += 2;
			break;
		}
		fmt++;
	}
	va_end(ap);
	return out;
}

struct bufctx {
	char *buf;
	size_t size;
	size_t used;
};

static void emit_to_buf(void *ctx, const char *s, size_t n)
{
	struct bufctx *b = ctx;

	while (n--) {
		if (b->size && b->used < b->size - 1)
			b->buf[b->used] = *s;
		b->used++;
		s++;
	}
}

size_t kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct bufctx b = { buf, size, 0 };
	size_t n = kvformat(emit_to_buf, &b, fmt, ap);

	if (size)
		buf[b.used < size - 1 ? b.used : size - 1] = '\0';
	return n;
}

size_t ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
