/* SPDX-License-Identifier: BSD-2-Clause */
/* kprof-report's side of the folded-stacks reader (tools/folded_read.h
 * reads the lines).  A file is either one `# kprof folded begin` ...
 * `# kprof folded end lines=N samples=M` block, as the kernel's
 * `profile ... folded` prints it (lines outside the block, such as the
 * rest of a saved console session, are ignored), or bare folded lines
 * as flamegraph.pl and inferno read them.  Here each stack's frames
 * become names, interned, and a stack read again adds to the first
 * one's count: a view by CPU's root frame (`cpuN`) is the stack's cpu,
 * not a frame, so the same stack on two CPUs is two stacks. */
#include "report.h"
#include "lib/folded_frame.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct line {
	char *text;
	size_t len;
};

struct reader {
	struct profile *p;
	struct folded_reader fr;
	bool strip_pid;
	size_t *slot;		/* stack dedup: index + 1, 0 = empty */
	size_t nslots;
	size_t *frames;		/* scratch for one line */
	size_t cap_frames;
	size_t max_names;	/* distinct names; 0: any */
};

/* Every line of @f (read as @path), for the begin line to be looked
 * for first; false with the error in @err. */
static bool read_lines(const char *path, FILE *f, struct line **out,
		       size_t *nout, char *err, size_t errlen)
{
	struct line *lines = NULL;
	size_t n = 0, cap = 0;
	char *text = NULL;
	size_t tcap = 0;
	ssize_t got;

	while ((got = getline(&text, &tcap, f)) >= 0) {
		size_t len = (size_t)got;

		if (len && text[len - 1] == '\n')
			len--;
		if (len && text[len - 1] == '\r')
			len--;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			lines = xrealloc(lines, cap * sizeof *lines);
		}
		lines[n].text = xmalloc(len + 1);
		memcpy(lines[n].text, text, len);
		lines[n].text[len] = '\0';
		lines[n].len = len;
		n++;
	}
	free(text);
	*out = lines;
	*nout = n;
	if (ferror(f)) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return false;
	}
	return true;
}

/* ---- stacks ---- */

static uint64_t stack_hash(const size_t *f, size_t n, long cpu)
{
	uint64_t h = (0xcbf29ce484222325ull ^ (uint64_t)cpu) * 0x100000001b3ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (uint64_t)f[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static size_t *stack_slot(struct reader *r, const size_t *f, size_t n,
			  long cpu)
{
	size_t i = (size_t)stack_hash(f, n, cpu) & (r->nslots - 1);

	for (;; i = (i + 1) & (r->nslots - 1)) {
		struct stack *s;

		if (!r->slot[i])
			return &r->slot[i];
		s = &r->p->stacks[r->slot[i] - 1];
		if (s->nframes == n && s->cpu == cpu &&
		    memcmp(s->frames, f, n * sizeof *f) == 0)
			return &r->slot[i];
	}
}

static void stacks_grow(struct reader *r)
{
	struct profile *p = r->p;

	p->cap = p->cap ? p->cap * 2 : 256;
	p->stacks = xrealloc(p->stacks, p->cap * sizeof *p->stacks);
	free(r->slot);
	r->nslots = p->cap * 2;
	r->slot = xcalloc(r->nslots, sizeof *r->slot);
	for (size_t i = 0; i < p->nstacks; i++)
		*stack_slot(r, p->stacks[i].frames, p->stacks[i].nframes,
			    p->stacks[i].cpu) = i + 1;
}

/* A repeated stack (on the same CPU) adds to the first one's count and
 * weight. */
static void stack_add(struct reader *r, size_t nframes, long cpu,
		      uint64_t count, uint64_t weight)
{
	struct profile *p = r->p;
	size_t *slot;
	struct stack *s;

	if (p->nstacks == p->cap)
		stacks_grow(r);
	slot = stack_slot(r, r->frames, nframes, cpu);
	if (*slot) {
		p->stacks[*slot - 1].count += count;
		p->stacks[*slot - 1].weight += weight;
		return;
	}
	s = &p->stacks[p->nstacks++];
	s->frames = xmalloc(nframes * sizeof *s->frames);
	memcpy(s->frames, r->frames, nframes * sizeof *s->frames);
	s->nframes = nframes;
	s->count = count;
	s->weight = weight;
	s->cpu = cpu;
	s->addrs = NULL;
	*slot = p->nstacks;
}

static size_t root_name(struct reader *r, const char *s, size_t len)
{
	size_t i = 0;

	if (r->strip_pid) {
		while (i < len && isdigit((unsigned char)s[i]))
			i++;
		if (i > 0 && i + 1 < len && s[i] == '-')
			return names_intern(r->p->names, s + i + 1, len - i - 1);
	}
	return names_intern(r->p->names, s, len);
}

/* A line of the file read into a stack of @r's profile; false (said in
 * the reader's err) past the cap on distinct names. */
static bool stack_read(struct reader *r, const struct folded_line *l)
{
	struct profile *p = r->p;

	/* A count with more decimals than those before it. */
	for (size_t i = 0; l->rescale != 1 && i < p->nstacks; i++)
		p->stacks[i].count *= l->rescale;
	if (l->nframes > r->cap_frames) {
		r->cap_frames = l->nframes * 2;
		r->frames = xrealloc(r->frames, r->cap_frames * sizeof *r->frames);
	}
	for (size_t i = 0; i < l->nframes; i++)
		r->frames[i] = i == 0 ? root_name(r, l->frames[i].s, l->frames[i].len)
				      : names_intern(p->names, l->frames[i].s,
						     l->frames[i].len);
	if (r->max_names && p->names->n > r->max_names) {
		snprintf(r->fr.err, r->fr.errlen, "%s:%zu: more than %zu distinct frame names",
			 r->fr.path, r->fr.lineno, r->max_names);
		return false;
	}
	/* A line of count 0 adds its weight but no stack. */
	if (l->count)
		stack_add(r, l->nframes, l->cpu, l->count, l->weight);
	return true;
}

/* The first line that is a block's begin line, or @n: none. */
static size_t find_begin(const struct line *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(lines[i].text, FOLDED_BEGIN_LINE) == 0)
			return i;
	return n;
}

/* What the reader read into @r's profile, its scratch freed: @ok, or
 * false when the profile holds no samples (but under FOLDED_READ_EMPTY). */
static bool reader_done(struct reader *r, const char *path, bool ok,
			char *err, size_t errlen)
{
	struct profile *p = r->p;

	ok = ok && folded_reader_finish(&r->fr);
	p->meta = r->fr.meta;
	r->fr.meta.source = NULL;
	p->total = r->fr.total;
	/* The stacks' weights: a line of count 0 is no stack, and every
	 * view's total is what its stacks hold. */
	p->total_weight = 0;
	for (size_t i = 0; i < p->nstacks; i++)
		p->total_weight += p->stacks[i].weight;
	p->decimals = r->fr.decimals;
	if (ok && !p->total && !(r->fr.flags & FOLDED_READ_EMPTY)) {
		snprintf(err, errlen, "%s: no samples in the profile", path);
		ok = false;
	}
	folded_reader_free(&r->fr);
	free(r->slot);
	free(r->frames);
	r->slot = NULL;
	r->frames = NULL;
	return ok;
}

/* One line into the reader; false at its error. */
static bool reader_line(struct reader *r, const char *text, size_t len,
			enum folded_kind *k)
{
	*k = folded_reader_line(&r->fr, text, len);
	if (*k == FOLDED_ERROR)
		return false;
	return *k != FOLDED_DATA || stack_read(r, &r->fr.line);
}

/* The reader proper: @f read to its end; false with the error in @err. */
static bool folded_read(struct reader *r, const char *path, FILE *f,
			char *err, size_t errlen)
{
	struct line *lines = NULL;
	size_t nlines = 0, first;
	enum folded_kind k;
	bool ok;

	ok = read_lines(path, f, &lines, &nlines, err, errlen);
	first = find_begin(lines, nlines);
	/* No begin line: bare folded lines, every one the profile's. */
	folded_reader_init(&r->fr, path, first == nlines ? FOLDED_READ_BARE : 0,
			   err, errlen);
	if (first == nlines)
		first = 0;
	r->fr.lineno = first;
	for (size_t i = first; ok && i < nlines; i++)
		ok = reader_line(r, lines[i].text, lines[i].len, &k);
	for (size_t i = 0; i < nlines; i++)
		free(lines[i].text);
	free(lines);
	return reader_done(r, path, ok, err, errlen);
}

bool folded_parse(struct profile *p, const char *path, FILE *f,
		  struct names *names, bool strip_pid, char *err, size_t errlen)
{
	struct reader r = { .p = p, .strip_pid = strip_pid };

	memset(p, 0, sizeof *p);
	p->path = path;
	p->names = names;
	return folded_read(&r, path, f, err, errlen);
}

bool folded_parse_text(struct profile *p, const char *path, const char *text,
		       size_t len, struct names *names,
		       const struct folded_limits *lim, char *err, size_t errlen)
{
	struct reader r = { .p = p, .max_names = lim->names };
	const char *s = text, *stop = text + len;
	enum folded_kind k = FOLDED_SKIP;
	bool ok = true;

	memset(p, 0, sizeof *p);
	p->path = path;
	p->names = names;
	folded_reader_init(&r.fr, path, lim->flags & ~FOLDED_READ_BARE, err, errlen);
	r.fr.max_lines = lim->lines;
	r.fr.max_frames = lim->frames;
	/* In place, a line at a time: nothing is copied but one line. */
	while (ok && k != FOLDED_END && s < stop) {
		const char *nl = memchr(s, '\n', (size_t)(stop - s));
		const char *next = nl ? nl + 1 : stop;

		ok = reader_line(&r, s, (size_t)((nl ? nl : stop) - s), &k);
		s = next;
	}
	if (ok && !folded_reader_begun(&r.fr)) {
		snprintf(err, errlen, "%s: no '%s' line", path, FOLDED_BEGIN_LINE);
		ok = false;
	}
	return reader_done(&r, path, ok, err, errlen);
}

void folded_free(struct profile *p)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		free(p->stacks[i].frames);
		free(p->stacks[i].addrs);
	}
	free(p->stacks);
	free(p->meta.source);
	free(p->note);
	p->note = NULL;
	p->stacks = NULL;
	p->meta.source = NULL;
	p->nstacks = p->cap = 0;
}

void folded_load(struct profile *p, const char *path, struct names *names,
		 bool strip_pid)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char err[512];
	bool ok;

	if (!f)
		fatal(EXIT_INPUT, "%s: cannot read: %s", path, strerror(errno));
	ok = folded_parse(p, path, f, names, strip_pid, err, sizeof err);
	if (f != stdin)
		fclose(f);
	if (!ok)
		fatal(EXIT_INPUT, "%s", err);
}
