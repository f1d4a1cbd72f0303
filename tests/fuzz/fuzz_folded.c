/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: kprof-report's folded-stacks reader
 * (tools/report/folded.c), which reads files a user hands the tool, and
 * the outputs that use what its header says.  The first byte chooses
 * strip_pid; the rest is the file, header and body together (the seeds
 * have both).  The reader must end without a crash or a leak, and:
 *
 * - refusing, give one line naming the file (FILE: or FILE:LINE:);
 * - accepting, hold samples whose stacks add up to its total, every
 *   frame a name it interned, no stack empty, every known header value
 *   in its range (hz 1-10^9: pprof divides by it), and the top table
 *   and the flame graph must be made from it. */
#define _GNU_SOURCE		/* fmemopen */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define FZ_PATH "fuzz.folded"

static void fz_check_error(const char *err)
{
	if (strncmp(err, FZ_PATH ":", sizeof FZ_PATH) != 0 ||
	    strchr(err, '\n') || !err[sizeof FZ_PATH])
		abort();
}

static void fz_check_profile(const struct profile *p, const struct names *n)
{
	uint64_t sum = 0;

	if (!p->total)
		abort();
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct stack *s = &p->stacks[i];

		if (!s->nframes || !s->count)
			abort();
		for (size_t j = 0; j < s->nframes; j++)
			if (s->frames[j] >= n->n)
				abort();
		sum += s->count;
	}
	if (sum != p->total || p->total > (uint64_t)INT64_MAX ||
	    p->decimals > 6)
		abort();
	if ((p->meta.have & META_HZ) &&
	    (p->meta.hz < 1 || p->meta.hz > 1000000000))
		abort();
	if ((p->meta.have & META_CPUS) && p->meta.cpus < 1)
		abort();
}

/* The outputs read the header (subtitle, summary) and every count. */
static void fz_render(const struct profile *p)
{
	struct svg_opts o = { .width = 1200, .script = false };
	struct buf b = { 0 };

	report_top(&b, p, 20);
	buf_free(&b);
	report_flamegraph(&b, p, &o);
	if (!b.len)
		abort();
	buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct names names;
	struct profile p;
	char err[512];
	FILE *f;
	bool strip = size && (data[0] & 1);

	if (size)
		data++, size--;
	/* fmemopen() refuses an empty buffer: an empty file is /dev/null. */
	f = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
	if (!f)
		abort();
	memset(&names, 0, sizeof names);
	err[0] = '\0';
	if (folded_parse(&p, FZ_PATH, f, &names, strip, err, sizeof err)) {
		fz_check_profile(&p, &names);
		fz_render(&p);
	} else
		fz_check_error(err);
	folded_free(&p);
	names_free(&names);
	fclose(f);
	return 0;
}
