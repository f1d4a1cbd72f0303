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
 *   and the flame graph must be made from it.
 *
 * Built with FZ_ADDR_VIEW (fuzz_folded_addr), the input follows the
 * header of an address view (# frames=addr, # weight=ns): the reader of
 * addresses and weights beside the one of names.  Accepted, every frame
 * after the task's is then an address, [host] or [truncated], and the
 * weights add up to the total weight.  Either way a stack has a CPU
 * (0 to 10^6) exactly where the header said `# root=cpu`. */
#define _GNU_SOURCE		/* fmemopen */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define FZ_PATH "fuzz.folded"

#ifdef FZ_ADDR_VIEW
static const char fz_prefix[] = "# kprof folded begin\n# frames=addr\n# weight=ns\n";
#else
static const char fz_prefix[] = "";
#endif

/* A frame the address view may hold after the task's. */
static bool fz_addr_frame(const char *s)
{
	size_t n = strlen(s);

	if (n > 2 && n <= 18 && s[0] == '0' && s[1] == 'x')
		return strspn(s + 2, "0123456789abcdefABCDEF") == n - 2;
	return !strcmp(s, "[host]") || !strcmp(s, "[truncated]");
}

static void fz_check_error(const char *err)
{
	if (strncmp(err, FZ_PATH ":", sizeof FZ_PATH) != 0 ||
	    strchr(err, '\n') || !err[sizeof FZ_PATH])
		abort();
}

static void fz_check_profile(const struct profile *p, const struct names *n)
{
	uint64_t sum = 0, weight = 0;

	if (!p->total)
		abort();
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct stack *s = &p->stacks[i];

		if (!s->nframes || !s->count)
			abort();
		if (p->meta.root_cpu ? s->cpu < 0 || s->cpu > 1000000 : s->cpu != -1)
			abort();
		for (size_t j = 0; j < s->nframes; j++)
			if (s->frames[j] >= n->n)
				abort();
		for (size_t j = 1; p->meta.addr && j < s->nframes; j++)
			if (!fz_addr_frame(n->str[s->frames[j]]))
				abort();
		sum += s->count;
		weight += s->weight;
	}
	/* A line of count 0 adds its weight but no stack. */
	if (weight > p->total_weight || (!p->meta.weight_ns && p->total_weight))
		abort();
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

	char *buf;

	if (size)
		data++, size--;
	buf = malloc(sizeof fz_prefix + size);
	if (!buf)
		abort();
	memcpy(buf, fz_prefix, sizeof fz_prefix - 1);
	memcpy(buf + sizeof fz_prefix - 1, data, size);
	size += sizeof fz_prefix - 1;
	/* fmemopen() refuses an empty buffer: an empty file is /dev/null. */
	f = size ? fmemopen(buf, size, "r") : fopen("/dev/null", "r");
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
	free(buf);
	return 0;
}
