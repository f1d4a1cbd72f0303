/* SPDX-License-Identifier: BSD-2-Clause */
/* kprof-report: the command line.  Every input is read and checked
 * before any output is written (outfile.c), so bad input leaves no file
 * behind.  Exit 0 on success, 1 on bad input or a failed write (and an
 * unknown subcommand), 2 on a bad option or argument count. */
#include "report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KPROF_VERSION
#define KPROF_VERSION "unknown"
#endif

#define TOP_DEFAULT 20
#define WIDTH_DEFAULT 1200
#define HZ_DEFAULT 100	/* the tick's rate, when the input names none */

static const char usage[] =
"Usage: kprof-report pprof IN.folded -o OUT.pb.gz [--hz N]\n"
"       kprof-report flamegraph IN.folded -o OUT.svg [SVG-OPTION...]\n"
"       kprof-report diff BEFORE.folded AFTER.folded -o OUT.svg [SVG-OPTION...]\n"
"       kprof-report diff BEFORE.folded AFTER.folded --text [-n N] [-o OUT]\n"
"       kprof-report top IN.folded [-n N] [-o OUT]\n"
"       kprof-report --help | --version\n"
"\n"
"Turns folded stacks (kprof's `profile ... folded` block, or bare\n"
"`frame;frame;... COUNT` lines, root first) into:\n"
"  pprof       gzip'd profile.proto, for go tool pprof, Pyroscope, Parca\n"
"  flamegraph  a self-contained SVG flame graph (click to zoom, Search)\n"
"  diff        a differential flame graph: widths from AFTER, red where a\n"
"              frame's share grew, blue where it shrank, white within 0.1\n"
"              point; --text lists each function's change of share instead\n"
"  top         a flat table of functions by self and total samples\n"
"\n"
"Options:\n"
"  -o FILE       where the output goes (- for standard output); written\n"
"                whole or not at all\n"
"  -n N          rows in top and diff --text (default 20)\n"
"  --hz N        pprof: samples per second per CPU when the input has no\n"
"                hz header (default 100)\n"
"  --text        diff: the table of share changes, not an SVG\n"
"  --keep-pids   diff: compare tasks by pid-name, not by name alone\n"
"  --title TEXT  SVG: the title\n"
"  --width PX    SVG: the width in pixels (200-100000, default 1200)\n"
"  --no-script   SVG: no embedded zoom and search script\n"
"\n"
"Exit status: 0 done, 1 bad input or a failed write, 2 bad usage.\n"
"Bad input names FILE:LINE; see kprof-report(1).\n";

enum sub { SUB_PPROF, SUB_FLAME, SUB_DIFF, SUB_TOP };

enum {
	OPT_HZ = 256, OPT_TEXT, OPT_KEEP, OPT_TITLE, OPT_WIDTH, OPT_NOSCRIPT,
	OPT_HELP,
};

static const struct option longopts[] = {
	{ "hz", required_argument, NULL, OPT_HZ },
	{ "text", no_argument, NULL, OPT_TEXT },
	{ "keep-pids", no_argument, NULL, OPT_KEEP },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "no-script", no_argument, NULL, OPT_NOSCRIPT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* Which options each subcommand takes, for the one-line error. */
static const struct {
	const char *name;
	unsigned nargs;
	int opts[8];		/* getopt values it accepts, 0 ends */
	const char *help;
} subs[] = {
	[SUB_PPROF] = { "pprof", 1, { 'o', OPT_HZ }, "-o OUT.pb.gz, --hz N" },
	[SUB_FLAME] = { "flamegraph", 1, { 'o', OPT_TITLE, OPT_WIDTH, OPT_NOSCRIPT },
			"-o OUT.svg, --title TEXT, --width PX, --no-script" },
	[SUB_DIFF] = { "diff", 2,
		       { 'o', 'n', OPT_TEXT, OPT_KEEP, OPT_TITLE, OPT_WIDTH, OPT_NOSCRIPT },
		       "-o OUT, --text, -n N, --keep-pids, --title TEXT, --width PX, --no-script" },
	[SUB_TOP] = { "top", 1, { 'o', 'n' }, "-n N, -o OUT" },
};

static bool takes(enum sub sub, int c)
{
	for (size_t i = 0; i < 8 && subs[sub].opts[i]; i++)
		if (subs[sub].opts[i] == c)
			return true;
	return false;
}

struct args {
	enum sub sub;
	const char *in[2];
	const char *out;
	unsigned n;
	uint64_t hz;
	bool text, keep_pids;
	struct svg_opts svg;
};

static int print_usage(void)
{
	fputs(usage, stdout);
	return fflush(stdout) == 0 ? 0 : EXIT_INPUT;
}

/* How the user spells option @c, for messages. */
static const char *spelling(int c)
{
	static char shortopt[3] = "-?";

	for (const struct option *o = longopts; o->name; o++) {
		if (o->val == c) {
			static char buf[32];

			snprintf(buf, sizeof buf, "--%s", o->name);
			return buf;
		}
	}
	shortopt[1] = (char)c;
	return shortopt;
}

static unsigned long long number(const char *sub, const char *opt,
				 const char *s, unsigned long long lo,
				 unsigned long long hi)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || v < lo || v > hi)
		fatal(EXIT_USAGE, "%s: %s must be a number %llu-%llu (got '%s')",
		      sub, opt, lo, hi, s);
	return v;
}

static void parse_options(struct args *a, int argc, char **argv)
{
	const char *name = subs[a->sub].name;
	unsigned nin = 0;
	int c;

	opterr = 0;
	optind = 1;
	/* Options may come before or after the files. */
	while ((c = getopt_long(argc, argv, ":o:n:", longopts, NULL)) != -1) {
		if (c == '?')
			fatal(EXIT_USAGE, "%s: unknown option '%s' (%s takes %s)",
			      name, optopt ? spelling(optopt) : argv[optind - 1],
			      name, subs[a->sub].help);
		if (c == ':')
			fatal(EXIT_USAGE, "%s: option '%s' needs a value", name,
			      argv[optind - 1]);
		if (c == OPT_HELP)
			exit(print_usage());
		if (!takes(a->sub, c))
			fatal(EXIT_USAGE, "%s: option '%s' does not apply (%s takes %s)",
			      name, spelling(c), name, subs[a->sub].help);
		switch (c) {
		case 'o': a->out = optarg; break;
		case 'n': a->n = (unsigned)number(name, "-n", optarg, 1, 1000000); break;
		case OPT_HZ: a->hz = number(name, "--hz", optarg, 1, 1000000000); break;
		case OPT_TEXT: a->text = true; break;
		case OPT_KEEP: a->keep_pids = true; break;
		case OPT_TITLE: a->svg.title = optarg; break;
		case OPT_WIDTH:
			a->svg.width = (unsigned)number(name, "--width", optarg, 200, 100000);
			break;
		case OPT_NOSCRIPT: a->svg.script = false; break;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (nin == subs[a->sub].nargs)
			fatal(EXIT_USAGE, "%s: one input too many ('%s')", name, argv[i]);
		a->in[nin++] = argv[i];
	}
	if (nin < subs[a->sub].nargs)
		fatal(EXIT_USAGE, "%s: needs %s", name,
		      a->sub == SUB_DIFF ? "BEFORE.folded and AFTER.folded"
					 : "an input file (IN.folded, - for standard input)");
	if (!a->out && !(a->sub == SUB_TOP || (a->sub == SUB_DIFF && a->text)))
		fatal(EXIT_USAGE, "%s: -o OUT is required (- for standard output)",
		      name);
	if (a->in[1] && strcmp(a->in[0], "-") == 0 && strcmp(a->in[1], "-") == 0)
		fatal(EXIT_USAGE, "%s: only one input can be standard input", name);
}

static int run(const struct args *a)
{
	struct names names = { 0 };
	struct profile p[2];
	struct buf out = { 0 };

	if (a->sub == SUB_DIFF) {
		folded_load(&p[0], a->in[0], &names, !a->keep_pids);
		folded_load(&p[1], a->in[1], &names, !a->keep_pids);
		if (a->text)
			report_diff_text(&out, &p[0], &p[1], a->n);
		else
			report_diff_svg(&out, &p[0], &p[1], &a->svg);
	} else {
		folded_load(&p[0], a->in[0], &names, false);
		if (a->sub == SUB_PPROF)
			report_pprof(&out, &p[0], a->hz);
		else if (a->sub == SUB_FLAME)
			report_flamegraph(&out, &p[0], &a->svg);
		else
			report_top(&out, &p[0], a->n);
	}
	outfile_write(a->out ? a->out : "-", &out);
	buf_free(&out);
	return 0;
}

int main(int argc, char **argv)
{
	struct args a = {
		.n = TOP_DEFAULT, .hz = HZ_DEFAULT,
		.svg = { .width = WIDTH_DEFAULT, .script = true },
	};
	size_t i;

	if (argc < 2)
		fatal(EXIT_USAGE, "a subcommand is needed: pprof, flamegraph, diff or top (see --help)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return print_usage();
	if (strcmp(argv[1], "--version") == 0) {
		printf("kprof-report (kprof) %s\n", KPROF_VERSION);
		return fflush(stdout) == 0 ? 0 : EXIT_INPUT;
	}
	if (argv[1][0] == '-')
		fatal(EXIT_USAGE, "unknown option '%s' (before the subcommand: --help, --version)",
		      argv[1]);
	for (i = 0; i < sizeof subs / sizeof subs[0]; i++)
		if (strcmp(argv[1], subs[i].name) == 0)
			break;
	if (i == sizeof subs / sizeof subs[0])
		fatal(EXIT_INPUT, "unknown subcommand '%s': use pprof, flamegraph, diff or top",
		      argv[1]);
	a.sub = (enum sub)i;
	/* getopt sees the subcommand as argv[0]. */
	parse_options(&a, argc - 1, argv + 1);
	return run(&a);
}
