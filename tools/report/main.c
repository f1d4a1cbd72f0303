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
#define MIN_WIDTH_DEFAULT 0.1	/* px, flamegraph.pl's --minwidth */

static const char usage[] =
"Usage: kprof-report pprof IN.folded -o OUT.pb.gz [--hz N] [FILTER...]\n"
"       kprof-report flamegraph IN.folded -o OUT.svg [SVG-OPTION...] [FILTER...]\n"
"       kprof-report diff BEFORE.folded AFTER.folded -o OUT.svg [SVG-OPTION...] [FILTER...]\n"
"       kprof-report diff BEFORE.folded AFTER.folded --text [-n N] [-o OUT] [FILTER...]\n"
"       kprof-report top IN.folded [-n N] [-o OUT] [FILTER...]\n"
"       kprof-report annotate IN.folded (--elf FILE | --elf-dir DIR) [FUNCTION...]\n"
"                    [--asm] [-n N] [-o OUT]\n"
"       kprof-report merge A.pb.gz... -o OUT.pb.gz | merge DIR --from T --to T -o OUT.pb.gz\n"
"       kprof-report trace IN.trace -o OUT.json\n"
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
"  merge       several pprof files (or a collector's folder over a time span)\n"
"              into one\n"
"  trace       a kernel trace (kshell -o FILE trace show raw) as the Chrome\n"
"              trace event format, one track per CPU, for Perfetto and speedscope\n"
"  annotate    each hot (or named) function's source lines with the samples\n"
"              whose leaf fell on each, as perf annotate; --asm adds the\n"
"              instructions (an address view only: profile show folded addr)\n"
"\n"
"Options:\n"
"  -o FILE       where the output goes (- for standard output); written\n"
"                whole or not at all\n"
"  -n N          rows in top and diff --text (default 20)\n"
"  --hz N        pprof: samples per second per CPU when the input has no\n"
"                hz header (default 100)\n"
"  --elf FILE    an address view's image (its build-id must be the\n"
"                profile's): functions, files, lines and inline frames\n"
"  --elf-dir DIR the image found by the profile's build-id under\n"
"                DIR/.build-id/xx/rest (debuginfod, perf buildid-cache)\n"
"  --asm         annotate: the instructions too, with their samples\n"
"  --text        diff: the table of share changes, not an SVG\n"
"  --keep-pids   diff: compare tasks by pid-name, not by name alone\n"
"  --title TEXT  SVG: the title\n"
"  --width PX    SVG: the width in pixels (200-100000, default 1200)\n"
"  --no-script   SVG: no embedded zoom and search script\n"
"  --min-width PX  SVG: frames narrower than PX pixels are not drawn\n"
"                (default 0.1; the subtitle says how many samples they hold)\n"
"  --inverted    SVG: an icicle graph, the root on top\n"
"  --reverse     SVG: every stack leaf first (callers above their callees)\n"
"Filters, for every subcommand (a stack is a root-first list of frames):\n"
"  --focus REGEX   keep only stacks with a frame that matches REGEX\n"
"  --ignore REGEX  drop stacks with a frame that matches REGEX\n"
"  --pid N       keep only task N's stacks (root frames PID-NAME)\n"
"                (REGEX: POSIX extended, matched anywhere in a frame name)\n"
"\n"
"Exit status: 0 done, 1 bad input or a failed write, 2 bad usage.\n"
"Bad input names FILE:LINE; see kprof-report(1).\n";

enum sub { SUB_PPROF, SUB_FLAME, SUB_DIFF, SUB_TOP, SUB_ANNOTATE };

enum {
	OPT_HZ = 256, OPT_TEXT, OPT_KEEP, OPT_TITLE, OPT_WIDTH, OPT_NOSCRIPT,
	OPT_HELP, OPT_MINWIDTH, OPT_INVERTED, OPT_REVERSE, OPT_FOCUS,
	OPT_IGNORE, OPT_PID, OPT_ELF, OPT_ELF_DIR, OPT_ASM,
};

static const struct option longopts[] = {
	{ "hz", required_argument, NULL, OPT_HZ },
	{ "text", no_argument, NULL, OPT_TEXT },
	{ "keep-pids", no_argument, NULL, OPT_KEEP },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "no-script", no_argument, NULL, OPT_NOSCRIPT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "min-width", required_argument, NULL, OPT_MINWIDTH },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "focus", required_argument, NULL, OPT_FOCUS },
	{ "ignore", required_argument, NULL, OPT_IGNORE },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "elf", required_argument, NULL, OPT_ELF },
	{ "elf-dir", required_argument, NULL, OPT_ELF_DIR },
	{ "asm", no_argument, NULL, OPT_ASM },
	{ NULL, 0, NULL, 0 },
};

/* Which options each subcommand takes, for the one-line error. */
static const struct {
	const char *name;
	unsigned nargs;
	int opts[12];		/* getopt values it accepts, 0 ends */
	const char *help;
} subs[] = {
	[SUB_PPROF] = { "pprof", 1, { 'o', OPT_HZ }, "-o OUT.pb.gz, --hz N" },
	[SUB_FLAME] = { "flamegraph", 1,
			{ 'o', OPT_TITLE, OPT_WIDTH, OPT_NOSCRIPT, OPT_MINWIDTH,
			  OPT_INVERTED, OPT_REVERSE },
			"-o OUT.svg, --title TEXT, --width PX, --no-script, --min-width PX, --inverted, --reverse" },
	[SUB_DIFF] = { "diff", 2,
		       { 'o', 'n', OPT_TEXT, OPT_KEEP, OPT_TITLE, OPT_WIDTH, OPT_NOSCRIPT,
			 OPT_MINWIDTH, OPT_INVERTED, OPT_REVERSE },
		       "-o OUT, --text, -n N, --keep-pids, --title TEXT, --width PX, --no-script, --min-width PX, --inverted, --reverse" },
	[SUB_TOP] = { "top", 1, { 'o', 'n' }, "-n N, -o OUT" },
	/* IN.folded, then any number of function names. */
	[SUB_ANNOTATE] = { "annotate", 1, { 'o', 'n', OPT_ASM },
			   "--elf FILE or --elf-dir DIR, FUNCTION..., --asm, -n N, -o OUT" },
};

/* Every subcommand takes the filters and an address view's image. */
static bool takes(enum sub sub, int c)
{
	if (c == OPT_FOCUS || c == OPT_IGNORE || c == OPT_PID ||
	    c == OPT_ELF || c == OPT_ELF_DIR)
		return true;
	for (size_t i = 0; i < 12 && subs[sub].opts[i]; i++)
		if (subs[sub].opts[i] == c)
			return true;
	return false;
}

struct args {
	enum sub sub;
	const char *in[2];
	const char *const *fns;		/* annotate's functions */
	size_t nfns;
	const char *elf, *elf_dir;
	bool with_asm;
	const char *out;
	unsigned n;
	uint64_t hz;
	bool text, keep_pids, reverse;
	struct svg_opts svg;
	struct filter filter;
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

/* --min-width: 0 draws every frame. */
static double pixels(const char *sub, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0 && v <= 10000))
		fatal(EXIT_USAGE, "%s: --min-width must be a number of pixels 0-10000 (got '%s')",
		      sub, s);
	return v;
}

/* The filters as the user gave them, for the outputs to say. */
static void filter_text(struct filter *f)
{
	size_t n = 0;

	f->text[0] = '\0';
	if (f->focus)
		n += (size_t)snprintf(f->text + n, sizeof f->text - n,
				      "--focus '%s' ", f->focus);
	if (f->ignore && n < sizeof f->text)
		n += (size_t)snprintf(f->text + n, sizeof f->text - n,
				      "--ignore '%s' ", f->ignore);
	if (f->pid >= 0 && n < sizeof f->text)
		n += (size_t)snprintf(f->text + n, sizeof f->text - n,
				      "--pid %ld ", f->pid);
	n = strlen(f->text);
	if (n)
		f->text[n - 1] = '\0';
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
		case OPT_MINWIDTH:
			a->svg.min_width = pixels(name, optarg);
			break;
		case OPT_INVERTED: a->svg.inverted = true; break;
		case OPT_REVERSE: a->reverse = a->svg.reversed = true; break;
		case OPT_FOCUS: a->filter.focus = optarg; break;
		case OPT_IGNORE: a->filter.ignore = optarg; break;
		case OPT_PID:
			a->filter.pid = (long)number(name, "--pid", optarg, 0, 99999999);
			break;
		case OPT_ELF: a->elf = optarg; break;
		case OPT_ELF_DIR: a->elf_dir = optarg; break;
		case OPT_ASM: a->with_asm = true; break;
		}
	}
	if (a->elf && a->elf_dir)
		fatal(EXIT_USAGE, "%s: --elf and --elf-dir: give one", name);
	if (a->sub == SUB_ANNOTATE && optind < argc) {
		a->in[nin++] = argv[optind];
		a->fns = (const char *const *)argv + optind + 1;
		a->nfns = (size_t)(argc - optind - 1);
		optind = argc;
	}
	if (a->sub == SUB_ANNOTATE && nin && !a->elf && !a->elf_dir)
		fatal(EXIT_USAGE, "%s: needs the image: --elf FILE or --elf-dir DIR", name);
	for (int i = optind; i < argc; i++) {
		if (nin == subs[a->sub].nargs)
			fatal(EXIT_USAGE, "%s: one input too many ('%s')", name, argv[i]);
		a->in[nin++] = argv[i];
	}
	if (nin < subs[a->sub].nargs)
		fatal(EXIT_USAGE, "%s: needs %s", name,
		      a->sub == SUB_DIFF ? "BEFORE.folded and AFTER.folded"
					 : "an input file (IN.folded, - for standard input)");
	if (!a->out && !(a->sub == SUB_TOP || a->sub == SUB_ANNOTATE ||
			 (a->sub == SUB_DIFF && a->text)))
		fatal(EXIT_USAGE, "%s: -o OUT is required (- for standard output)",
		      name);
	if (a->in[1] && strcmp(a->in[0], "-") == 0 && strcmp(a->in[1], "-") == 0)
		fatal(EXIT_USAGE, "%s: only one input can be standard input", name);
	filter_compile(&a->filter);
	filter_text(&a->filter);
}

/* An address view's image, its addresses resolved to functions (so
 * that every filter and view sees names), or NULL for a view by name:
 * then --elf has nothing to resolve, and annotate nothing to show. */
static struct image *resolve(struct profile *p, const struct args *a)
{
	struct image *im;

	if (!p->meta.addr) {
		if (a->sub == SUB_ANNOTATE)
			fatal(EXIT_INPUT, "%s: a profile by name has no addresses to annotate: take one with 'profile show folded addr' (or 'profile MS ... folded addr')",
			      p->path);
		if (a->sub == SUB_PPROF)
			fprintf(stderr, "%s: note: %s is a profile by name: pprof's lines and addresses need the address view ('profile show folded addr') and --elf\n",
				REPORT_PROG, p->path);
		return NULL;
	}
	if (!a->elf && !a->elf_dir)
		fatal(EXIT_INPUT, "%s: an address view (# frames=addr) needs its image: --elf FILE or --elf-dir DIR",
		      p->path);
	im = image_open(p, a->elf, a->elf_dir);
	image_resolve(p, im);
	return im;
}

/* One input, resolved, filtered and shaped as the options say.  --pid
 * needs the pids, so a diff strips them only after the filter. */
static struct image *load(struct profile *p, const struct args *a,
			  const char *path, struct names *names, bool strip_pid)
{
	bool late = strip_pid && a->filter.pid >= 0;
	struct image *im;

	folded_load(p, path, names, strip_pid && !late);
	im = resolve(p, a);
	profile_note_nominal(p);
	filter_apply(p, &a->filter);
	if (late)
		profile_strip_pids(p);
	if (a->reverse)
		profile_reverse(p);
	return im;
}

static int run(const struct args *a)
{
	struct names names = { 0 };
	struct profile p[2];
	struct buf out = { 0 };
	struct image *im[2] = { NULL, NULL };
	size_t missing = 0;

	if (a->sub == SUB_DIFF) {
		im[0] = load(&p[0], a, a->in[0], &names, !a->keep_pids);
		im[1] = load(&p[1], a, a->in[1], &names, !a->keep_pids);
		if (a->text)
			report_diff_text(&out, &p[0], &p[1], a->n);
		else
			report_diff_svg(&out, &p[0], &p[1], &a->svg);
	} else {
		im[0] = load(&p[0], a, a->in[0], &names, false);
		if (a->sub == SUB_PPROF)
			report_pprof(&out, &p[0], a->hz, im[0]);
		else if (a->sub == SUB_FLAME)
			report_flamegraph(&out, &p[0], &a->svg);
		else if (a->sub == SUB_ANNOTATE)
			missing = report_annotate(&out, &p[0], im[0], a->fns, a->nfns,
						  a->n, a->with_asm);
		else
			report_top(&out, &p[0], a->n);
	}
	image_close(im[0]);
	image_close(im[1]);
	outfile_write(a->out ? a->out : "-", &out);
	buf_free(&out);
	/* A function named that had no samples: what was asked for is not
	 * there (its line says so in the output), as a script must see. */
	if (missing) {
		fprintf(stderr, "%s: annotate: %zu of the functions named had no samples with the leaf in them\n",
			REPORT_PROG, missing);
		return EXIT_INPUT;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct args a = {
		.n = TOP_DEFAULT, .hz = HZ_DEFAULT,
		.svg = { .width = WIDTH_DEFAULT, .script = true,
			 .min_width = MIN_WIDTH_DEFAULT },
		.filter = { .pid = -1 },
	};
	size_t i;

	if (argc < 2)
		fatal(EXIT_USAGE, "a subcommand is needed: pprof, flamegraph, diff, top, annotate, merge or trace (see --help)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return print_usage();
	if (strcmp(argv[1], "--version") == 0) {
		printf("kprof-report (kprof) %s\n", KPROF_VERSION);
		return fflush(stdout) == 0 ? 0 : EXIT_INPUT;
	}
	if (strcmp(argv[1], "merge") == 0)
		return report_merge(argc - 1, argv + 1);
	if (strcmp(argv[1], "trace") == 0)
		return report_trace(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		fatal(EXIT_USAGE, "unknown option '%s' (before the subcommand: --help, --version)",
		      argv[1]);
	for (i = 0; i < sizeof subs / sizeof subs[0]; i++)
		if (strcmp(argv[1], subs[i].name) == 0)
			break;
	if (i == sizeof subs / sizeof subs[0])
		fatal(EXIT_USAGE, "unknown subcommand '%s': use pprof, flamegraph, diff, top, annotate, merge or trace",
		      argv[1]);
	a.sub = (enum sub)i;
	/* getopt sees the subcommand as argv[0]. */
	parse_options(&a, argc - 1, argv + 1);
	return run(&a);
}
