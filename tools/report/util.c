/* SPDX-License-Identifier: BSD-2-Clause */
/* Memory, one-line fatal messages and the in-memory output buffer. */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fatal(int status, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs(REPORT_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fatal(EXIT_INPUT, "out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		fatal(EXIT_INPUT, "out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		fatal(EXIT_INPUT, "out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

static void buf_reserve(struct buf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	while (b->len + more + 1 > b->cap)
		b->cap = b->cap ? b->cap * 2 : 4096;
	b->p = xrealloc(b->p, b->cap);
}

void buf_add(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal(EXIT_INPUT, "cannot format output");
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void buf_xml(struct buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': buf_add(b, "&amp;", 5); break;
		case '<': buf_add(b, "&lt;", 4); break;
		case '>': buf_add(b, "&gt;", 4); break;
		case '"': buf_add(b, "&quot;", 6); break;
		case '\'': buf_add(b, "&apos;", 6); break;
		default:
			/* XML 1.0 allows no control characters but tab. */
			if ((unsigned char)s[i] < 0x20)
				buf_add(b, "?", 1);
			else
				buf_add(b, &s[i], 1);
		}
	}
}

void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

double share(uint64_t num, uint64_t den)
{
	return den ? 100.0 * (double)num / (double)den : 0.0;
}

uint64_t stack_value(const struct profile *p, const struct stack *st)
{
	return p->meta.weight_ns ? st->weight : st->count;
}

uint64_t profile_value_total(const struct profile *p)
{
	return p->meta.weight_ns ? p->total_weight : p->total;
}

/* @ns in ms to the microsecond: "3.456". */
static const char *ms_text(uint64_t ns, char *buf, size_t len)
{
	uint64_t us = ns / 1000 + (ns % 1000 >= 500);

	snprintf(buf, len, "%llu.%03llu", (unsigned long long)(us / 1000),
		 (unsigned long long)(us % 1000));
	return buf;
}

const char *value_cell(const struct profile *p, uint64_t v, char *buf,
		       size_t len)
{
	return p->meta.weight_ns ? ms_text(v, buf, len)
				 : count_text(p, v, buf, len);
}

const char *value_text(const struct profile *p, uint64_t v, char *buf,
		       size_t len)
{
	char t[32];

	snprintf(buf, len, "%s %s", value_cell(p, v, t, sizeof t),
		 p->meta.weight_ns ? "ms" : "samples");
	return buf;
}

bool profile_nominal(const struct profile *p)
{
	return !p->meta.weight_ns && !p->meta.unit_us;
}

void profile_note_nominal(const struct profile *p)
{
	if (profile_nominal(p))
		fprintf(stderr, REPORT_PROG ": %s: no weights (# weight=ns): times are nominal, count x period; `profile show folded weight` gives the ones the kernel counted\n",
			p->path);
}

const char *count_text(const struct profile *p, uint64_t v, char *buf,
		       size_t len)
{
	uint64_t unit = 1;
	size_t n;

	for (unsigned i = 0; i < p->decimals; i++)
		unit *= 10;
	if (unit == 1) {
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	}
	snprintf(buf, len, "%llu.%0*llu", (unsigned long long)(v / unit),
		 (int)p->decimals, (unsigned long long)(v % unit));
	/* 2.500 is 2.5, 3.000 is 3. */
	n = strlen(buf);
	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[n - 1] = '\0';
	return buf;
}
