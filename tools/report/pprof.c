/* SPDX-License-Identifier: BSD-2-Clause */
/* pprof's profile.proto, encoded by protobuf-c, compressed by zlib.
 *
 * Folded frames are names, not addresses: each distinct name is one
 * Function and one Location (ids: name number + 1, never 0), under one
 * Mapping that says its functions are already resolved, so pprof never
 * tries to symbolize.  A sample is one distinct stack, leaf first, with
 * two values, samples/count and cpu/nanoseconds (the weights the kernel
 * counted, `# weight=ns`; without them, nominal: count times the
 * period, 10^9 / hz), and its task as labels; a view by CPU (`# root=cpu`)
 * adds the CPU as the numeric label `cpu` (pprof -tagfocus cpu=1).
 * The task is a label only, not the root frame folded gives it: pprof's
 * UI shortens a root `8-split/0` to `0`, which reads as a CPU.
 *
 * An address view resolved against its image (image.c) is what pprof's
 * own profiles look like instead: one Mapping for the image's text with
 * its build-id, file and offset, saying its functions, file names, line
 * numbers and inline frames are all there (so pprof does not symbolize
 * again); a Location per address (a leaf's PC, a caller's ra - 1, as Go
 * writes them) with a Line per inlined function, innermost first; a
 * Function per name and file; cpu/nanoseconds from the weights the
 * kernel summed (what was counted), not from the nominal rate.  Frames
 * that are no address (the task, [host], [truncated]) are Locations
 * without a mapping: data, as they are in a profile by name. */
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

/* The tables of an address view's profile: Functions by name and file,
 * Locations by address or, for frames that are none, by name. */
struct addr_tables {
	struct image *im;
	const struct image_info *info;
	struct names fn_keys;		/* "name\037file" -> function index */
	Perftools__Profiles__Function **fns;
	size_t nfns, capfns;
	Perftools__Profiles__Location **locs;
	size_t nlocs, caplocs;
	uint64_t *loc_addr;		/* open hash: address -> loc id */
	uint64_t *loc_slot;
	size_t nslots;
	uint64_t *name_loc;		/* per frame name: loc id, 0 = none */
};

static uint64_t function_id(struct strings *s, struct addr_tables *t,
			    const char *name, const char *file, int start_line)
{
	char key[1024];
	size_t k;

	snprintf(key, sizeof key, "%s\037%s", name, file ? file : "");
	k = names_intern(&t->fn_keys, key, strlen(key));
	if (k < t->nfns)
		return k + 1;
	if (t->nfns == t->capfns) {
		t->capfns = t->capfns ? 2 * t->capfns : 256;
		t->fns = xrealloc(t->fns, t->capfns * sizeof *t->fns);
	}
	t->fns[k] = xmalloc(sizeof *t->fns[k]);
	perftools__profiles__function__init(t->fns[k]);
	t->fns[k]->id = k + 1;
	t->fns[k]->name = t->fns[k]->system_name = str(s, name);
	if (file)
		t->fns[k]->filename = str(s, file);
	t->fns[k]->start_line = start_line;
	t->nfns = k + 1;
	return k + 1;
}

static Perftools__Profiles__Location *new_location(struct addr_tables *t)
{
	Perftools__Profiles__Location *l = xmalloc(sizeof *l);

	if (t->nlocs == t->caplocs) {
		t->caplocs = t->caplocs ? 2 * t->caplocs : 256;
		t->locs = xrealloc(t->locs, t->caplocs * sizeof *t->locs);
	}
	perftools__profiles__location__init(l);
	l->id = t->nlocs + 1;
	t->locs[t->nlocs++] = l;
	return l;
}

static void add_line(Perftools__Profiles__Location *l, uint64_t fn, int line)
{
	Perftools__Profiles__Line *ln = xmalloc(sizeof *ln);

	perftools__profiles__line__init(ln);
	ln->function_id = fn;
	ln->line = line;
	l->line = xrealloc(l->line, (l->n_line + 1) * sizeof *l->line);
	l->line[l->n_line++] = ln;
}

/* The Location of frame name @name (no address): made once. */
static uint64_t name_location(struct strings *s, struct addr_tables *t,
			      const struct profile *p, size_t name)
{
	Perftools__Profiles__Location *l;

	if (t->name_loc[name])
		return t->name_loc[name];
	l = new_location(t);
	add_line(l, function_id(s, t, p->names->str[name], NULL, 0), 0);
	t->name_loc[name] = l->id;
	return l->id;
}

static void loc_grow(struct addr_tables *t)
{
	uint64_t *addr = t->loc_addr, *slot = t->loc_slot;
	size_t old = t->nslots;

	t->nslots = old ? 2 * old : 1024;
	t->loc_addr = xcalloc(t->nslots, sizeof *t->loc_addr);
	t->loc_slot = xcalloc(t->nslots, sizeof *t->loc_slot);
	for (size_t i = 0; i < old; i++) {
		size_t j;

		if (!slot[i])
			continue;
		for (j = (size_t)(addr[i] * 0x9e3779b97f4a7c15ull) & (t->nslots - 1);
		     t->loc_slot[j]; j = (j + 1) & (t->nslots - 1))
			;
		t->loc_addr[j] = addr[i];
		t->loc_slot[j] = slot[i];
	}
	free(addr);
	free(slot);
}

/* The Location of @addr (a leaf's PC or a caller's ra - 1): its lines
 * from the image, innermost first; made once. */
static uint64_t addr_location(struct strings *s, struct addr_tables *t,
			      uint64_t addr)
{
	struct frame_line fl[32];
	Perftools__Profiles__Location *l;
	size_t j, n;

	if (2 * (t->nlocs + 1) > t->nslots)
		loc_grow(t);
	for (j = (size_t)(addr * 0x9e3779b97f4a7c15ull) & (t->nslots - 1);
	     t->loc_slot[j]; j = (j + 1) & (t->nslots - 1))
		if (t->loc_addr[j] == addr)
			return t->loc_slot[j];
	l = new_location(t);
	l->address = addr;
	if (addr >= t->info->start && addr < t->info->limit)
		l->mapping_id = 1;
	n = image_lines(t->im, addr, fl, sizeof fl / sizeof fl[0]);
	for (size_t i = 0; i < n; i++)
		add_line(l, function_id(s, t, fl[i].function ? fl[i].function : "??",
					fl[i].file, fl[i].decl_line), fl[i].line);
	if (!n) {
		char hex[24];

		snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)addr);
		add_line(l, function_id(s, t, hex, NULL, 0), 0);
	}
	t->loc_addr[j] = addr;
	t->loc_slot[j] = l->id;
	return l->id;
}

/* Sample @st's locations, leaf first, into @ids: its @n frames nearest
 * the leaf. */
static void stack_locations(struct strings *s, struct addr_tables *t,
			    const struct profile *p, const struct stack *st,
			    uint64_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t f = st->nframes - 1 - i;
		uint64_t a = st->addrs ? st->addrs[f] : 0;

		if (!a)
			ids[i] = name_location(s, t, p, st->frames[f]);
		else
			ids[i] = addr_location(s, t, i == 0 ? a : a - 1);
	}
}

/* A wall profile's state, from the frame under the task: "cpu",
 * "runnable", "blocked", or NULL. */
static const char *wall_state(const struct profile *p, const struct stack *st)
{
	static const char *const states[] = { "cpu", "runnable", "blocked" };
	const char *f;

	if (!p->meta.unit_us || st->nframes < 2)
		return NULL;
	f = p->names->str[st->frames[1]];
	for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
		if (f[0] == '[' && strncmp(f + 1, states[i], strlen(states[i])) == 0 &&
		    strcmp(f + 1 + strlen(states[i]), "]") == 0)
			return states[i];
	return NULL;
}

/* A wall profile's sample values: its wall nanoseconds (the
 * microseconds as read, in every state), its cpu nanoseconds (those of
 * [cpu] lines); the state a label beside the task's. */
static void wall_values(struct strings *s, const struct profile *p,
			const struct stack *st, Perftools__Profiles__Sample *m)
{
	const char *state = wall_state(p, st);
	/* pprof_values_fit() saw that it fits. */
	uint64_t ns = st->count * 1000u;

	m->value[0] = (int64_t)ns;
	m->value[1] = state && strcmp(state, "cpu") == 0 ? (int64_t)ns : 0;
	if (!state)
		return;
	m->label = xrealloc(m->label, (m->n_label + 1) * sizeof *m->label);
	m->label[m->n_label] = label(s, "state");
	m->label[m->n_label]->str = str(s, state);
	m->n_label++;
}

static Perftools__Profiles__Sample *sample(struct strings *s,
					   const struct profile *p,
					   const struct stack *st,
					   uint64_t period,
					   struct addr_tables *tab)
{
	Perftools__Profiles__Sample *m = xmalloc(sizeof *m);
	const char *root = p->names->str[st->frames[0]];
	long pid = task_pid(root);
	/* The task's root frame is its label only (there is always a frame
	 * above it: a leaf). */
	size_t n = st->nframes - (pid >= 0 && st->nframes > 1);
	uint64_t unit = 1;
	unsigned __int128 ns;

	for (unsigned i = 0; i < p->decimals; i++)
		unit *= 10;
	perftools__profiles__sample__init(m);
	m->n_location_id = n;
	m->location_id = xmalloc(n * sizeof *m->location_id);
	/* Folded is root first; pprof wants the leaf first. */
	if (tab)
		stack_locations(s, tab, p, st, m->location_id, n);
	else
		for (size_t i = 0; i < n; i++)
			m->location_id[i] = st->frames[st->nframes - 1 - i] + 1;
	m->n_value = 2;
	m->value = xmalloc(2 * sizeof *m->value);
	/* Fractional counts (p->decimals): samples rounded to whole ones,
	 * nanoseconds from the exact count. */
	ns = (unsigned __int128)st->count * period / unit;

	m->value[0] = (int64_t)((st->count + unit / 2) / unit);
	/* pprof_values_fit() saw that it fits. */
	m->value[1] = (int64_t)ns;
	/* What the kernel counted: the weights, where it sent them. */
	if (p->meta.weight_ns)
		m->value[1] = (int64_t)st->weight;
	m->label = xmalloc(3 * sizeof *m->label);
	if (pid >= 0) {
		m->label[m->n_label] = label(s, "task");
		m->label[m->n_label++]->str = str(s, root);
		m->label[m->n_label] = label(s, "pid");
		m->label[m->n_label++]->num = pid;
	}
	/* A unit, or pprof drops the label of CPU 0: protobuf does not
	 * write a num of 0, and pprof keeps a numeric label only where its
	 * num or its unit is there.  An unknown unit leaves -tags printing
	 * the bare number and -tagfocus cpu=1 matching it. */
	if (st->cpu >= 0) {
		m->label[m->n_label] = label(s, "cpu");
		m->label[m->n_label]->num = st->cpu;
		m->label[m->n_label++]->num_unit = str(s, "cpu");
	}
	if (p->meta.unit_us)
		wall_values(s, p, st, m);
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

/* Whether every sample's values fit pprof's int64s, checked before
 * anything is built: false with the reason in @err. */
static bool pprof_values_fit(const struct profile *p, uint64_t period,
			     char *err, size_t errlen)
{
	uint64_t unit = 1;
	char t[32];

	for (unsigned i = 0; i < p->decimals; i++)
		unit *= 10;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct stack *st = &p->stacks[i];

		/* cpu/nanoseconds is an int64: 2^63 ns is 292 years of
		 * samples. */
		if ((unsigned __int128)st->count * period / unit > INT64_MAX) {
			snprintf(err, errlen, "%s: a count of %s samples at %llu ns each does not fit pprof's int64 values",
				 p->path, count_text(p, st->count, t, sizeof t),
				 (unsigned long long)period);
			return false;
		}
		if (p->meta.unit_us && st->count > INT64_MAX / 1000) {
			snprintf(err, errlen, "%s: %llu us does not fit pprof's int64 nanoseconds",
				 p->path, (unsigned long long)st->count);
			return false;
		}
	}
	return true;
}

bool pprof_gzip(struct buf *out, const uint8_t *data, size_t len)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof z);
	/* 16 + 15: a gzip wrapper (header and CRC), 32 KiB window. */
	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + 15, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return false;
	out->len = 0;
	out->cap = deflateBound(&z, len) + 64;
	out->p = xrealloc(out->p, out->cap);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out->p;
	z.avail_out = (uInt)out->cap;
	rc = deflate(&z, Z_FINISH);
	out->len = z.total_out;
	deflateEnd(&z);
	return rc == Z_STREAM_END;
}

/* The Mapping of @t's image, and the tables an address view fills as
 * its samples are made. */
static void addr_mapping(struct strings *s, struct addr_tables *t,
			 Perftools__Profiles__Mapping *map,
			 const struct profile *p)
{
	map->memory_start = t->info->start;
	map->memory_limit = t->info->limit;
	map->file_offset = t->info->offset;
	map->filename = str(s, t->info->path);
	map->build_id = str(s, t->info->build_id);
	map->has_functions = 1;
	map->has_filenames = 1;
	map->has_line_numbers = 1;
	map->has_inline_frames = 1;
	t->name_loc = xcalloc(p->names->n + 1, sizeof *t->name_loc);
}

/* The stamp's labels on every sample, after its own. */
static void stamp_labels(struct strings *s, Perftools__Profiles__Profile *pr,
			 const struct pprof_stamp *st)
{
	for (size_t i = 0; i < pr->n_sample; i++) {
		Perftools__Profiles__Sample *m = pr->sample[i];

		m->label = xrealloc(m->label, (m->n_label + st->nlabels) * sizeof *m->label);
		for (size_t j = 0; j < st->nlabels; j++) {
			m->label[m->n_label] = label(s, st->keys[j]);
			m->label[m->n_label++]->str = str(s, st->values[j]);
		}
	}
}

/* Everything a profile was built of: a program that writes one profile
 * after another (kprof-collect) must not keep them all.  A profile by
 * name has a Location per Function; an address view's tables (@t) have
 * their own counts, several Lines a Location, and their hash tables. */
static void pprof_free(Perftools__Profiles__Profile *pr, struct strings *s,
		       struct addr_tables *t)
{
	for (size_t i = 0; i < pr->n_sample_type; i++)
		free(pr->sample_type[i]);
	free(pr->sample_type);
	free(pr->period_type);
	for (size_t i = 0; i < pr->n_location; i++) {
		for (size_t j = 0; j < pr->location[i]->n_line; j++)
			free(pr->location[i]->line[j]);
		free(pr->location[i]->line);
		free(pr->location[i]);
	}
	for (size_t i = 0; i < pr->n_function; i++)
		free(pr->function[i]);
	free(pr->function);
	free(pr->location);
	if (t) {
		free(t->loc_addr);
		free(t->loc_slot);
		free(t->name_loc);
		names_free(&t->fn_keys);
	}
	for (size_t i = 0; i < pr->n_sample; i++) {
		Perftools__Profiles__Sample *m = pr->sample[i];

		for (size_t j = 0; j < m->n_label; j++)
			free(m->label[j]);
		free(m->label);
		free(m->location_id);
		free(m->value);
		free(m);
	}
	free(pr->sample);
	free(pr->comment);
	names_free(&s->t);
}

void report_pprof(struct buf *out, const struct profile *p,
		  uint64_t hz_default, struct image *im)
{
	char err[512];

	if (!report_pprof_stamped(out, p, hz_default, im, NULL, err, sizeof err))
		fatal(EXIT_INPUT, "%s", err);
}

bool report_pprof_stamped(struct buf *out, const struct profile *p,
			  uint64_t hz_default, struct image *im,
			  const struct pprof_stamp *stamp, char *err, size_t errlen)
{
	struct addr_tables tables = { .im = im }, *t = im ? &tables : NULL;
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
	bool ok;

	if (!pprof_values_fit(p, period, err, errlen))
		return false;
	str(&s, "");
	pr.n_sample_type = 2;
	pr.sample_type = xmalloc(2 * sizeof *pr.sample_type);
	/* A wall profile's lines are microseconds of task time in a state:
	 * wall time is what they sum, the [cpu] lines' the cpu time; no
	 * sample counts and no rate. */
	if (m->unit_us) {
		pr.sample_type[0] = value_type(&s, "wall", "nanoseconds");
		pr.sample_type[1] = value_type(&s, "cpu", "nanoseconds");
		pr.period_type = value_type(&s, "wall", "nanoseconds");
		pr.period = 1000;
		pr.default_sample_type = str(&s, "wall");
	} else {
		pr.sample_type[0] = value_type(&s, "samples", "count");
		pr.sample_type[1] = value_type(&s, "cpu", "nanoseconds");
		pr.period_type = value_type(&s, "cpu", "nanoseconds");
		pr.period = (int64_t)period;
	}
	if (m->have & META_WINDOW)
		pr.duration_nanos = (int64_t)(m->window_ms * NS_PER_MS);

	map.id = 1;
	map.filename = str(&s, "kprof");
	map.has_functions = 1;
	pr.n_mapping = 1;
	pr.mapping = maps;
	if (t) {
		tables.info = image_info(im);
		addr_mapping(&s, t, &map, p);
		nnames = 0;
	}

	/* None for an address view (its tables replace these below): an
	 * allocation of 0 bytes would still be one, lost at the swap. */
	pr.n_function = pr.n_location = nnames;
	pr.function = nnames ? xmalloc(nnames * sizeof *pr.function) : NULL;
	pr.location = nnames ? xmalloc(nnames * sizeof *pr.location) : NULL;
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
		pr.sample[i] = sample(&s, p, &p->stacks[i], period, t);
	/* When the host had the block (kshell -o), so pprof shows Time:. */
	if (m->have & META_TIME)
		pr.time_nanos = (int64_t)m->time_nanos;
	if (stamp) {
		stamp_labels(&s, &pr, stamp);
		pr.time_nanos = stamp->time_nanos;
	}
	if (t) {
		pr.n_function = t->nfns;
		pr.function = t->fns;
		pr.n_location = t->nlocs;
		pr.location = t->locs;
	}

	pr.comment = xmalloc(10 * sizeof *pr.comment);
	if (p->meta.weight_ns)
		comment(&s, &pr, PPROF_CPU_WEIGHED ", %llu ns in all",
			(unsigned long long)p->total_weight);
	else if (!m->unit_us)
		comment(&s, &pr, PPROF_CPU_NOMINAL " (the input has no # weight=ns)");
	if (p->meta.have & META_HIDDEN)
		comment(&s, &pr, "hidden: %llu ns of kprof's service tasks (shell, udpsh, profd, netrx)",
			(unsigned long long)p->meta.hidden_ns);
	if (p->meta.have & META_BUSY)
		comment(&s, &pr, "busy: %llu ns of cpu time outside the idle task",
			(unsigned long long)p->meta.busy_ns);
	if (p->note)
		comment(&s, &pr, "%s", p->note);
	if (m->have & META_SOURCE)
		comment(&s, &pr, "source: %s", m->source);
	if (m->have & META_HZ)
		comment(&s, &pr, "hz: %llu", (unsigned long long)m->hz);
	else if (!m->unit_us)
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
	ok = pprof_gzip(out, packed, len);
	free(packed);
	if (!ok)
		snprintf(err, errlen, "zlib: cannot compress the profile");
	/* kprof-report writes one output and leaves the rest to the
	 * process; a stamped profile is one of many. */
	if (stamp)
		pprof_free(&pr, &s, t);
	return ok;
}
