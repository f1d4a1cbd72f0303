/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: the folded reader (tools/folded_read.c) as both its
 * users drive it -- kprof-report on a file a user hands it
 * (tools/report/folded.c) and the outputs that use what its header
 * says, and kshell -o on a reply (folded_block_find(), the kernel's
 * form).  The first byte chooses strip_pid (bit 0) and the address
 * view's header in front of the rest (bit 1); the rest is the file,
 * header and body together (the seeds have both forms).  The reader
 * must end without a crash or a leak, and kprof-report's must:
 *
 * - refusing, give one line naming the file (FILE: or FILE:LINE:);
 * - accepting, hold samples whose stacks add up to its total, every
 *   frame a name it interned, no stack empty, every known header value
 *   in its range (hz 1-10^9: pprof divides by it), and the top table
 *   and the flame graph must be made from it.
 *
 * With bit 1 the input follows the header of an address view
 * (# frames=addr, # weight=ns): the reader of addresses and weights
 * beside the one of names.  Accepted, every frame after the task's is
 * then an address, [host] or [truncated], and the weights add up to the
 * total weight.  Either way a stack has a CPU (0 to 10^6) exactly where
 * the header said `# root=cpu`.
 *
 * kshell's must refuse in one line naming the reply (reply:), or find
 * a block that runs from its begin line to its end line, and what it
 * would save, kprof-report must read back to the same samples and
 * weight (or refuse as empty when it holds none). */
#define _GNU_SOURCE		/* fmemopen */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "lib/folded_frame.h"

#define FZ_PATH "fuzz.folded"
#define FZ_REPLY "reply"

static const char fz_addr_prefix[] = "# kprof folded begin\n# frames=addr\n# weight=ns\n";

/* A frame the address view may hold after the task's. */
static bool fz_addr_frame(const char *s)
{
	size_t n = strlen(s);

	if (n > 2 && n <= 18 && s[0] == '0' && s[1] == 'x')
		return strspn(s + 2, "0123456789abcdefABCDEF") == n - 2;
	return !strcmp(s, "[host]") || !strcmp(s, "[truncated]");
}

/* One line naming @path: "PATH:..." with something after it. */
static void fz_check_error(const char *err, const char *path)
{
	size_t n = strlen(path);

	if (strncmp(err, path, n) != 0 || err[n] != ':' ||
	    strchr(err, '\n') || !err[n + 1])
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

/* kprof-report reading the block kshell would save, @n bytes at @s. */
static void fz_read_saved(const char *s, size_t n, const struct folded_reader *r)
{
	struct names names = { 0 };
	struct profile p;
	char err[512];
	FILE *f = fmemopen((void *)s, n, "r");
	bool ok;

	if (!f)
		abort();
	ok = folded_parse(&p, FZ_PATH, f, &names, false, err, sizeof err);
	if (r->total ? !ok || p.total != r->total ||
		       p.total_weight != r->total_weight
		     : ok)
		abort();
	folded_free(&p);
	names_free(&names);
	fclose(f);
}

/* kshell -o's reading of the same text as a reply. */
static void fz_kshell(const char *text, size_t size)
{
	struct folded_reader r;
	const char *begin = NULL, *end = NULL;
	char err[512];
	int found;

	folded_reader_init(&r, FZ_REPLY, FOLDED_READ_KERNEL, err, sizeof err);
	found = folded_block_find(&r, text, size, &begin, &end);
	if (found < 0) {
		fz_check_error(err, FZ_REPLY);
	} else if (found > 0) {
		const char *last = end - 1;

		if (begin < text || end > text + size || end <= begin ||
		    strncmp(begin, FOLDED_BEGIN_LINE, sizeof FOLDED_BEGIN_LINE - 1) ||
		    r.decimals)
			abort();
		if (*last == '\n')
			last--;
		while (last > begin && last[-1] != '\n')
			last--;
		if (strncmp(last, FOLDED_END_WORDS, sizeof FOLDED_END_WORDS - 1))
			abort();
		fz_read_saved(begin, (size_t)(end - begin), &r);
	}
	folded_reader_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct names names;
	struct profile p;
	char err[512];
	FILE *f;
	bool strip = size && (data[0] & 1);
	bool addr = size && (data[0] & 2);
	size_t plen = addr ? sizeof fz_addr_prefix - 1 : 0;
	char *buf;

	if (size)
		data++, size--;
	buf = malloc(plen + size + 1);
	if (!buf)
		abort();
	memcpy(buf, fz_addr_prefix, plen);
	memcpy(buf + plen, data, size);
	size += plen;
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
		fz_check_error(err, FZ_PATH);
	folded_free(&p);
	names_free(&names);
	fclose(f);
	fz_kshell(buf, size);
	free(buf);
	return 0;
}
