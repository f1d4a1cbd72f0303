/* SPDX-License-Identifier: BSD-2-Clause */
/* The folded-profile reader (folded_read.h), shared by kprof-report and
 * kshell -o.
 *
 * Header lines start with `#` and give one key each, in any of
 * `# key: value`, `# key=value` or `# key value`; several `key=value`
 * pairs may share a line, and a value runs up to the next `key=`, so
 * `# source=pmu/signal perf cycles hz=1000` is two keys.  Known keys:
 * every one of src/lib/folded_frame.h (lib/folded_write.c writes them);
 * others are ignored.
 *
 * A data line is `frame;frame;... COUNT`, the count after the last blank
 * (space or tab, as flamegraph.pl and speedscope write it), whole or
 * with decimals ("3", "2.5", "3.").  The address view (`# frames=addr`)
 * holds after the task's frame only addresses (`0x...`), `[host]` or
 * `[truncated]`, and with `# weight=ns` a line ends in its count and
 * then its weight.  A view by CPU (`# root=cpu`) starts every line with
 * `cpuN;`, the CPU that took its samples. */
#define _POSIX_C_SOURCE 200809L

#include "folded_read.h"
#include "lib/folded_frame.h"

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts and their sum are at most pprof's int64; a fractional count
 * keeps this many decimals. */
#define COUNT_MAX ((uint64_t)INT64_MAX)
#define DECIMALS_MAX 6
#define HZ_MAX 1000000000ull	/* the period, 10^9 / hz ns, is >= 1 */
#define CPUS_MAX 1000000ull
/* window_ms in nanoseconds (pprof's duration) fits an int64. */
#define WINDOW_MS_MAX ((uint64_t)INT64_MAX / 1000000)
/* The most CPUs a `cpuN` root frame may name. */
#define CPU_MAX 1000000ull

enum { ST_BEFORE, ST_BARE, ST_BLOCK, ST_ENDED, ST_FAILED };

/* Record the error (PATH:LINE: what) and return false: the reader stops
 * at its first error and its caller says it. */
static bool rd_fail(struct folded_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool rd_fail(struct folded_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	r->state = ST_FAILED;
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

static bool is_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return len > 0;
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

/* Whether header key @key (@klen bytes) is @name. */
static bool key_is(const char *key, size_t klen, const char *name)
{
	return klen == strlen(name) && memcmp(key, name, klen) == 0;
}

/* The value of a key that takes one word: @word, else the error. */
static bool word_is(struct folded_reader *r, const char *key, const char *val,
		    size_t vlen, const char *word)
{
	if (key_is(val, vlen, word))
		return true;
	return rd_fail(r, "%s:%zu: header %s must be %s (got '%s')", r->path,
		       r->lineno, key, word, excerpt(val, vlen));
}

/* The keys that take one word, and the flag of fold_meta each sets. */
static const struct one_word_key {
	const char *key, *word;
	size_t flag;
} one_word_keys[] = {
	{ FOLDED_KEY_FRAMES, FOLDED_FRAMES_ADDR, offsetof(struct fold_meta, addr) },
	{ FOLDED_KEY_WEIGHT, FOLDED_WEIGHT_NS, offsetof(struct fold_meta, weight_ns) },
	{ FOLDED_KEY_ROOT, FOLDED_ROOT_CPU, offsetof(struct fold_meta, root_cpu) },
	{ FOLDED_KEY_UNIT, FOLDED_UNIT_US, offsetof(struct fold_meta, unit_us) },
	{ FOLDED_KEY_WALL, "1", offsetof(struct fold_meta, wall) },
};

static const struct one_word_key *find_one_word_key(const char *key, size_t klen)
{
	for (size_t i = 0; i < sizeof one_word_keys / sizeof one_word_keys[0]; i++)
		if (key_is(key, klen, one_word_keys[i].key))
			return &one_word_keys[i];
	return NULL;
}

/* The views' keys: frames=addr, weight=ns, build_id=HEX, root=cpu, unit=us. */
static bool meta_view(struct folded_reader *r, const char *key, size_t klen,
		      const char *val, size_t vlen)
{
	struct fold_meta *m = &r->meta;
	bool shapes = key_is(key, klen, FOLDED_KEY_FRAMES) ||
		      key_is(key, klen, FOLDED_KEY_WEIGHT) ||
		      key_is(key, klen, FOLDED_KEY_ROOT);
	const struct one_word_key *k = find_one_word_key(key, klen);

	/* These say how a stack line reads: lines read before them would
	 * have been read otherwise. */
	if (shapes && r->first_line)
		return rd_fail(r, "%s:%zu: header %.*s must come before the first stack line (line %zu)",
			       r->path, r->lineno, (int)klen, key, r->first_line);
	if (k) {
		if (!word_is(r, k->key, val, vlen, k->word))
			return false;
		*(bool *)((char *)m + k->flag) = true;
	} else if (key_is(key, klen, FOLDED_KEY_BUILD_ID)) {
		if (!is_hex(val, vlen) || vlen % 2 || vlen > BUILD_ID_HEX_MAX)
			return rd_fail(r, "%s:%zu: header build_id must be an even number of hex digits, at most %d (got '%s')",
				       r->path, r->lineno, BUILD_ID_HEX_MAX,
				       excerpt(val, vlen));
		for (size_t i = 0; i < vlen; i++)
			m->build_id[i] = (char)tolower((unsigned char)val[i]);
		m->build_id[vlen] = '\0';
	}
	return true;
}

static bool meta_source(struct folded_reader *r, const char *val, size_t vlen)
{
	char *s = malloc(vlen + 1);

	if (!s)
		return rd_fail(r, "%s:%zu: out of memory", r->path, r->lineno);
	memcpy(s, val, vlen);
	s[vlen] = '\0';
	free(r->meta.source);
	r->meta.source = s;
	r->meta.have |= META_SOURCE;
	return true;
}

/* `CPU:NS CPU:NS ...`, each CPU once and below FOLDED_CPUS_MAX. */
static bool meta_cpu_busy(struct folded_reader *r, const char *val, size_t vlen)
{
	struct fold_meta *m = &r->meta;
	size_t i = 0;

	m->cpu_busy_mask = 0;
	while (i < vlen) {
		size_t a = i, colon, b;
		uint64_t cpu, ns;

		while (i < vlen && val[i] != ':' && val[i] != ' ')
			i++;
		colon = i;
		while (i < vlen && val[i] != ' ')
			i++;
		b = i;
		if (colon >= b || !parse_u64(val + a, colon - a, FOLDED_CPUS_MAX - 1, &cpu) ||
		    !parse_u64(val + colon + 1, b - colon - 1, COUNT_MAX, &ns) ||
		    ((m->cpu_busy_mask >> cpu) & 1))
			return rd_fail(r, "%s:%zu: header " FOLDED_KEY_CPU_BUSY_NS " must be CPU:NS pairs, each CPU 0-%d once (got '%s')",
				       r->path, r->lineno, FOLDED_CPUS_MAX - 1,
				       excerpt(val, vlen));
		m->cpu_busy_mask |= 1u << cpu;
		m->cpu_busy_ns[cpu] = ns;
		while (i < vlen && val[i] == ' ')
			i++;
	}
	m->have |= META_CPU_BUSY;
	return true;
}

/* `pid=N`: a task's id, or -1 (PROF_PID_ALL) */
static bool meta_pid(struct folded_reader *r, const char *val, size_t vlen)
{
	bool neg = vlen && val[0] == '-';
	uint64_t v;

	if (!parse_u64(val + neg, vlen - neg, (uint64_t)INT32_MAX, &v))
		return rd_fail(r, "%s:%zu: header " FOLDED_KEY_PID " must be a whole number %d-%d (got '%s')",
			       r->path, r->lineno, -INT32_MAX, INT32_MAX, excerpt(val, vlen));
	r->meta.pid = neg ? -(int64_t)v : (int64_t)v;
	r->meta.have |= META_PID;
	return true;
}

/* Under FOLDED_READ_ONCE: @key (@bit of have) not seen before. */
static bool meta_once(struct folded_reader *r, const char *key, size_t klen,
		      unsigned bit)
{
	if (!(r->flags & FOLDED_READ_ONCE) || !(r->meta.have & bit))
		return true;
	return rd_fail(r, "%s:%zu: header %.*s given twice", r->path, r->lineno,
		       (int)klen, key);
}

static bool meta_set(struct folded_reader *r, const char *key, size_t klen,
		     const char *val, size_t vlen)
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
		/* Times on the kernel's clock: at most a host's int64 ns. */
		{ FOLDED_KEY_SEQ, META_SEQ, offsetof(struct fold_meta, seq), 0, INT64_MAX },
		{ FOLDED_KEY_START_NS, META_START, offsetof(struct fold_meta, start_ns),
		  0, INT64_MAX },
		{ FOLDED_KEY_END_NS, META_END, offsetof(struct fold_meta, end_ns), 0, INT64_MAX },
		{ FOLDED_KEY_STOP_NS, META_STOP, offsetof(struct fold_meta, stop_ns),
		  0, INT64_MAX },
		{ FOLDED_KEY_TIME_NANOS, META_TIME, offsetof(struct fold_meta, time_nanos),
		  0, INT64_MAX },
		{ FOLDED_KEY_HIDDEN_NS, META_HIDDEN, offsetof(struct fold_meta, hidden_ns),
		  0, INT64_MAX },
		{ FOLDED_KEY_OTHER, META_OTHER, offsetof(struct fold_meta, other), 0, COUNT_MAX },
		{ FOLDED_KEY_DEPTH, META_DEPTH, offsetof(struct fold_meta, depth), 0, COUNT_MAX },
		{ FOLDED_KEY_THROTTLED_HZ, META_THROTTLED,
		  offsetof(struct fold_meta, throttled_hz), 0, HZ_MAX },
	};
	struct fold_meta *m = &r->meta;
	uint64_t v;

	while (vlen && isspace((unsigned char)val[vlen - 1]))
		vlen--;
	if (key_is(key, klen, FOLDED_KEY_SOURCE))
		return meta_once(r, key, klen, META_SOURCE) && meta_source(r, val, vlen);
	if (key_is(key, klen, FOLDED_KEY_PID))
		return meta_once(r, key, klen, META_PID) && meta_pid(r, val, vlen);
	if (key_is(key, klen, FOLDED_KEY_CPU_BUSY_NS))
		return meta_once(r, key, klen, META_CPU_BUSY) && meta_cpu_busy(r, val, vlen);
	if (!meta_view(r, key, klen, val, vlen))
		return false;
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
		if (!key_is(key, klen, nums[i].key))
			continue;
		if (!meta_once(r, key, klen, nums[i].bit))
			return false;
		/* Out of range, a value would be divided by (hz) or
		 * overflow an output's int64: refused, not clamped. */
		if (!parse_u64(val, vlen, nums[i].hi, &v) || v < nums[i].lo)
			return rd_fail(r, "%s:%zu: header %s must be a whole number %llu-%llu (got '%s')",
				       r->path, r->lineno, nums[i].key,
				       (unsigned long long)nums[i].lo,
				       (unsigned long long)nums[i].hi,
				       excerpt(val, vlen));
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
		FOLDED_KEY_ROOT, FOLDED_KEY_UNIT, FOLDED_KEY_WALL, FOLDED_KEY_SEQ,
		FOLDED_KEY_START_NS, FOLDED_KEY_END_NS, FOLDED_KEY_STOP_NS,
		FOLDED_KEY_OTHER, FOLDED_KEY_DEPTH, FOLDED_KEY_PID,
		FOLDED_KEY_THROTTLED_HZ, FOLDED_KEY_CPU_BUSY_NS,
		FOLDED_KEY_TIME_NANOS, FOLDED_KEY_HIDDEN_NS,
	};

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (key_is(s, len, known[i]))
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
static bool meta_pairs(struct folded_reader *r, const char *s)
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
		if (!meta_set(r, s, (size_t)(eq - s), val, (size_t)(end - val)))
			return false;
		s = skip_space(end);
	}
	return true;
}

static bool meta_line(struct folded_reader *r, const char *s)
{
	size_t tl;
	const char *eq;

	s = skip_space(s + 1);		/* past '#' */
	tl = token_len(s);
	eq = memchr(s, '=', tl);
	if (tl > 1 && s[tl - 1] == ':' && is_key(s, tl - 1))
		return meta_set(r, s, tl - 1, skip_space(s + tl),
				strlen(skip_space(s + tl)));
	if (eq && is_key(s, (size_t)(eq - s)))
		return meta_pairs(r, s);
	if (is_known_key(s, tl) && *skip_space(s + tl))
		return meta_set(r, s, tl, skip_space(s + tl),
				strlen(skip_space(s + tl)));
	/* Anything else is a comment. */
	return true;
}

/* `# kprof folded end lines=N samples=M` (@s past its words): the counts
 * the kernel sent, so a block that lost a line (a lost datagram) is
 * refused. */
static bool end_line(struct folded_reader *r, const char *s)
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
			return rd_fail(r, "%s:%zu: malformed end line: want '" FOLDED_END_WORDS " lines=N samples=M' (got '%s')",
				       r->path, r->lineno, excerpt(s, strlen(s)));
		s += tl;
	}
	if (have != 3)
		return rd_fail(r, "%s:%zu: end line must carry lines=N samples=M",
			       r->path, r->lineno);
	/* Fractional counts: the sum is in the block's finer unit. */
	for (unsigned d = 0; d < r->decimals; d++)
		want_samples = want_samples > COUNT_MAX / 10 ? UINT64_MAX
							     : want_samples * 10;
	if (want_lines != r->lines || want_samples != r->total)
		return rd_fail(r, "%s:%zu: end line says lines=%llu samples=%llu but the block holds lines=%llu samples=%llu (a lost line?)",
			       r->path, r->lineno, (unsigned long long)want_lines,
			       (unsigned long long)want_samples,
			       (unsigned long long)r->lines,
			       (unsigned long long)r->total);
	return true;
}

/* ---- data lines ---- */

static const uint64_t pow10[DECIMALS_MAX + 1] = {
	1, 10, 100, 1000, 10000, 100000, 1000000,
};

/* A count as flamegraph.pl takes one: digits, optionally a '.' and
 * more digits ("3", "2.5", "3.").  *v gets it in units of 10^-*dec
 * (decimals past DECIMALS_MAX are dropped).  Returns NULL or what is
 * wrong with it. */
static const char *parse_count(const char *s, size_t len, bool whole,
			       uint64_t *v, unsigned *dec)
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
	if (dot && whole)
		return "is not a whole number (the kernel's counts are)";
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
 * decimals moves the sum, and the caller its counts, to the finer
 * unit. */
static bool rescale(struct folded_reader *r, unsigned dec)
{
	uint64_t k = pow10[dec - r->decimals];

	if (r->total > COUNT_MAX / k)
		return rd_fail(r, "%s:%zu: the counts add up past 9223372036854775807 (in units of this line's decimals)",
			       r->path, r->lineno);
	r->total *= k;
	r->line.rescale *= k;
	r->decimals = dec;
	return true;
}

/* The count at the end of line @s[0, @len), in the block's unit; the
 * stack before it ends at *@stack_len. */
static bool line_count(struct folded_reader *r, const char *s, size_t len,
		       size_t *stack_len, uint64_t *count)
{
	size_t end = len, start;
	const char *why;
	unsigned dec;

	while (end && isspace((unsigned char)s[end - 1]))
		end--;
	start = end;
	while (start && !isspace((unsigned char)s[start - 1]))
		start--;
	if (!start || is_blank(s, start))
		return rd_fail(r, "%s:%zu: malformed folded line: want 'frame;frame;... COUNT' (got '%s')",
			       r->path, r->lineno, excerpt(s, len));
	why = parse_count(s + start, end - start,
			  r->flags & FOLDED_READ_KERNEL, count, &dec);
	if (why)
		return rd_fail(r, "%s:%zu: malformed folded line: the count '%s' %s",
			       r->path, r->lineno, excerpt(s + start, end - start),
			       why);
	if (dec > r->decimals && !rescale(r, dec))
		return false;
	if (*count > COUNT_MAX / pow10[r->decimals - dec])
		return rd_fail(r, "%s:%zu: the count is too large in units of 10^-%u (an earlier line's decimals)",
			       r->path, r->lineno, r->decimals);
	*count *= pow10[r->decimals - dec];
	*stack_len = start;
	return true;
}

/* A frame of the address view after the task's: an address, or what
 * the kernel prints where it has none. */
static bool is_addr_frame(const char *s, size_t len)
{
	if (len > 2 && len <= 18 && s[0] == '0' && s[1] == 'x')
		return is_hex(s + 2, len - 2);
	return key_is(s, len, "[host]") || key_is(s, len, "[truncated]");
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

/* With `# weight=ns`: the weight that ends line @s, into *@weight, and
 * the line's length without it into *@len.  A count must come before
 * it, and a stack before that. */
static bool line_weight(struct folded_reader *r, const char *s, size_t *len,
			uint64_t *weight)
{
	size_t ws, we, cs, ce;

	*weight = 0;
	if (!r->meta.weight_ns)
		return true;
	last_token(s, *len, &ws, &we);
	last_token(s, ws, &cs, &ce);
	if (!cs || cs == ce || strspn(s + cs, "0123456789.") != ce - cs ||
	    !parse_u64(s + ws, we - ws, COUNT_MAX, weight))
		return rd_fail(r, "%s:%zu: malformed address line: want 'frame;frame;... COUNT WEIGHT' with # weight=ns (got '%s')",
			       r->path, r->lineno, excerpt(s, *len));
	*len = ws;
	return true;
}

/* With `# root=cpu`: the `cpuN;` that starts line @s (stack up to
 * @stack_len), N into the line's cpu; *@start is where the task's
 * frame begins.  Without it the line has no CPU (-1). */
static bool line_cpu(struct folded_reader *r, const char *s, size_t len,
		     size_t stack_len, size_t *start)
{
	const char *semi = memchr(s, ';', stack_len);
	uint64_t n;

	r->line.cpu = -1;
	*start = 0;
	if (!r->meta.root_cpu)
		return true;
	if (!semi || semi - s < 4 || memcmp(s, "cpu", 3) ||
	    !parse_u64(s + 3, (size_t)(semi - s) - 3, CPU_MAX, &n))
		return rd_fail(r, "%s:%zu: malformed line: with # root=cpu a line starts with its cpu, cpuN;, then the task (got '%s')",
			       r->path, r->lineno, excerpt(s, len));
	r->line.cpu = (long)n;
	*start = (size_t)(semi - s) + 1;
	return true;
}

/* Frame @i of an address view line (@last: it ends the line): the
 * task's, an address, or (a line of one frame) the chains beyond the
 * kernel's table. */
static bool addr_frame_ok(const struct folded_reader *r, const char *s,
			  size_t len, size_t i, bool last)
{
	if (i == 0)
		return !last || key_is(s, len, "other");
	/* A wall view's state, under the task. */
	if (i == 1 && r->meta.unit_us)
		return key_is(s, len, "[cpu]") || key_is(s, len, "[runnable]") ||
		       key_is(s, len, "[blocked]");
	return is_addr_frame(s, len);
}

/* Frame @s[0, @len), the line's @i-th: what its view allows. */
static bool frame_ok(struct folded_reader *r, const char *s, size_t len,
		     size_t i, bool last)
{
	if (!len)
		return rd_fail(r, "%s:%zu: malformed folded line: empty frame name (got '%s')",
			       r->path, r->lineno, excerpt(r->text, r->body_len));
	if (r->meta.addr && !addr_frame_ok(r, s, len, i, last))
		return rd_fail(r, "%s:%zu: malformed address line: frame '%s' is not an address (want 0x..., [host] or [truncated] after the task, and a wall view's state under it)",
			       r->path, r->lineno, excerpt(s, len));
	if ((r->flags & FOLDED_READ_KERNEL) &&
	    (memchr(s, ' ', len) || memchr(s, '\t', len)))
		return rd_fail(r, "%s:%zu: malformed folded line: frame '%s' holds a blank (the kernel's frames have none)",
			       r->path, r->lineno, excerpt(s, len));
	return true;
}

static bool frames_push(struct folded_reader *r, const char *s, size_t len)
{
	struct folded_line *l = &r->line;

	if (l->nframes == r->frames_cap) {
		size_t cap = r->frames_cap ? r->frames_cap * 2 : 64;
		struct folded_span *f = realloc(l->frames, cap * sizeof *f);

		if (!f)
			return rd_fail(r, "%s:%zu: out of memory", r->path, r->lineno);
		l->frames = f;
		r->frames_cap = cap;
	}
	if (r->max_frames && l->nframes == r->max_frames)
		return rd_fail(r, "%s:%zu: a line of more than %zu frames", r->path,
			       r->lineno, r->max_frames);
	l->frames[l->nframes].s = s;
	l->frames[l->nframes].len = len;
	l->nframes++;
	return true;
}

/* The stack @s[@first, @stack_len), cut at each ';'. */
static bool line_frames(struct folded_reader *r, const char *s, size_t first,
			size_t stack_len)
{
	r->line.nframes = 0;
	for (size_t start = first; start <= stack_len;) {
		const char *semi = memchr(s + start, ';', stack_len - start);
		size_t end = semi ? (size_t)(semi - s) : stack_len;

		if (!frame_ok(r, s + start, end - start, r->line.nframes,
			      end == stack_len) ||
		    !frames_push(r, s + start, end - start))
			return false;
		start = end + 1;
	}
	return true;
}

/* FOLDED_READ_WEIGHED: the header says what the block's period can
 * weigh; the most samples it may hold, into r->weigh_max. */
static bool weigh_start(struct folded_reader *r)
{
	const struct fold_meta *m = &r->meta;
	unsigned __int128 most;
	const unsigned need = META_HZ | META_CPUS | META_WINDOW;

	if ((m->have & need) != need)
		return rd_fail(r, "%s:%zu: the header must give hz, cpus and window_ms before the first stack line",
			       r->path, r->lineno);
	most = (unsigned __int128)m->hz * m->cpus * (m->window_ms + 1000) / 1000 *
	       FOLDED_WEIGH_SLACK;
	r->weigh_max = most > COUNT_MAX ? COUNT_MAX : (uint64_t)most;
	return true;
}

/* The sums so far against the caps of a reader of untrusted input. */
static bool data_capped(struct folded_reader *r)
{
	if (r->max_lines && r->lines > r->max_lines)
		return rd_fail(r, "%s:%zu: more than %llu stack lines", r->path, r->lineno,
			       (unsigned long long)r->max_lines);
	if ((r->flags & FOLDED_READ_WEIGHED) && r->total > (unsigned __int128)r->weigh_max * pow10[r->decimals])
		return rd_fail(r, "%s:%zu: the counts add up to %llu samples, more than %llu cpus at %llu Hz can take in %llu ms",
			       r->path, r->lineno, (unsigned long long)r->total,
			       (unsigned long long)r->meta.cpus,
			       (unsigned long long)r->meta.hz,
			       (unsigned long long)r->meta.window_ms);
	return true;
}

/* One `frame;frame;... COUNT` line into r->line, added to the sums. */
static bool data_line(struct folded_reader *r, const char *s, size_t len)
{
	struct folded_line *l = &r->line;
	size_t stack_len = 0, first;

	if (!r->first_line) {
		r->first_line = r->lineno;
		if ((r->flags & FOLDED_READ_WEIGHED) && !weigh_start(r))
			return false;
	}
	l->rescale = 1;
	if (!line_weight(r, s, &len, &l->weight) ||
	    !line_count(r, s, len, &stack_len, &l->count))
		return false;
	r->body_len = len;
	while (stack_len && isspace((unsigned char)s[stack_len - 1]))
		stack_len--;
	if (!line_cpu(r, s, len, stack_len, &first) ||
	    !line_frames(r, s, first, stack_len))
		return false;
	if (l->weight > COUNT_MAX - r->total_weight)
		return rd_fail(r, "%s:%zu: the weights add up past 9223372036854775807 ns",
			       r->path, r->lineno);
	if (l->count > COUNT_MAX - r->total)
		return rd_fail(r, "%s:%zu: the counts add up past 9223372036854775807",
			       r->path, r->lineno);
	r->total_weight += l->weight;
	r->total += l->count;
	r->lines++;
	return data_capped(r);
}

/* ---- framing ---- */

static bool is_begin(const char *s)
{
	return strcmp(s, FOLDED_BEGIN_LINE) == 0;
}

/* The end line's arguments ("" or " lines=..."), or NULL: not one. */
static const char *end_args(const char *s)
{
	static const char end[] = FOLDED_END_WORDS;

	if (strncmp(s, end, sizeof end - 1) == 0 &&
	    (s[sizeof end - 1] == '\0' || s[sizeof end - 1] == ' '))
		return s + sizeof end - 1;
	return NULL;
}

/* The line, NUL-terminated, into r->text; false: no memory. */
static bool line_copy(struct folded_reader *r, const char *text, size_t len)
{
	if (len && text[len - 1] == '\r')
		len--;
	if (len + 1 > r->text_cap) {
		size_t cap = len + 1 > 2 * r->text_cap ? len + 1 : 2 * r->text_cap;
		char *t = realloc(r->text, cap);

		if (!t)
			return rd_fail(r, "%s:%zu: out of memory", r->path, r->lineno);
		r->text = t;
		r->text_cap = cap;
	}
	memcpy(r->text, text, len);
	r->text[len] = '\0';
	r->text_len = len;
	return true;
}

/* @k, or FOLDED_ERROR when the step that read the line failed. */
static enum folded_kind kind(bool ok, enum folded_kind k)
{
	return ok ? k : FOLDED_ERROR;
}

/* A line before the block's begin line (not FOLDED_READ_BARE). */
static enum folded_kind line_before(struct folded_reader *r, const char *s)
{
	if (is_begin(s)) {
		r->state = ST_BLOCK;
		r->begin_line = r->lineno;
		return FOLDED_BEGIN;
	}
	if (end_args(s))
		return kind(rd_fail(r, "%s:%zu: '" FOLDED_END_WORDS "' before any '" FOLDED_BEGIN_LINE "' (its begin line was lost?)",
				    r->path, r->lineno), FOLDED_ERROR);
	return FOLDED_SKIP;
}

void folded_reader_init(struct folded_reader *r, const char *path,
			unsigned flags, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	r->flags = flags;
	r->err = err;
	r->errlen = errlen;
	r->line.cpu = -1;
	r->line.rescale = 1;
	r->state = flags & FOLDED_READ_BARE ? ST_BARE : ST_BEFORE;
}

enum folded_kind folded_reader_line(struct folded_reader *r, const char *text,
				    size_t len)
{
	const char *s, *args;

	if (r->state == ST_FAILED)
		return FOLDED_ERROR;
	r->lineno++;
	if (!line_copy(r, text, len))
		return FOLDED_ERROR;
	s = r->text;
	if (r->state == ST_BEFORE)
		return line_before(r, s);
	if (strlen(s) != r->text_len)
		return kind(rd_fail(r, "%s:%zu: a NUL byte in the line", r->path,
				    r->lineno), FOLDED_ERROR);
	if (r->state == ST_ENDED) {
		if (is_begin(s))
			return kind(rd_fail(r, "%s:%zu: a second '" FOLDED_BEGIN_LINE "': one profile per file",
					    r->path, r->lineno), FOLDED_ERROR);
		return FOLDED_SKIP;
	}
	if (is_blank(s, r->text_len))
		return FOLDED_SKIP;
	if (r->state == ST_BLOCK && is_begin(s))
		return kind(rd_fail(r, "%s:%zu: '" FOLDED_BEGIN_LINE "' again before the end line of line %zu's block",
				    r->path, r->lineno, r->begin_line),
			    FOLDED_ERROR);
	if ((args = end_args(s))) {
		if (r->state == ST_BARE)
			return kind(rd_fail(r, "%s:%zu: '" FOLDED_END_WORDS "' without a begin line",
					    r->path, r->lineno), FOLDED_ERROR);
		r->state = ST_ENDED;
		return kind(end_line(r, args), FOLDED_END);
	}
	if (s[0] == '#')
		return kind(meta_line(r, s), FOLDED_SKIP);
	return kind(data_line(r, s, r->text_len), FOLDED_DATA);
}

bool folded_reader_finish(struct folded_reader *r)
{
	if (r->state == ST_FAILED)
		return false;
	if (r->state == ST_BLOCK)
		return rd_fail(r, "%s: no '" FOLDED_END_WORDS "' line after the block begun at line %zu (truncated?)",
			       r->path, r->begin_line);
	return true;
}

bool folded_reader_begun(const struct folded_reader *r)
{
	return r->begin_line != 0;
}

void folded_reader_free(struct folded_reader *r)
{
	free(r->text);
	free(r->line.frames);
	free(r->meta.source);
	r->text = NULL;
	r->line.frames = NULL;
	r->meta.source = NULL;
	r->text_cap = r->frames_cap = 0;
}

int folded_block_find(struct folded_reader *r, const char *text, size_t size,
		      const char **begin, const char **end)
{
	const char *p = text, *stop = text + size;

	while (p < stop) {
		const char *nl = memchr(p, '\n', (size_t)(stop - p));
		const char *next = nl ? nl + 1 : stop;

		switch (folded_reader_line(r, p, (size_t)((nl ? nl : stop) - p))) {
		case FOLDED_ERROR:
			return -1;
		case FOLDED_BEGIN:
			*begin = p;
			break;
		case FOLDED_END:
			*end = next;
			return 1;
		default:
			break;
		}
		p = next;
	}
	if (!folded_reader_begun(r))
		return 0;
	return folded_reader_finish(r) ? 0 : -1;
}
