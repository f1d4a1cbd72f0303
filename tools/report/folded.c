/* SPDX-License-Identifier: BSD-2-Clause */
/* The folded-stacks reader.  A file is either one `# kprof folded begin`
 * ... `# kprof folded end lines=N samples=M` block, as the kernel's
 * `profile ... folded` prints it (lines outside the block, such as the
 * rest of a saved console session, are ignored), or bare folded lines
 * as flamegraph.pl and inferno read them.  A data line is
 * `frame;frame;... COUNT`, root first.
 *
 * Header lines in the block start with `#` and give one key each, in any
 * of `# key: value`, `# key=value` or `# key value`; several `key=value`
 * pairs may share a line, and a value runs up to the next `key=`, so
 * `# source=pmu/signal perf cycles hz=1000` is two keys.  Known keys:
 * source, hz, window_ms, cpus, samples, dropped; others are ignored.
 *
 * The address view (`profile show folded addr`) says `# frames=addr`:
 * every frame after the task's is an address (`0x...`), `[host]` or
 * `[truncated]`, and with `# weight=ns` a line ends in its count and
 * then its weight, `frame;... COUNT WEIGHT`; `# build_id=HEX` names the
 * image and `# busy_ns=N` the CPUs' busy time over the window.
 *
 * A view by CPU (`profile show folded [addr] cpus`) says `# root=cpu`:
 * every line's first frame is the CPU that took its samples, `cpuN`,
 * before the task's.  It is read into the stack's cpu, not kept as a
 * frame, and the same stack on two CPUs is two stacks; `# cpu_busy_ns=`
 * (each CPU's busy time) is left to the reader of the file. */
#include "report.h"
#include "lib/folded_frame.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts and their sum are at most pprof's int64; a fractional count
 * keeps this many decimals (struct profile's decimals). */
#define COUNT_MAX ((uint64_t)INT64_MAX)
#define DECIMALS_MAX 6
#define HZ_MAX 1000000000ull	/* the period, 10^9 / hz ns, is >= 1 */
#define CPUS_MAX 1000000ull
/* window_ms in nanoseconds (pprof's duration) fits an int64. */
#define WINDOW_MS_MAX ((uint64_t)INT64_MAX / 1000000)

struct line {
	char *text;
	size_t len;
	bool has_nul;
};

struct reader {
	struct profile *p;
	bool strip_pid;
	size_t *slot;		/* stack dedup: index + 1, 0 = empty */
	size_t nslots;
	size_t *frames;		/* scratch for one line */
	size_t cap_frames;
	char *err;		/* the first error, one line */
	size_t errlen;
	size_t first_line;	/* the first stack line's number, 0: none yet */
};

/* Record the error (FILE:LINE: what) and return false: the reader stops
 * at its first error and its caller says it. */
static bool rd_fail(struct reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool rd_fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return false;
}

/* Up to 60 printable bytes of @s, for an error message. */
static const char *excerpt(const char *s, size_t len)
{
	static char out[64];
	size_t n = len < 60 ? len : 60;

	for (size_t i = 0; i < n; i++)
		out[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	out[n] = '\0';
	if (len > 60)
		strcpy(out + 57, "...");
	return out;
}

static bool is_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

static bool parse_u64(const char *s, size_t len, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		if (x > (max - (uint64_t)(s[i] - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return true;
}

static bool read_lines(struct reader *r, const char *path, FILE *f,
		       struct line **out, size_t *nout)
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
		lines[n].has_nul = memchr(text, '\0', len) != NULL;
		lines[n].text = xmalloc(len + 1);
		memcpy(lines[n].text, text, len);
		lines[n].text[len] = '\0';
		lines[n].len = len;
		n++;
	}
	free(text);
	*out = lines;
	*nout = n;
	if (ferror(f))
		return rd_fail(r, "%s: cannot read: %s", path, strerror(errno));
	return true;
}

/* ---- header lines ---- */

static bool is_key(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!islower((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static bool is_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return len > 0;
}

/* Whether header key @key (@klen bytes) is @name. */
static bool key_is(const char *key, size_t klen, const char *name)
{
	return klen == strlen(name) && memcmp(key, name, klen) == 0;
}

/* The views' keys: frames=addr, weight=ns, build_id=HEX, root=cpu. */
static bool meta_view(struct reader *r, const char *key, size_t klen,
		      const char *val, size_t vlen, size_t lineno)
{
	struct fold_meta *m = &r->p->meta;
	bool shapes = key_is(key, klen, FOLDED_KEY_FRAMES) ||
		      key_is(key, klen, FOLDED_KEY_WEIGHT) ||
		      key_is(key, klen, FOLDED_KEY_ROOT);

	/* These say how a stack line reads: lines read before them would
	 * have been read otherwise. */
	if (shapes && r->first_line)
		return rd_fail(r, "%s:%zu: header %.*s must come before the first stack line (line %zu)",
			       r->p->path, lineno, (int)klen, key, r->first_line);
	if (klen == strlen(FOLDED_KEY_FRAMES) && memcmp(key, FOLDED_KEY_FRAMES, klen) == 0) {
		if (vlen != strlen(FOLDED_FRAMES_ADDR) || memcmp(val, FOLDED_FRAMES_ADDR, vlen))
			return rd_fail(r, "%s:%zu: header frames must be addr (got '%s')",
				       r->p->path, lineno, excerpt(val, vlen));
		m->addr = true;
	} else if (klen == strlen(FOLDED_KEY_WEIGHT) && memcmp(key, FOLDED_KEY_WEIGHT, klen) == 0) {
		if (vlen != strlen(FOLDED_WEIGHT_NS) || memcmp(val, FOLDED_WEIGHT_NS, vlen))
			return rd_fail(r, "%s:%zu: header weight must be ns (got '%s')",
				       r->p->path, lineno, excerpt(val, vlen));
		m->weight_ns = true;
	} else if (klen == strlen(FOLDED_KEY_ROOT) && memcmp(key, FOLDED_KEY_ROOT, klen) == 0) {
		if (vlen != strlen(FOLDED_ROOT_CPU) || memcmp(val, FOLDED_ROOT_CPU, vlen))
			return rd_fail(r, "%s:%zu: header root must be cpu (got '%s')",
				       r->p->path, lineno, excerpt(val, vlen));
		m->root_cpu = true;
	} else if (key_is(key, klen, FOLDED_KEY_UNIT)) {
		if (!key_is(val, vlen, FOLDED_UNIT_US))
			return rd_fail(r, "%s:%zu: header unit must be us (got '%s')",
				       r->p->path, lineno, excerpt(val, vlen));
		m->unit_us = true;
	} else if (klen == strlen(FOLDED_KEY_BUILD_ID) &&
		   memcmp(key, FOLDED_KEY_BUILD_ID, klen) == 0) {
		if (!is_hex(val, vlen) || vlen % 2 || vlen > BUILD_ID_HEX_MAX)
			return rd_fail(r, "%s:%zu: header build_id must be an even number of hex digits, at most %d (got '%s')",
				       r->p->path, lineno, BUILD_ID_HEX_MAX,
				       excerpt(val, vlen));
		for (size_t i = 0; i < vlen; i++)
			m->build_id[i] = (char)tolower((unsigned char)val[i]);
		m->build_id[vlen] = '\0';
	}
	return true;
}

static bool meta_set(struct reader *r, const char *key, size_t klen,
		     const char *val, size_t vlen, size_t lineno)
{
	static const struct {
		const char *key;
		unsigned bit;
		size_t off;
		uint64_t lo, hi;
	} nums[] = {
		{ FOLDED_KEY_HZ, META_HZ, offsetof(struct fold_meta, hz), 1, HZ_MAX },
		{ FOLDED_KEY_WINDOW_MS, META_WINDOW, offsetof(struct fold_meta, window_ms),
		  0, WINDOW_MS_MAX },
		{ FOLDED_KEY_CPUS, META_CPUS, offsetof(struct fold_meta, cpus), 1, CPUS_MAX },
		{ FOLDED_KEY_SAMPLES, META_SAMPLES, offsetof(struct fold_meta, samples),
		  0, COUNT_MAX },
		{ FOLDED_KEY_DROPPED, META_DROPPED, offsetof(struct fold_meta, dropped),
		  0, COUNT_MAX },
		{ FOLDED_KEY_BUSY_NS, META_BUSY, offsetof(struct fold_meta, busy_ns),
		  0, COUNT_MAX },
	};
	struct fold_meta *m = &r->p->meta;
	uint64_t v;

	while (vlen && isspace((unsigned char)val[vlen - 1]))
		vlen--;
	if (klen == strlen(FOLDED_KEY_SOURCE) && memcmp(key, FOLDED_KEY_SOURCE, klen) == 0) {
		free(m->source);
		m->source = xmalloc(vlen + 1);
		memcpy(m->source, val, vlen);
		m->source[vlen] = '\0';
		m->have |= META_SOURCE;
		return true;
	}
	if (!meta_view(r, key, klen, val, vlen, lineno))
		return false;
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
		if (strlen(nums[i].key) != klen || memcmp(nums[i].key, key, klen))
			continue;
		/* Out of range, a value would be divided by (hz) or
		 * overflow an output's int64: refused, not clamped. */
		if (!parse_u64(val, vlen, nums[i].hi, &v) || v < nums[i].lo)
			return rd_fail(r, "%s:%zu: header %s must be a whole number %llu-%llu (got '%s')",
			      r->p->path, lineno, nums[i].key,
			      (unsigned long long)nums[i].lo,
			      (unsigned long long)nums[i].hi, excerpt(val, vlen));
		*(uint64_t *)((char *)m + nums[i].off) = v;
		m->have |= nums[i].bit;
		return true;
	}
	return true;
}

static bool is_known_key(const char *s, size_t len)
{
	static const char *const known[] = {
		FOLDED_KEY_SOURCE, FOLDED_KEY_HZ, FOLDED_KEY_WINDOW_MS, FOLDED_KEY_CPUS,
		FOLDED_KEY_SAMPLES, FOLDED_KEY_DROPPED, FOLDED_KEY_FRAMES,
		FOLDED_KEY_WEIGHT, FOLDED_KEY_BUILD_ID, FOLDED_KEY_BUSY_NS,
		FOLDED_KEY_ROOT, FOLDED_KEY_UNIT,
	};

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strlen(known[i]) == len && memcmp(known[i], s, len) == 0)
			return true;
	return false;
}

/* The length of the token at @s (up to white space). */
static size_t token_len(const char *s)
{
	size_t n = 0;

	while (s[n] && !isspace((unsigned char)s[n]))
		n++;
	return n;
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* `key=value key=value ...`: a value runs up to the next `key=`. */
static bool meta_pairs(struct reader *r, const char *s, size_t lineno)
{
	while (*s) {
		const char *eq = strchr(s, '=');
		const char *val = eq + 1, *end = val;

		for (;;) {
			const char *t = skip_space(end), *teq;
			size_t tl = token_len(t);

			if (!tl) {
				end = t;
				break;
			}
			teq = memchr(t, '=', tl);
			if (t != val && teq && is_key(t, (size_t)(teq - t)))
				break;
			end = t + tl;
		}
		if (!meta_set(r, s, (size_t)(eq - s), val, (size_t)(end - val),
			      lineno))
			return false;
		s = skip_space(end);
	}
	return true;
}

static bool meta_line(struct reader *r, const char *s, size_t lineno)
{
	size_t tl;
	const char *eq;

	s = skip_space(s + 1);		/* past '#' */
	tl = token_len(s);
	eq = memchr(s, '=', tl);
	if (tl > 1 && s[tl - 1] == ':' && is_key(s, tl - 1))
		return meta_set(r, s, tl - 1, skip_space(s + tl),
				strlen(skip_space(s + tl)), lineno);
	if (eq && is_key(s, (size_t)(eq - s)))
		return meta_pairs(r, s, lineno);
	if (is_known_key(s, tl) && *skip_space(s + tl))
		return meta_set(r, s, tl, skip_space(s + tl),
				strlen(skip_space(s + tl)), lineno);
	/* Anything else is a comment. */
	return true;
}

/* `# kprof folded end lines=N samples=M`: the counts the kernel sent,
 * so a file that lost a line (a lost datagram) is refused. */
static bool end_line(struct reader *r, const char *s, size_t lineno,
		     uint64_t lines, uint64_t samples)
{
	uint64_t want_lines = 0, want_samples = 0;
	unsigned have = 0;

	while (*(s = skip_space(s))) {
		size_t tl = token_len(s);
		const char *eq = memchr(s, '=', tl);

		if (eq && (size_t)(eq - s) == 5 && memcmp(s, "lines", 5) == 0 &&
		    parse_u64(eq + 1, tl - 6, COUNT_MAX, &want_lines))
			have |= 1;
		else if (eq && (size_t)(eq - s) == 7 && memcmp(s, "samples", 7) == 0 &&
			 parse_u64(eq + 1, tl - 8, COUNT_MAX, &want_samples))
			have |= 2;
		else
			return rd_fail(r, "%s:%zu: malformed end line: want '# kprof folded end lines=N samples=M' (got '%s')",
			      r->p->path, lineno, excerpt(s, strlen(s)));
		s += tl;
	}
	if (have != 3)
		return rd_fail(r, "%s:%zu: end line must carry lines=N samples=M",
		      r->p->path, lineno);
	/* Fractional counts: the sum is in the profile's finer unit. */
	for (unsigned d = 0; d < r->p->decimals; d++)
		want_samples = want_samples > COUNT_MAX / 10 ? UINT64_MAX
							     : want_samples * 10;
	if (want_lines != lines || want_samples != samples)
		return rd_fail(r, "%s:%zu: end line says lines=%llu samples=%llu but the block holds lines=%llu samples=%llu (a lost line?)",
		      r->p->path, lineno, (unsigned long long)want_lines,
		      (unsigned long long)want_samples, (unsigned long long)lines,
		      (unsigned long long)samples);
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

static const uint64_t pow10[DECIMALS_MAX + 1] = {
	1, 10, 100, 1000, 10000, 100000, 1000000,
};

/* A count as flamegraph.pl takes one: digits, optionally a '.' and
 * more digits ("3", "2.5", "3.").  *v gets it in units of 10^-*dec
 * (decimals past DECIMALS_MAX are dropped).  Returns NULL or what is
 * wrong with it. */
static const char *parse_count(const char *s, size_t len, uint64_t *v,
			       unsigned *dec)
{
	const char *dot = memchr(s, '.', len);
	size_t ilen = dot ? (size_t)(dot - s) : len;
	size_t flen = dot ? len - ilen - 1 : 0;
	uint64_t x = 0;

	if (!ilen)
		return "is not a number (want digits, e.g. 3 or 2.5)";
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]) && s + i != dot)
			return "is not a number (want digits, e.g. 3 or 2.5)";
	*dec = flen < DECIMALS_MAX ? (unsigned)flen : DECIMALS_MAX;
	for (size_t i = 0; i < ilen + *dec; i++) {
		unsigned d = (unsigned)((i < ilen ? s[i] : s[i + 1]) - '0');

		if (x > (COUNT_MAX - d) / 10)
			return "is too large (the most is 9223372036854775807)";
		x = x * 10 + d;
	}
	*v = x;
	return NULL;
}

/* Counts so far are in units of 10^-decimals; a count with more
 * decimals moves every count to its finer unit. */
static bool rescale(struct reader *r, unsigned dec, size_t lineno)
{
	struct profile *p = r->p;
	uint64_t k = pow10[dec - p->decimals];

	if (p->total > COUNT_MAX / k)
		return rd_fail(r, "%s:%zu: the counts add up past 9223372036854775807 (in units of this line's decimals)",
			       p->path, lineno);
	for (size_t i = 0; i < p->nstacks; i++)
		p->stacks[i].count *= k;
	p->total *= k;
	p->decimals = dec;
	return true;
}

/* The count at the end of line @l: after the last blank (space or tab,
 * as flamegraph.pl and speedscope write it), in the profile's unit. */
static bool line_count(struct reader *r, const struct line *l, size_t lineno,
		       size_t *stack_len, uint64_t *count)
{
	const char *s = l->text, *why;
	size_t end = l->len, start;
	unsigned dec;

	while (end && isspace((unsigned char)s[end - 1]))
		end--;
	start = end;
	while (start && !isspace((unsigned char)s[start - 1]))
		start--;
	if (!start || is_blank(s, start))
		return rd_fail(r, "%s:%zu: malformed folded line: want 'frame;frame;... COUNT' (got '%s')",
		      r->p->path, lineno, excerpt(s, l->len));
	why = parse_count(s + start, end - start, count, &dec);
	if (why)
		return rd_fail(r, "%s:%zu: malformed folded line: the count '%s' %s",
			       r->p->path, lineno,
			       excerpt(s + start, end - start), why);
	if (dec > r->p->decimals && !rescale(r, dec, lineno))
		return false;
	if (*count > COUNT_MAX / pow10[r->p->decimals - dec])
		return rd_fail(r, "%s:%zu: the count is too large in units of 10^-%u (an earlier line's decimals)",
			       r->p->path, lineno, r->p->decimals);
	*count *= pow10[r->p->decimals - dec];
	*stack_len = start;
	return true;
}

/* A frame of the address view after the task's: an address, or what
 * the kernel prints where it has none. */
static bool is_addr_frame(const char *s, size_t len)
{
	if (len > 2 && len <= 18 && s[0] == '0' && s[1] == 'x')
		return is_hex(s + 2, len - 2);
	return (len == 6 && memcmp(s, "[host]", 6) == 0) ||
	       (len == 11 && memcmp(s, "[truncated]", 11) == 0);
}

/* The last blank-separated token of @s[0, @end): [*start, *stop). */
static void last_token(const char *s, size_t end, size_t *start, size_t *stop)
{
	while (end && isspace((unsigned char)s[end - 1]))
		end--;
	*stop = end;
	while (end && !isspace((unsigned char)s[end - 1]))
		end--;
	*start = end;
}

/* With `# weight=ns`: the weight that ends line @l, into *@weight, and
 * @l without it into *@rest.  A count must come before it, and a stack
 * before that. */
static bool line_weight(struct reader *r, const struct line *l, size_t lineno,
			struct line *rest, uint64_t *weight)
{
	size_t ws, we, cs, ce;

	*rest = *l;
	*weight = 0;
	if (!r->p->meta.weight_ns)
		return true;
	last_token(l->text, l->len, &ws, &we);
	last_token(l->text, ws, &cs, &ce);
	if (!cs || cs == ce || strspn(l->text + cs, "0123456789.") != ce - cs ||
	    !parse_u64(l->text + ws, we - ws, COUNT_MAX, weight))
		return rd_fail(r, "%s:%zu: malformed address line: want 'frame;frame;... COUNT WEIGHT' with # weight=ns (got '%s')",
			       r->p->path, lineno, excerpt(l->text, l->len));
	rest->len = ws;
	return true;
}

/* Frame @i of @n of an address view line: the task's, an address, or
 * (a line of one frame) the chains beyond the kernel's table. */
static bool addr_frame_ok(const char *s, size_t len, size_t i, bool last)
{
	if (i == 0)
		return !last || (len == 5 && memcmp(s, "other", 5) == 0);
	return is_addr_frame(s, len);
}

/* The most CPUs a `cpuN` root frame may name. */
#define CPU_MAX 1000000ull

/* With `# root=cpu`: the `cpuN;` that starts line @l (stack up to
 * @stack_len), N into *@cpu; *@start is where the task's frame begins.
 * Without it the line has no CPU (-1). */
static bool line_cpu(struct reader *r, const struct line *l, size_t lineno,
		     size_t stack_len, long *cpu, size_t *start)
{
	const char *semi = memchr(l->text, ';', stack_len);
	uint64_t n;

	*cpu = -1;
	*start = 0;
	if (!r->p->meta.root_cpu)
		return true;
	if (!semi || semi - l->text < 4 || memcmp(l->text, "cpu", 3) ||
	    !parse_u64(l->text + 3, (size_t)(semi - l->text) - 3, CPU_MAX, &n))
		return rd_fail(r, "%s:%zu: malformed line: with # root=cpu a line starts with its cpu, cpuN;, then the task (got '%s')",
			       r->p->path, lineno, excerpt(l->text, l->len));
	*cpu = (long)n;
	*start = (size_t)(semi - l->text) + 1;
	return true;
}

/* One `frame;frame;... COUNT` line; *count gets its count. */
static bool data_line(struct reader *r, const struct line *whole,
		      size_t lineno, uint64_t *count_out)
{
	const char *s = whole->text;
	size_t stack_len = 0, n = 0, first;
	uint64_t count = 0, weight = 0;
	struct line body, *l = &body;
	long cpu;

	if (!r->first_line)
		r->first_line = lineno;
	if (!line_weight(r, whole, lineno, &body, &weight) ||
	    !line_count(r, l, lineno, &stack_len, &count))
		return false;
	while (stack_len && isspace((unsigned char)s[stack_len - 1]))
		stack_len--;
	if (!line_cpu(r, l, lineno, stack_len, &cpu, &first))
		return false;
	for (size_t start = first; start <= stack_len;) {
		const char *semi = memchr(s + start, ';', stack_len - start);
		size_t end = semi ? (size_t)(semi - s) : stack_len;

		if (end == start)
			return rd_fail(r, "%s:%zu: malformed folded line: empty frame name (got '%s')",
			      r->p->path, lineno, excerpt(s, l->len));
		if (r->p->meta.addr &&
		    !addr_frame_ok(s + start, end - start, n, end == stack_len))
			return rd_fail(r, "%s:%zu: malformed address line: frame '%s' is not an address (want 0x..., [host] or [truncated] after the task)",
				       r->p->path, lineno,
				       excerpt(s + start, end - start));
		if (n == r->cap_frames) {
			r->cap_frames = r->cap_frames ? r->cap_frames * 2 : 64;
			r->frames = xrealloc(r->frames,
					     r->cap_frames * sizeof *r->frames);
		}
		r->frames[n] = n == 0 ? root_name(r, s + start, end - start)
				      : names_intern(r->p->names, s + start,
						     end - start);
		n++;
		start = end + 1;
	}
	if (weight > COUNT_MAX - r->p->total_weight)
		return rd_fail(r, "%s:%zu: the weights add up past 9223372036854775807 ns",
			       r->p->path, lineno);
	r->p->total_weight += weight;
	if (count)
		stack_add(r, n, cpu, count, weight);
	*count_out = count;
	return true;
}

static bool is_begin(const struct line *l)
{
	return strcmp(l->text, FOLDED_BEGIN_LINE) == 0;
}

static const char *end_args(const struct line *l)
{
	static const char end[] = FOLDED_END_WORDS;

	if (strncmp(l->text, end, sizeof end - 1) == 0 &&
	    (l->text[sizeof end - 1] == '\0' || l->text[sizeof end - 1] == ' '))
		return l->text + sizeof end - 1;
	return NULL;
}

/* Line @lineno of the file: a data line, a header, the block's end. */
static bool folded_line(struct reader *r, const struct line *l, size_t lineno,
			bool *block, bool *ended, size_t begin, uint64_t *ndata)
{
	struct profile *p = r->p;
	const char *path = p->path;
	const char *args;
	uint64_t count = 0;

	if (l->has_nul)
		return rd_fail(r, "%s:%zu: a NUL byte in the line", path, lineno);
	if (*ended) {
		if (is_begin(l))
			return rd_fail(r, "%s:%zu: a second '# kprof folded begin': one profile per file",
				       path, lineno);
		return true;
	}
	if (is_blank(l->text, l->len))
		return true;
	if (*block && is_begin(l))
		return rd_fail(r, "%s:%zu: '# kprof folded begin' again before the end line of line %zu's block",
			       path, lineno, begin + 1);
	if ((args = end_args(l))) {
		if (!*block)
			return rd_fail(r, "%s:%zu: '# kprof folded end' without a begin line",
				       path, lineno);
		*ended = true;
		return end_line(r, args, lineno, *ndata, p->total);
	}
	if (l->text[0] == '#')
		return meta_line(r, l->text, lineno);
	if (!data_line(r, l, lineno, &count))
		return false;
	if (count > COUNT_MAX - p->total)
		return rd_fail(r, "%s:%zu: the counts add up past 9223372036854775807",
			       path, lineno);
	p->total += count;
	(*ndata)++;
	return true;
}

/* The reader proper: @f read to its end; false with the error in @err. */
static bool folded_read(struct reader *r, const char *path, FILE *f)
{
	struct profile *p = r->p;
	struct line *lines = NULL;
	size_t nlines = 0, first = 0, begin = 0;
	uint64_t ndata = 0;
	bool block = false, ended = false, ok;

	ok = read_lines(r, path, f, &lines, &nlines);
	for (size_t i = 0; ok && i < nlines && !block; i++) {
		if (is_begin(&lines[i])) {
			block = true;
			begin = i;
			first = i + 1;
		}
	}
	for (size_t i = first; ok && i < nlines; i++)
		ok = folded_line(r, &lines[i], i + 1, &block, &ended, begin,
				 &ndata);
	if (ok && block && !ended)
		ok = rd_fail(r, "%s: no '# kprof folded end' line after the block begun at line %zu (truncated?)",
			     path, begin + 1);
	if (ok && !p->total)
		ok = rd_fail(r, "%s: no samples in the profile", path);
	for (size_t i = 0; i < nlines; i++)
		free(lines[i].text);
	free(lines);
	free(r->slot);
	free(r->frames);
	r->slot = NULL;
	r->frames = NULL;
	return ok;
}

bool folded_parse(struct profile *p, const char *path, FILE *f,
		  struct names *names, bool strip_pid, char *err, size_t errlen)
{
	struct reader r = {
		.p = p, .strip_pid = strip_pid, .err = err, .errlen = errlen,
	};

	memset(p, 0, sizeof *p);
	p->path = path;
	p->names = names;
	return folded_read(&r, path, f);
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
