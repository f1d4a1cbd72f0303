/* SPDX-License-Identifier: BSD-2-Clause */
/* One interval as a kernel sent it, read as input nobody vouches for
 * (doc/collect.md, "A hostile target"): its size against what the
 * session can produce, its numbers from its own header only, then its
 * folded block through kprof-report's reader under caps, and its pprof.
 * Nothing here exits the process; every refusal is a value with a
 * reason.  tests/fuzz/fuzz_collect.c drives these functions. */
#define _GNU_SOURCE

#include "collect.h"
#include "report.h"
#include "lib/folded_frame.h"
#include "hal/cpu.h"
#include "prof/folded.h"
#include "prof/session.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A reply's bytes besides its data lines: the header (source, build-id,
 * a dozen keys), the end line and the prompt after it. */
#define INTERVAL_HEADER_BYTES (64u << 10)
/* Distinct frame names one interval may hold: a kernel has a few
 * thousand functions. */
#define INTERVAL_NAMES_MAX (1u << 16)
/* The count and the blanks a data line has besides its frames. */
#define INTERVAL_LINE_EXTRA 48u

/* The longest a kernel interval runs between two of our rotates: the
 * back-off after silence waits up to 16 intervals (target.c), and a
 * round may start a second late. */
static uint64_t interval_span_ms(int64_t interval_ns)
{
	return (uint64_t)(17 * interval_ns / 1000000) + 1000;
}

void interval_caps(struct interval_caps *c, unsigned hz, unsigned depth,
		   int64_t interval_ns, uint64_t reply_max)
{
	/* The kernel's own defaults where the run leaves them. */
	uint64_t rate = hz ? hz : PROF_HZ_MAX;
	uint64_t frames = (depth ? depth : PROF_DEPTH_DEFAULT) + 2;	/* task, [truncated] */
	uint64_t samples = rate * HAL_MAX_CPUS * interval_span_ms(interval_ns) / 1000;
	/* One line per chain at most, the interval's `other` besides. */
	uint64_t lines = samples < PROF_INTERVAL_CHAINS + 1 ? samples : PROF_INTERVAL_CHAINS + 1;
	uint64_t line_bytes = frames * (FOLD_NAME_MAX + 1) + INTERVAL_LINE_EXTRA;

	memset(c, 0, sizeof(*c));
	c->lim.lines = lines;
	c->lim.frames = (size_t)frames;
	c->lim.names = INTERVAL_NAMES_MAX;
	/* An interval with no tick in it is one all the same, not a loss. */
	c->lim.flags = FOLDED_READ_KERNEL | FOLDED_READ_WEIGHED | FOLDED_READ_EMPTY;
	c->reply_max = reply_max ? reply_max : INTERVAL_HEADER_BYTES + lines * line_bytes;
}

/* The value of header line "# @key=VALUE" at @line (@n bytes): true
 * with it in @v when the line is that key's; a value past INT64_MAX
 * (a time that does not fit the host's int64 ns) or not a number is
 * -1 in *@bad. */
static bool header_value(const char *line, size_t n, const char *key, uint64_t *v,
			 int *bad)
{
	size_t k = strlen(key);
	uint64_t x = 0;

	if (n < k + 3 || memcmp(line, "# ", 2) || memcmp(line + 2, key, k) || line[2 + k] != '=')
		return false;
	if (n == k + 3)
		*bad = -1;
	for (size_t i = k + 3; i < n && !*bad; i++) {
		if (line[i] < '0' || line[i] > '9' ||
		    x > ((uint64_t)INT64_MAX - (uint64_t)(line[i] - '0')) / 10)
			*bad = -1;
		else
			x = x * 10 + (uint64_t)(line[i] - '0');
	}
	*v = x;
	return true;
}

/* Header line @line (@n bytes) into @iv; false (said in @err) on a bad
 * or repeated value. */
static bool header_line(const char *line, size_t n, struct interval *iv, unsigned *have,
			char *err, size_t errlen)
{
	static const char *const keys[] = { "seq", "start_ns", "end_ns", "samples", "dropped" };
	uint64_t *slots[] = { &iv->seq, &iv->start_ns, &iv->end_ns, &iv->samples, &iv->dropped };

	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int bad = 0;

		if (!header_value(line, n, keys[i], slots[i], &bad))
			continue;
		if (bad || (*have & (1u << i))) {
			snprintf(err, errlen, "header %s %s", keys[i],
				 bad ? "is not a number 0-9223372036854775807" : "given twice");
			return false;
		}
		*have |= 1u << i;
	}
	return true;
}

bool interval_header(const char *text, size_t len, struct interval *iv, char *err,
		     size_t errlen)
{
	static const char begin[] = FOLDED_BEGIN_LINE "\n";
	static const char end[] = "\n" FOLDED_END_WORDS " ";
	const char *p = text + sizeof(begin) - 1, *stop = text + len, *e;
	unsigned have = 0;

	memset(iv, 0, sizeof(*iv));
	if (len < sizeof(begin) - 1 || memcmp(text, begin, sizeof(begin) - 1)) {
		snprintf(err, errlen, "the reply is not a folded block");
		return false;
	}
	/* The header: the '#' lines after the begin line, up to the first
	 * stack line; a "# seq=" further down is no header's. */
	while (p < stop && *p == '#') {
		const char *nl = memchr(p, '\n', (size_t)(stop - p));
		size_t n = (size_t)((nl ? nl : stop) - p);

		if (n >= sizeof(end) - 2 && memcmp(p, end + 1, sizeof(end) - 2) == 0)
			break;
		if (!header_line(p, n, iv, &have, err, errlen))
			return false;
		p = nl ? nl + 1 : stop;
	}
	if (have != 0x1f) {
		snprintf(err, errlen, "the header lacks seq, start_ns, end_ns, samples or dropped");
		return false;
	}
	if (iv->end_ns < iv->start_ns) {
		snprintf(err, errlen, "end_ns %" PRIu64 " is before start_ns %" PRIu64,
			 iv->end_ns, iv->start_ns);
		return false;
	}
	/* The file is the block, not the prompt after it. */
	e = memmem(text, len, end, sizeof(end) - 1);
	if (!e || !(e = memchr(e + 1, '\n', (size_t)(stop - e - 1)))) {
		snprintf(err, errlen, "the block has no end line");
		return false;
	}
	iv->text = text;
	iv->len = (size_t)(e + 1 - text);
	return true;
}

bool interval_pprof(struct interval *iv, const char *target,
		    const struct folded_limits *lim, struct buf *out, char *err,
		    size_t errlen)
{
	const char *keys[2] = { "target", "build_id" };
	const char *values[2] = { target, NULL };
	struct pprof_stamp stamp = { iv->host_start_ns, keys, values, 1 };
	struct profile p;
	struct names names = { 0 };
	bool ok;

	ok = folded_parse_text(&p, "interval", iv->text, iv->len, &names, lim, err, errlen);
	if (ok && p.total != iv->samples) {
		snprintf(err, errlen, "the header says samples=%" PRIu64 " but the lines hold %" PRIu64,
			 iv->samples, p.total);
		ok = false;
	}
	if (ok) {
		/* The reader checked it: even hex digits, at most 128. */
		memcpy(iv->build_id, p.meta.build_id, sizeof(iv->build_id));
		values[1] = iv->build_id;
		stamp.nlabels = iv->build_id[0] ? 2 : 1;
		ok = report_pprof_stamped(out, &p, 1000, NULL, &stamp, err, errlen);
	}
	folded_free(&p);
	names_free(&names);
	return ok;
}
