/* SPDX-License-Identifier: BSD-2-Clause */
/* pprof's profile.proto, encoded by protobuf-c, compressed by zlib.
 *
 * Folded frames are names, not addresses: each distinct name is one
 * Function and one Location (ids: name number + 1, never 0), under one
 * Mapping that says its functions are already resolved, so pprof never
 * tries to symbolize.  A sample is one distinct stack, leaf first, with
 * two values, samples/count and cpu/nanoseconds (count times the
 * period, 10^9 / hz), and its task as labels. */
#include "report.h"
#include "profile.pb-c.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define NS_PER_S 1000000000ull
#define NS_PER_MS 1000000ull

struct strings {
	struct names t;		/* index 0 is "" */
};

static int64_t str(struct strings *s, const char *v)
{
	return (int64_t)names_intern(&s->t, v, strlen(v));
}

static Perftools__Profiles__ValueType *value_type(struct strings *s,
						  const char *type,
						  const char *unit)
{
	Perftools__Profiles__ValueType *v = xmalloc(sizeof *v);

	perftools__profiles__value_type__init(v);
	v->type = str(s, type);
	v->unit = str(s, unit);
	return v;
}

/* A root frame "PID-NAME" is a kprof task: its pid, or -1. */
static long task_pid(const char *root)
{
	long pid = 0;
	size_t i = 0;

	while (isdigit((unsigned char)root[i]) && pid < 100000000)
		pid = pid * 10 + (root[i++] - '0');
	return i > 0 && root[i] == '-' && root[i + 1] ? pid : -1;
}

static Perftools__Profiles__Label *label(struct strings *s, const char *key)
{
	Perftools__Profiles__Label *l = xmalloc(sizeof *l);

	perftools__profiles__label__init(l);
	l->key = str(s, key);
	return l;
}

static Perftools__Profiles__Sample *sample(struct strings *s,
					   const struct profile *p,
					   const struct stack *st,
					   uint64_t period)
{
	Perftools__Profiles__Sample *m = xmalloc(sizeof *m);
	const char *root = p->names->str[st->frames[0]];
	long pid = task_pid(root);
	uint64_t unit = 1;
	unsigned __int128 ns;
	char t[32];

	for (unsigned i = 0; i < p->decimals; i++)
		unit *= 10;
	perftools__profiles__sample__init(m);
	m->n_location_id = st->nframes;
	m->location_id = xmalloc(st->nframes * sizeof *m->location_id);
	/* Folded is root first; pprof wants the leaf first. */
	for (size_t i = 0; i < st->nframes; i++)
		m->location_id[i] = st->frames[st->nframes - 1 - i] + 1;
	m->n_value = 2;
	m->value = xmalloc(2 * sizeof *m->value);
	/* Fractional counts (p->decimals): samples rounded to whole ones,
	 * nanoseconds from the exact count. */
	ns = (unsigned __int128)st->count * period / unit;

	m->value[0] = (int64_t)((st->count + unit / 2) / unit);
	/* cpu/nanoseconds is an int64: 2^63 ns is 292 years of samples. */
	if (ns > INT64_MAX)
		fatal(EXIT_INPUT, "%s: a count of %s samples at %llu ns each does not fit pprof's int64 values",
		      p->path, count_text(p, st->count, t, sizeof t),
		      (unsigned long long)period);
	m->value[1] = (int64_t)ns;
	if (pid >= 0) {
		m->n_label = 2;
		m->label = xmalloc(2 * sizeof *m->label);
		m->label[0] = label(s, "task");
		m->label[0]->str = str(s, root);
		m->label[1] = label(s, "pid");
		m->label[1]->num = pid;
	}
	return m;
}

static void comment(struct strings *s, Perftools__Profiles__Profile *pr,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void comment(struct strings *s, Perftools__Profiles__Profile *pr,
		    const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	pr->comment[pr->n_comment++] = str(s, line);
}

static void gzip_into(struct buf *out, const uint8_t *data, size_t len)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof z);
	/* 16 + 15: a gzip wrapper (header and CRC), 32 KiB window. */
	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + 15, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		fatal(EXIT_INPUT, "zlib: cannot start compressing");
	out->len = 0;
	out->cap = deflateBound(&z, len) + 64;
	out->p = xrealloc(out->p, out->cap);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out->p;
	z.avail_out = (uInt)out->cap;
	rc = deflate(&z, Z_FINISH);
	if (rc != Z_STREAM_END)
		fatal(EXIT_INPUT, "zlib: compression failed (%d)", rc);
	out->len = z.total_out;
	deflateEnd(&z);
}

void report_pprof(struct buf *out, const struct profile *p,
		  uint64_t hz_default)
{
	Perftools__Profiles__Profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__Mapping map = PERFTOOLS__PROFILES__MAPPING__INIT;
	Perftools__Profiles__Mapping *maps[1] = { &map };
	const struct fold_meta *m = &p->meta;
	/* The reader refuses an hz outside 1-10^9: the period is >= 1. */
	uint64_t hz = m->have & META_HZ ? m->hz : hz_default;
	uint64_t period = NS_PER_S / hz;
	size_t nnames = p->names->n;
	struct strings s = { { 0 } };
	uint8_t *packed;
	size_t len;

	str(&s, "");
	pr.n_sample_type = 2;
	pr.sample_type = xmalloc(2 * sizeof *pr.sample_type);
	pr.sample_type[0] = value_type(&s, "samples", "count");
	pr.sample_type[1] = value_type(&s, "cpu", "nanoseconds");
	pr.period_type = value_type(&s, "cpu", "nanoseconds");
	pr.period = (int64_t)period;
	if (m->have & META_WINDOW)
		pr.duration_nanos = (int64_t)(m->window_ms * NS_PER_MS);

	map.id = 1;
	map.filename = str(&s, "kprof");
	map.has_functions = 1;
	pr.n_mapping = 1;
	pr.mapping = maps;

	pr.n_function = pr.n_location = nnames;
	pr.function = xmalloc(nnames * sizeof *pr.function);
	pr.location = xmalloc(nnames * sizeof *pr.location);
	for (size_t i = 0; i < nnames; i++) {
		Perftools__Profiles__Function *f = xmalloc(sizeof *f);
		Perftools__Profiles__Location *l = xmalloc(sizeof *l);
		Perftools__Profiles__Line *ln = xmalloc(sizeof *ln);

		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = f->system_name = str(&s, p->names->str[i]);
		perftools__profiles__line__init(ln);
		ln->function_id = f->id;
		perftools__profiles__location__init(l);
		l->id = i + 1;
		l->mapping_id = 1;
		l->n_line = 1;
		l->line = xmalloc(sizeof *l->line);
		l->line[0] = ln;
		pr.function[i] = f;
		pr.location[i] = l;
	}

	pr.n_sample = p->nstacks;
	pr.sample = xmalloc(p->nstacks * sizeof *pr.sample);
	for (size_t i = 0; i < p->nstacks; i++)
		pr.sample[i] = sample(&s, p, &p->stacks[i], period);

	pr.comment = xmalloc(7 * sizeof *pr.comment);
	if (p->note)
		comment(&s, &pr, "%s", p->note);
	if (m->have & META_SOURCE)
		comment(&s, &pr, "source: %s", m->source);
	if (m->have & META_HZ)
		comment(&s, &pr, "hz: %llu", (unsigned long long)m->hz);
	else
		comment(&s, &pr, "hz: %llu (assumed: the input names no rate)",
			(unsigned long long)hz);
	if (m->have & META_CPUS)
		comment(&s, &pr, "cpus: %llu", (unsigned long long)m->cpus);
	if (m->have & META_DROPPED)
		comment(&s, &pr, "dropped: %llu", (unsigned long long)m->dropped);

	pr.n_string_table = s.t.n;
	pr.string_table = s.t.str;
	len = perftools__profiles__profile__get_packed_size(&pr);
	packed = xmalloc(len);
	perftools__profiles__profile__pack(&pr, packed);
	gzip_into(out, packed, len);
	free(packed);
	/* The rest goes with the process: kprof-report writes one output. */
}
