/* SPDX-License-Identifier: BSD-2-Clause */
/* Which stacks a report keeps (--focus, --ignore, --pid, as pprof's
 * -focus and -ignore), and the shapes flamegraph.pl draws (--reverse).
 * Each works on a loaded profile, before any output is made. */
#include "report.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* The pid of a root frame "PID-NAME", or -1. */
static long root_pid(const char *root)
{
	long pid = 0;
	size_t i = 0;

	while (isdigit((unsigned char)root[i]) && pid < 100000000)
		pid = pid * 10 + (root[i++] - '0');
	return i > 0 && root[i] == '-' && root[i + 1] ? pid : -1;
}

static bool any_frame(const struct profile *p, const struct stack *st,
		      const regex_t *re)
{
	for (size_t i = 0; i < st->nframes; i++)
		if (regexec(re, p->names->str[st->frames[i]], 0, NULL, 0) == 0)
			return true;
	return false;
}

static bool keeps(const struct profile *p, const struct stack *st,
		  const struct filter *f)
{
	if (f->pid >= 0 && root_pid(p->names->str[st->frames[0]]) != f->pid)
		return false;
	if (f->focus && !any_frame(p, st, &f->focus_re))
		return false;
	if (f->ignore && any_frame(p, st, &f->ignore_re))
		return false;
	return true;
}

void filter_compile(struct filter *f)
{
	static const char *const opt[2] = { "--focus", "--ignore" };
	const char *src[2] = { f->focus, f->ignore };
	regex_t *re[2] = { &f->focus_re, &f->ignore_re };

	for (int i = 0; i < 2; i++) {
		char why[128];
		int rc;

		if (!src[i])
			continue;
		rc = regcomp(re[i], src[i], REG_EXTENDED | REG_NOSUB);
		if (rc) {
			regerror(rc, re[i], why, sizeof why);
			fatal(EXIT_USAGE, "%s '%s' is not a regular expression: %s",
			      opt[i], src[i], why);
		}
	}
}

void filter_apply(struct profile *p, const struct filter *f)
{
	uint64_t before = p->total;
	size_t kept = 0;
	bool pids = false;
	char a[32], b[32];

	if (!f->focus && !f->ignore && f->pid < 0)
		return;
	p->total = 0;
	p->total_weight = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		struct stack *st = &p->stacks[i];

		pids |= root_pid(p->names->str[st->frames[0]]) >= 0;
		if (!keeps(p, st, f)) {
			free(st->frames);
			continue;
		}
		p->total += st->count;
		p->total_weight += st->weight;
		p->stacks[kept++] = *st;
	}
	p->nstacks = kept;
	if (f->pid >= 0 && !pids)
		fatal(EXIT_INPUT, "%s: --pid %ld: the input names no pids (its root frames are not PID-NAME)",
		      p->path, f->pid);
	if (!p->total)
		fatal(EXIT_INPUT, "%s: no samples left after %s", p->path,
		      f->text);
	p->note = xmalloc(strlen(f->text) + 96);
	sprintf(p->note, "%s: %s of %s samples kept", f->text,
		count_text(p, p->total, a, sizeof a),
		count_text(p, before, b, sizeof b));
}

void profile_strip_pids(struct profile *p)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		const char *root = p->names->str[p->stacks[i].frames[0]];
		const char *dash = strchr(root, '-');

		if (root_pid(root) >= 0)
			p->stacks[i].frames[0] = names_intern(p->names, dash + 1,
							      strlen(dash + 1));
	}
}

void profile_reverse(struct profile *p)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		size_t *f = p->stacks[i].frames, n = p->stacks[i].nframes;

		for (size_t j = 0; j < n / 2; j++) {
			size_t t = f[j];

			f[j] = f[n - 1 - j];
			f[n - 1 - j] = t;
		}
	}
}
