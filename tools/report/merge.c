/* SPDX-License-Identifier: BSD-2-Clause */
/* kprof-report merge: intervals of one image summed into one profile
 * (doc/collect.md, "Merging").
 *
 *   kprof-report merge A.pb.gz B.pb.gz ... -o OUT.pb.gz
 *   kprof-report merge DIR --from T --to T -o OUT.pb.gz
 *
 * The inputs are pprof files as kprof-collect and kprof-report pprof
 * write them.  Functions, Locations and samples are matched by what they
 * say (names, addresses, lines, labels), not by their ids, which each
 * file numbers its own way; samples that match add their values.  Every
 * input must be of one image (one build_id) and one sample type. */
#define _GNU_SOURCE

#include "report.h"
#include "profile.pb-c.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

typedef Perftools__Profiles__Profile Profile;

/* The output as it is built: each table keyed by a text of its content
 * (a names table interns a key once, numbered from 0). */
struct merged {
	struct names strings, fn_keys, loc_keys, sample_keys;
	Profile pr;
	size_t nfn, nloc, nsample, capfn, caploc, capsample;
	int64_t start, end;
	char build_id[BUILD_ID_HEX_MAX + 1];
	const char *first;		/* the input that set build_id */
	size_t inputs;
	/* Inputs whose comments say their cpu time is the weights the
	 * kernel counted, or nominal (kprof-report's words). */
	size_t weighed, nominal;
};

static Profile *read_pprof(const char *path)
{
	gzFile z = gzopen(path, "rb");
	struct buf b = { 0 };
	char chunk[65536];
	Profile *pr;
	int n;

	if (!z)
		fatal(EXIT_INPUT, "%s: cannot read: %s", path, strerror(errno));
	while ((n = gzread(z, chunk, sizeof chunk)) > 0)
		buf_add(&b, chunk, (size_t)n);
	if (n < 0 || gzclose(z) != Z_OK)
		fatal(EXIT_INPUT, "%s: not a gzipped file", path);
	pr = perftools__profiles__profile__unpack(NULL, b.len, (const uint8_t *)b.p);
	buf_free(&b);
	if (!pr)
		fatal(EXIT_INPUT, "%s: not a pprof profile (profile.proto)", path);
	return pr;
}

static const char *s_of(const Profile *pr, int64_t i, const char *path)
{
	if (i < 0 || (size_t)i >= pr->n_string_table)
		fatal(EXIT_INPUT, "%s: a string index %lld out of its table", path, (long long)i);
	return pr->string_table[i];
}

static int64_t out_str(struct merged *m, const char *s)
{
	size_t i = names_intern(&m->strings, s, strlen(s));

	m->pr.string_table = m->strings.str;
	m->pr.n_string_table = m->strings.n;
	return (int64_t)i;
}

/* The image an input is of: its build_id label, else its mapping's. */
static const char *image_of(const Profile *pr, const char *path)
{
	for (size_t i = 0; i < pr->n_sample; i++)
		for (size_t j = 0; j < pr->sample[i]->n_label; j++)
			if (strcmp(s_of(pr, pr->sample[i]->label[j]->key, path), "build_id") == 0)
				return s_of(pr, pr->sample[i]->label[j]->str, path);
	return pr->n_mapping ? s_of(pr, pr->mapping[0]->build_id, path) : "";
}

static const Perftools__Profiles__Function *fn_by_id(const Profile *pr, uint64_t id,
						      const char *path)
{
	if (id && id <= pr->n_function && pr->function[id - 1]->id == id)
		return pr->function[id - 1];
	for (size_t i = 0; i < pr->n_function; i++)
		if (pr->function[i]->id == id)
			return pr->function[i];
	fatal(EXIT_INPUT, "%s: a line names function %llu, which it does not have", path,
	      (unsigned long long)id);
}

static const Perftools__Profiles__Location *loc_by_id(const Profile *pr, uint64_t id,
						      const char *path)
{
	if (id && id <= pr->n_location && pr->location[id - 1]->id == id)
		return pr->location[id - 1];
	for (size_t i = 0; i < pr->n_location; i++)
		if (pr->location[i]->id == id)
			return pr->location[i];
	fatal(EXIT_INPUT, "%s: a sample names location %llu, which it does not have", path,
	      (unsigned long long)id);
}

/* The output's function for input function @f: by name, system name and file. */
static uint64_t merge_fn(struct merged *m, const Profile *pr,
			 const Perftools__Profiles__Function *f, const char *path)
{
	const char *name = s_of(pr, f->name, path), *sys = s_of(pr, f->system_name, path);
	const char *file = s_of(pr, f->filename, path);
	char *key;
	size_t i;
	int len = asprintf(&key, "%s\n%s\n%s\n%lld", name, sys, file, (long long)f->start_line);

	if (len < 0)
		fatal(EXIT_INPUT, "out of memory");
	i = names_intern(&m->fn_keys, key, (size_t)len);
	free(key);
	if (i < m->nfn)
		return i + 1;
	if (m->nfn == m->capfn) {
		m->capfn = m->capfn ? 2 * m->capfn : 256;
		m->pr.function = xrealloc(m->pr.function, m->capfn * sizeof *m->pr.function);
	}
	Perftools__Profiles__Function *o = xmalloc(sizeof *o);
	perftools__profiles__function__init(o);
	o->id = ++m->nfn;
	o->name = out_str(m, name);
	o->system_name = out_str(m, sys);
	o->filename = out_str(m, file);
	o->start_line = f->start_line;
	m->pr.function[o->id - 1] = o;
	m->pr.n_function = m->nfn;
	return o->id;
}

/* The output's location for input location @l: by address and lines. */
static uint64_t merge_loc(struct merged *m, const Profile *pr,
			  const Perftools__Profiles__Location *l, const char *path)
{
	struct buf key = { 0 };
	uint64_t fns[64];
	size_t i, nl = l->n_line < 64 ? l->n_line : 64;

	buf_printf(&key, "%llx", (unsigned long long)l->address);
	for (i = 0; i < nl; i++) {
		fns[i] = merge_fn(m, pr, fn_by_id(pr, l->line[i]->function_id, path), path);
		buf_printf(&key, ";%llu:%lld", (unsigned long long)fns[i],
			   (long long)l->line[i]->line);
	}
	i = names_intern(&m->loc_keys, key.p ? key.p : "", key.len);
	buf_free(&key);
	if (i < m->nloc)
		return i + 1;
	if (m->nloc == m->caploc) {
		m->caploc = m->caploc ? 2 * m->caploc : 256;
		m->pr.location = xrealloc(m->pr.location, m->caploc * sizeof *m->pr.location);
	}
	Perftools__Profiles__Location *o = xmalloc(sizeof *o);
	perftools__profiles__location__init(o);
	o->id = ++m->nloc;
	o->mapping_id = 1;
	o->address = l->address;
	o->n_line = nl;
	o->line = xmalloc((nl ? nl : 1) * sizeof *o->line);
	for (i = 0; i < nl; i++) {
		o->line[i] = xmalloc(sizeof *o->line[i]);
		perftools__profiles__line__init(o->line[i]);
		o->line[i]->function_id = fns[i];
		o->line[i]->line = l->line[i]->line;
	}
	m->pr.location[o->id - 1] = o;
	m->pr.n_location = m->nloc;
	return o->id;
}

/* Add input sample @s: to the output's sample of the same stack and
 * labels, or as a new one. */
static void merge_sample(struct merged *m, const Profile *pr,
			 const Perftools__Profiles__Sample *s, const char *path)
{
	uint64_t *locs = xmalloc((s->n_location_id ? s->n_location_id : 1) * sizeof *locs);
	struct buf key = { 0 };
	size_t i;

	if (s->n_value != m->pr.n_sample_type)
		fatal(EXIT_INPUT, "%s: a sample has %zu values, the profile %zu types", path,
		      s->n_value, m->pr.n_sample_type);
	for (i = 0; i < s->n_location_id; i++) {
		locs[i] = merge_loc(m, pr, loc_by_id(pr, s->location_id[i], path), path);
		buf_printf(&key, "%llu,", (unsigned long long)locs[i]);
	}
	for (i = 0; i < s->n_label; i++)
		buf_printf(&key, "|%s=%s#%lld", s_of(pr, s->label[i]->key, path),
			   s_of(pr, s->label[i]->str, path), (long long)s->label[i]->num);
	i = names_intern(&m->sample_keys, key.p ? key.p : "", key.len);
	buf_free(&key);
	if (i < m->nsample) {
		for (size_t v = 0; v < s->n_value; v++)
			m->pr.sample[i]->value[v] += s->value[v];
		free(locs);
		return;
	}
	if (m->nsample == m->capsample) {
		m->capsample = m->capsample ? 2 * m->capsample : 1024;
		m->pr.sample = xrealloc(m->pr.sample, m->capsample * sizeof *m->pr.sample);
	}
	Perftools__Profiles__Sample *o = xmalloc(sizeof *o);
	perftools__profiles__sample__init(o);
	o->n_location_id = s->n_location_id;
	o->location_id = locs;
	o->n_value = s->n_value;
	o->value = xmalloc(s->n_value * sizeof *o->value);
	memcpy(o->value, s->value, s->n_value * sizeof *o->value);
	o->n_label = s->n_label;
	o->label = xmalloc((s->n_label ? s->n_label : 1) * sizeof *o->label);
	for (i = 0; i < s->n_label; i++) {
		o->label[i] = xmalloc(sizeof *o->label[i]);
		perftools__profiles__label__init(o->label[i]);
		o->label[i]->key = out_str(m, s_of(pr, s->label[i]->key, path));
		o->label[i]->str = out_str(m, s_of(pr, s->label[i]->str, path));
		o->label[i]->num = s->label[i]->num;
	}
	m->pr.sample[m->nsample++] = o;
	m->pr.n_sample = m->nsample;
}

static Perftools__Profiles__ValueType *vt_copy(struct merged *m, const Profile *pr,
					       const Perftools__Profiles__ValueType *v,
					       const char *path)
{
	Perftools__Profiles__ValueType *o = xmalloc(sizeof *o);

	perftools__profiles__value_type__init(o);
	if (v) {
		o->type = out_str(m, s_of(pr, v->type, path));
		o->unit = out_str(m, s_of(pr, v->unit, path));
	}
	return o;
}

/* The first input sets the sample types, period and mapping. */
static void merge_first(struct merged *m, const Profile *pr, const char *path)
{
	Perftools__Profiles__Mapping *map = xmalloc(sizeof *map);

	out_str(m, "");
	m->pr.n_sample_type = pr->n_sample_type;
	m->pr.sample_type = xmalloc((pr->n_sample_type ? pr->n_sample_type : 1) *
				    sizeof *m->pr.sample_type);
	for (size_t i = 0; i < pr->n_sample_type; i++)
		m->pr.sample_type[i] = vt_copy(m, pr, pr->sample_type[i], path);
	m->pr.period_type = vt_copy(m, pr, pr->period_type, path);
	m->pr.period = pr->period;
	perftools__profiles__mapping__init(map);
	map->id = 1;
	if (pr->n_mapping) {
		const Perftools__Profiles__Mapping *f = pr->mapping[0];

		map->memory_start = f->memory_start;
		map->memory_limit = f->memory_limit;
		map->file_offset = f->file_offset;
		map->filename = out_str(m, s_of(pr, f->filename, path));
		map->build_id = out_str(m, s_of(pr, f->build_id, path));
		map->has_functions = f->has_functions;
		map->has_filenames = f->has_filenames;
		map->has_line_numbers = f->has_line_numbers;
		map->has_inline_frames = f->has_inline_frames;
	}
	m->pr.n_mapping = 1;
	m->pr.mapping = xmalloc(sizeof *m->pr.mapping);
	m->pr.mapping[0] = map;
	m->start = INT64_MAX;
	m->end = INT64_MIN;
}

/* One input: of the same image and sample types as the first. */
/* Whether @pr's cpu time is what the kernel counted, by its comment. */
static void merge_cpu_time(struct merged *m, const Profile *pr,
			   const char *path)
{
	for (size_t i = 0; i < pr->n_comment; i++) {
		const char *c = s_of(pr, pr->comment[i], path);

		if (strncmp(c, PPROF_CPU_WEIGHED, strlen(PPROF_CPU_WEIGHED)) == 0)
			m->weighed++;
		else if (strncmp(c, PPROF_CPU_NOMINAL, strlen(PPROF_CPU_NOMINAL)) == 0)
			m->nominal++;
	}
}

static void merge_one(struct merged *m, const char *path)
{
	Profile *pr = read_pprof(path);
	const char *image = image_of(pr, path);

	if (!m->inputs++) {
		merge_first(m, pr, path);
		snprintf(m->build_id, sizeof m->build_id, "%s", image);
		m->first = xstrdup(path);
	} else if (strcmp(image, m->build_id)) {
		fatal(EXIT_INPUT, "%s is of another image than %s (build_id %s, not %s): merge sums intervals of one image",
		      path, m->first, image[0] ? image : "(none)",
		      m->build_id[0] ? m->build_id : "(none)");
	}
	if (pr->n_sample_type != m->pr.n_sample_type)
		fatal(EXIT_INPUT, "%s has %zu sample types, %s %zu", path, pr->n_sample_type,
		      m->first, m->pr.n_sample_type);
	for (size_t i = 0; i < pr->n_sample_type; i++)
		if (strcmp(s_of(pr, pr->sample_type[i]->type, path),
			   m->strings.str[m->pr.sample_type[i]->type]) ||
		    strcmp(s_of(pr, pr->sample_type[i]->unit, path),
			   m->strings.str[m->pr.sample_type[i]->unit]))
			fatal(EXIT_INPUT, "%s: sample type %zu is not %s's", path, i, m->first);
	for (size_t i = 0; i < pr->n_sample; i++)
		merge_sample(m, pr, pr->sample[i], path);
	merge_cpu_time(m, pr, path);
	if (pr->time_nanos && pr->time_nanos < m->start)
		m->start = pr->time_nanos;
	if (pr->time_nanos && pr->time_nanos + pr->duration_nanos > m->end)
		m->end = pr->time_nanos + pr->duration_nanos;
	perftools__profiles__profile__free_unpacked(pr, NULL);
}

/* "2026-12-06T10:38:40Z", "2026-12-06T10:38:40", the files' own
 * "20261206T103840.153Z", or seconds since the epoch: ns, -1 if none. */
static int64_t time_parse(const char *s)
{
	struct tm tm = { 0 };
	int ms = 0, used = 0;
	char *end;
	long long v;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &used) == 6) {
		/* A fraction of a second: its first three digits. */
		if (s[used] == '.')
			for (int i = 1, scale = 100; i <= 3 && s[used + i] >= '0' &&
			     s[used + i] <= '9'; i++, scale /= 10)
				ms += (s[used + i] - '0') * scale;
	} else if (sscanf(s, "%4d%2d%2dT%2d%2d%2d.%3d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) < 6) {
		v = strtoll(s, &end, 10);
		return *s && !*end && v >= 0 ? v * 1000000000ll : -1;
	}
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000000000ll + (int64_t)ms * 1000000;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR's <start UTC>.pb.gz files that start in [@from, @to), in order. */
static size_t dir_files(const char *dir, int64_t from, int64_t to, char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0;

	if (!d)
		fatal(EXIT_INPUT, "%s: cannot read the folder: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		int64_t at;

		if (len < 7 || strcmp(e->d_name + len - 6, ".pb.gz") ||
		    (at = time_parse(e->d_name)) < 0 || at < from || at >= to)
			continue;
		v = xrealloc(v, (n + 1) * sizeof *v);
		if (asprintf(&v[n++], "%s/%s", dir, e->d_name) < 0)
			fatal(EXIT_INPUT, "out of memory");
	}
	closedir(d);
	qsort(v, n, sizeof *v, name_cmp);
	*out = v;
	return n;
}

static void merge_write(struct merged *m, const char *out_path)
{
	char from[32], to[32], line[160];
	struct buf out = { 0 };
	time_t t;
	uint8_t *packed;
	size_t len;

	if (m->start != INT64_MAX) {
		m->pr.time_nanos = m->start;
		m->pr.duration_nanos = m->end - m->start;
		t = (time_t)(m->start / 1000000000);
		strftime(from, sizeof from, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
		t = (time_t)(m->end / 1000000000);
		strftime(to, sizeof to, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
		snprintf(line, sizeof line, "merged: %zu profiles from %s to %s", m->inputs, from, to);
	} else {
		snprintf(line, sizeof line, "merged: %zu profiles", m->inputs);
	}
	m->pr.comment = xmalloc(2 * sizeof *m->pr.comment);
	m->pr.comment[0] = out_str(m, line);
	m->pr.n_comment = 1;
	/* The sum is what the kernel counted only where every part was. */
	if (m->weighed == m->inputs) {
		m->pr.comment[m->pr.n_comment++] = out_str(m, PPROF_CPU_WEIGHED);
	} else if (m->nominal) {
		snprintf(line, sizeof line, PPROF_CPU_NOMINAL " in %zu of the %zu profiles",
			 m->nominal, m->inputs);
		m->pr.comment[m->pr.n_comment++] = out_str(m, line);
		fprintf(stderr, REPORT_PROG ": merge: %zu of the %zu profiles have no weights: their times are nominal, count x period (kprof-collect and `profile show folded weight` give weights)\n",
			m->nominal, m->inputs);
	}
	len = perftools__profiles__profile__get_packed_size(&m->pr);
	packed = xmalloc(len);
	perftools__profiles__profile__pack(&m->pr, packed);
	if (!pprof_gzip(&out, packed, len))
		fatal(EXIT_INPUT, "zlib: cannot compress the profile");
	free(packed);
	outfile_write(out_path, &out);
	buf_free(&out);
}

static void merge_usage_fail(const char *what, const char *arg)
{
	fatal(EXIT_USAGE, "merge: %s%s (merge A.pb.gz ... -o OUT.pb.gz, or merge DIR --from T --to T -o OUT.pb.gz)",
	      what, arg ? arg : "");
}

int report_merge(int argc, char **argv)
{
	struct merged m = { 0 };
	const char *out = NULL, *from_s = NULL, *to_s = NULL;
	char **inputs = xmalloc((size_t)argc * sizeof *inputs), **files;
	size_t nin = 0, n;
	int64_t from = INT64_MIN, to = INT64_MAX;

	perftools__profiles__profile__init(&m.pr);
	for (int i = 1; i < argc; i++) {
		const char **slot = strcmp(argv[i], "-o") == 0 ? &out
				  : strcmp(argv[i], "--from") == 0 ? &from_s
				  : strcmp(argv[i], "--to") == 0 ? &to_s : NULL;

		if (slot) {
			if (++i == argc)
				merge_usage_fail(argv[i - 1], " needs a value");
			*slot = argv[i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			merge_usage_fail("unknown option ", argv[i]);
		} else {
			inputs[nin++] = argv[i];
		}
	}
	if (!out)
		merge_usage_fail("-o OUT.pb.gz is needed", NULL);
	if (!nin)
		merge_usage_fail("no input", NULL);
	if (from_s && (from = time_parse(from_s)) < 0)
		merge_usage_fail("--from must be a UTC time as 2026-12-06T10:38:40Z (got ", from_s);
	if (to_s && (to = time_parse(to_s)) < 0)
		merge_usage_fail("--to must be a UTC time as 2026-12-06T10:38:40Z (got ", to_s);
	files = inputs;
	n = nin;
	if (from_s || to_s) {
		if (nin != 1)
			merge_usage_fail("--from and --to take one folder", NULL);
		n = dir_files(inputs[0], from, to, &files);
		if (!n)
			fatal(EXIT_INPUT, "%s: no interval starts from %s to %s", inputs[0],
			      from_s ? from_s : "the first", to_s ? to_s : "the last");
	}
	for (size_t i = 0; i < n; i++)
		merge_one(&m, files[i]);
	merge_write(&m, out);
	return 0;
}
