/* SPDX-License-Identifier: BSD-2-Clause */
/* kprof-report: folded stacks in, pprof / flame graph SVG / diff / top
 * out (doc/kprof-report.1).  A host program built with the build
 * machine's compiler in every configuration. */
#ifndef KPROF_REPORT_H
#define KPROF_REPORT_H

#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "folded_read.h"

#define REPORT_PROG "kprof-report"

/* Exit statuses: bad input or a failed write is 1, a usage error 2. */
#define EXIT_INPUT 1
#define EXIT_USAGE 2

/* ---- util.c: memory, messages, a growable output buffer ---- */

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* Print "kprof-report: MESSAGE" on one line of stderr and exit with
 * @status.  Nothing has been written to an output file yet when the
 * parsers call it: outputs are built in memory and written last. */
void fatal(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

struct buf {
	char *p;
	size_t len, cap;
};

void buf_add(struct buf *b, const void *p, size_t n);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* @s with &, <, >, " and ' escaped for XML text and attributes. */
void buf_xml(struct buf *b, const char *s, size_t n);
void buf_free(struct buf *b);

/* ---- names.c: every frame name once, numbered from 0 ---- */

struct names {
	char **str;
	size_t n, cap;
	size_t *slot;		/* open addressing: index + 1, 0 = empty */
	size_t nslots;
};

size_t names_intern(struct names *t, const char *s, size_t len);
/* The number of @s, or (size_t)-1 when it was never interned. */
size_t names_find(const struct names *t, const char *s);
/* Free every name and the table (left empty, ready for reuse). */
void names_free(struct names *t);

/* ---- folded.c: the folded-stacks reader ---- */

struct stack {
	size_t *frames;		/* names, root first */
	size_t nframes;
	uint64_t count;
	uint64_t weight;	/* ns it stands for (meta.weight_ns), else 0 */
	long cpu;		/* its CPU (meta.root_cpu), else -1 */
	/* The address view resolved (image_resolve()): each frame's
	 * address as read -- a leaf its PC, a caller its return address --
	 * or 0 for a frame that is no address ("[host]", the task); frames
	 * then hold the function names.  NULL otherwise. */
	uint64_t *addrs;
};

struct profile {
	const char *path;
	struct names *names;	/* shared between the two sides of a diff */
	struct fold_meta meta;
	struct stack *stacks;	/* distinct stacks, in the order first read */
	size_t nstacks, cap;
	uint64_t total;		/* samples, the sum of the counts */
	uint64_t total_weight;	/* ns, the sum of the weights */
	/* Counts (and total) are in units of 10^-decimals samples: 0 but
	 * where the input had fractional counts, as flamegraph.pl takes. */
	unsigned decimals;
	/* What --focus, --ignore or --pid kept, for the outputs to say;
	 * NULL when no filter was given. */
	char *note;
};

/* @v, a count of @p's, as text in samples ("12", "2.5"): into @buf. */
const char *count_text(const struct profile *p, uint64_t v, char *buf,
		       size_t len);

/* What a report draws, ranks and shares by: a stack's weight (ns the
 * kernel counted) where the profile has them (`# weight=ns`), else its
 * count (samples; a wall profile's microseconds).  One session then
 * has one total in every view. */
uint64_t stack_value(const struct profile *p, const struct stack *st);
/* The sum of stack_value() over @p's stacks. */
uint64_t profile_value_total(const struct profile *p);
/* @v, a value of @p's, with its unit: "12 samples", "3.456 ms". */
const char *value_text(const struct profile *p, uint64_t v, char *buf,
		       size_t len);
/* The same without the unit, for a column whose head names it. */
const char *value_cell(const struct profile *p, uint64_t v, char *buf,
		       size_t len);
/* Whether @p's times are only nominal (count x period): a sampled
 * profile without weights.  A wall profile's counts are its time. */
bool profile_nominal(const struct profile *p);
/* One line on stderr when profile_nominal(@p): its times are counts
 * times the period, not what the kernel counted, and how to get that. */
void profile_note_nominal(const struct profile *p);

/* Read @path ("-" is standard input) into @p, interning frame names in
 * @names.  With @strip_pid, a root frame "PID-NAME" becomes "NAME", so
 * the same task matches across two sessions.  Any malformed line, an
 * unreadable file, a block whose end line disagrees with its lines or
 * no samples at all is fatal (exit 1) with FILE:LINE. */
void folded_load(struct profile *p, const char *path, struct names *names,
		 bool strip_pid);
/* The reader behind folded_load(): @f read as @path (named in errors).
 * Returns false at the first error, its one line (FILE:LINE: what) in
 * @err; @p then holds what was read so far, for folded_free(). */
bool folded_parse(struct profile *p, const char *path, FILE *f,
		  struct names *names, bool strip_pid, char *err, size_t errlen);
/* Caps of a reader of input it does not trust (kprof-collect): 0 is
 * none. */
struct folded_limits {
	uint64_t lines;		/* data lines */
	size_t frames;		/* frames in one line */
	size_t names;		/* distinct frame names */
	unsigned flags;		/* FOLDED_READ_KERNEL, FOLDED_READ_WEIGHED,
				 * FOLDED_READ_EMPTY */
};
/* The block in @text (@len bytes: a reply; what follows its end line is
 * ignored), read in place under @lim's caps; an error as
 * folded_parse()'s, and no begin line is one. */
bool folded_parse_text(struct profile *p, const char *path, const char *text,
		       size_t len, struct names *names,
		       const struct folded_limits *lim, char *err, size_t errlen);
/* Free what the reader allocated in @p (not its names). */
void folded_free(struct profile *p);

/* ---- image.c: the image of an address view, through libdw ---- */

struct image;

/* The image's facts pprof's Mapping carries. */
struct image_info {
	const char *path;		/* absolute */
	char build_id[BUILD_ID_HEX_MAX + 1];	/* "" when it has none */
	uint64_t start, limit, offset;	/* its executable PT_LOAD segment */
	unsigned machine;		/* e_machine: which objdump reads it */
};

/* One source line of an address: a function (inlined or not), the
 * line the address is at in it, and the function's own first line. */
struct frame_line {
	const char *function;
	const char *file;		/* absolute, or NULL */
	int line;			/* 0: unknown */
	int decl_line;
};

/* The image of address view @p: @elf, else the file under @elf_dir
 * named by p's build_id.  A missing, unreadable or stripped file, or one
 * whose build-id is not the profile's, is fatal (exit 1) in one line. */
struct image *image_open(const struct profile *p, const char *elf,
			 const char *elf_dir);
/* The same for a program that must not exit on it (kprof-collect): the
 * image whose build-id is @want (hex; "" takes @elf as it is), @elf or
 * found under @elf_dir; NULL with the one line (naming @who) in @err. */
struct image *image_load(const char *want, const char *elf, const char *elf_dir,
			 const char *who, char *err, size_t errlen);
const struct image_info *image_info(const struct image *im);
/* The ELF symbol covering @addr and the offset into it, or NULL. */
const char *image_symbol(const struct image *im, uint64_t addr, uint64_t *off);
/* The same, with the symbol's size in *@size. */
const char *image_symbol_size(const struct image *im, uint64_t addr,
			      uint64_t *off, uint64_t *size);
/* @addr's lines, innermost (inlined) first, at most @max (up to
 * IMAGE_LINES_MAX); 0 when the image knows nothing of it.  Strings live
 * as long as the image; each address is asked of libdw once. */
#define IMAGE_LINES_MAX 32
size_t image_lines(struct image *im, uint64_t addr, struct frame_line *out,
		   size_t max);
/* Each address frame of @p's stacks becomes its function's name (a
 * caller looked up at ra - 1); the addresses stay in stack.addrs. */
void image_resolve(struct profile *p, struct image *im);
void image_close(struct image *im);

/* ---- filter.c: which stacks a report keeps, and their shape ---- */

struct filter {
	const char *focus, *ignore;	/* regular expressions, or NULL */
	long pid;			/* -1: every task */
	regex_t focus_re, ignore_re;
	char text[512];			/* the options, as the user gave them */
};

/* Compile the expressions: a bad one is a usage error (exit 2). */
void filter_compile(struct filter *f);
/* Keep the stacks of task pid (root frame "PID-NAME") that have a frame
 * matching focus and none matching ignore; sets p->note.  Nothing left,
 * or --pid on an input without pids, is fatal (exit 1). */
void filter_apply(struct profile *p, const struct filter *f);
/* Root frames "PID-NAME" become "NAME" (diff without --keep-pids). */
void profile_strip_pids(struct profile *p);
/* Every stack leaf first: flamegraph.pl's --reverse. */
void profile_reverse(struct profile *p);

/* ---- tree.c: the call tree and per-function counts ---- */

struct node {
	size_t name;
	uint64_t total;		/* samples in this frame and above it */
	uint64_t self;		/* samples with this frame as the leaf */
	struct node **kids;	/* sorted by name */
	size_t nkids, cap;
};

/* The call tree of @p under a root named @root_name. */
struct node *tree_build(const struct profile *p, size_t root_name);
struct node *tree_child(const struct node *n, size_t name);
void tree_free(struct node *n);	/* NULL is nothing */
unsigned tree_depth(const struct node *n);

/* Per frame name: samples where it is the leaf (self) and samples whose
 * stack holds it at least once (total: recursion counts once). */
struct func_counts {
	uint64_t *self, *total;
	size_t n;
};

void func_counts(const struct profile *p, struct func_counts *fc);

/* @num / @den as a percentage. */
double share(uint64_t num, uint64_t den);

/* ---- output subcommands: each fills @out ---- */

struct svg_opts {
	unsigned width;
	bool script;
	bool inverted;		/* icicle: the root on top */
	bool reversed;		/* the stacks were reversed (--reverse): said */
	double min_width;	/* px: narrower frames are not drawn */
	const char *title;
};

void report_top(struct buf *out, const struct profile *p, unsigned n);
void report_diff_text(struct buf *out, const struct profile *before,
		      const struct profile *after, unsigned n);
void report_flamegraph(struct buf *out, const struct profile *p,
		       const struct svg_opts *o);
void report_diff_svg(struct buf *out, const struct profile *before,
		     const struct profile *after, const struct svg_opts *o);
/* gzip'd profile.proto; @hz_default when the input names no rate.
 * With @im (an address view resolved against its image) Locations carry
 * addresses and lines, and cpu time comes from the weights. */
void report_pprof(struct buf *out, const struct profile *p,
		  uint64_t hz_default, struct image *im);
/* What one interval's profile carries besides its samples
 * (kprof-collect): when it began on the host's clock (ns since the
 * epoch) and labels every sample gets (target, build_id). */
struct pprof_stamp {
	int64_t time_nanos;
	const char *const *keys, *const *values;
	size_t nlabels;
};
/* What a profile's comments say of its cpu time, for merge to read
 * back: the weights the kernel counted, or nominal (count x period). */
#define PPROF_CPU_WEIGHED "cpu time: the weights the kernel counted"
#define PPROF_CPU_NOMINAL "cpu time: nominal, count x period"
/* @len bytes of @data gzipped into @out; false when zlib fails. */
bool pprof_gzip(struct buf *out, const uint8_t *data, size_t len);
/* kprof-report merge ARGS... (merge.c): argv[0] is "merge". */
int report_merge(int argc, char **argv);
/* trace.c: `kprof-report trace IN -o OUT.json`, a kernel trace as the
 * Chrome trace event format.  Returns the exit status. */
int report_trace(int argc, char **argv);
/* report_pprof() stamped with @stamp; it frees all it built (the image
 * keeps what it learnt), so a long-running program may call it again
 * and again.  Never
 * exits on what @p holds: false, with the reason in @err (one line), when
 * a value does not fit pprof's int64s or zlib fails. */
bool report_pprof_stamped(struct buf *out, const struct profile *p,
			  uint64_t hz_default, struct image *im,
			  const struct pprof_stamp *stamp, char *err, size_t errlen);

/* perf annotate's view: each of @nfn functions named in @fns (or the
 * @n hottest by self time when @nfn is 0), its source lines with the
 * samples and time whose leaf fell on each, an inlined function's lines
 * naming it; with @with_asm, its instructions too (through the image's
 * platform's objdump), each run of them under its source line.  Returns
 * how many of the named functions had no samples. */
size_t report_annotate(struct buf *out, const struct profile *p,
		       struct image *im, const char *const *fns, size_t nfn,
		       unsigned n, bool with_asm);

/* ---- outfile.c ---- */

/* Write @b to @path ("-": standard output) all or nothing: a temporary
 * file beside it, renamed over it only once fully written.  Fatal
 * (exit 1) on failure, with nothing left behind. */
void outfile_write(const char *path, const struct buf *b);

/* The same into a file @path, for a program that writes on after a
 * failure (kprof-collect): 0; -1 when the file cannot be made, -2 when
 * it cannot be written (errno says why; nothing is left behind).  With
 * @durable it is on disk before it takes the name (fsync), so even a
 * host crash leaves the old file or the whole new one; without, a
 * process that dies still leaves no half file. */
int outfile_put(const char *path, const struct buf *b, bool durable);
/* The same, @path relative to the folder open as @dirfd (AT_FDCWD: the
 * working folder): kprof-collect writes into a folder it opened
 * without following links, and never through one. */
int outfile_put_at(int dirfd, const char *path, const struct buf *b, bool durable);

#endif
