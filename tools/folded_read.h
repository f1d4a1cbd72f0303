/* SPDX-License-Identifier: BSD-2-Clause */
/* The one reader of folded profiles on the host, for kprof-report (every
 * file it reads, tools/report/folded.c) and for `kshell -o` (the block in
 * a reply, before it is saved).  The framing and the header keys are
 * src/lib/folded_frame.h's; this is their grammar, a line at a time:
 *
 *   # kprof folded begin                  the block's first line
 *   # KEY=VALUE ...                       header lines (# key: value and
 *                                         # key value too; others: comments)
 *   [cpuN;]frame;frame;... COUNT [WEIGHT] data lines, root first
 *   # kprof folded end lines=N samples=M  its last line, counts checked
 *
 * The reader checks each line and the header's known values, sums the
 * lines and their counts, and hands each data line back cut into
 * frames; what to keep of them is the caller's.  The first error stops
 * it, as one line naming the input and the line: `PATH:LINE: what`. */
#ifndef KPROF_TOOLS_FOLDED_READ_H
#define KPROF_TOOLS_FOLDED_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/folded_frame.h"

/* Which header values were present (struct fold_meta's have). */
enum {
	META_HZ = 1u << 0,
	META_WINDOW = 1u << 1,
	META_CPUS = 1u << 2,
	META_SAMPLES = 1u << 3,
	META_DROPPED = 1u << 4,
	META_SOURCE = 1u << 5,
	META_BUSY = 1u << 6,
	META_SEQ = 1u << 7,
	META_START = 1u << 8,
	META_END = 1u << 9,
	META_STOP = 1u << 10,
	META_OTHER = 1u << 11,
	META_DEPTH = 1u << 12,
	META_PID = 1u << 13,
	META_THROTTLED = 1u << 14,
	META_CPU_BUSY = 1u << 15,
	META_TIME = 1u << 16,
	META_HIDDEN = 1u << 17,
};

/* The longest build-id the reader takes, in hex digits. */
#define BUILD_ID_HEX_MAX FOLDED_BUILD_ID_HEX_MAX

/* What the `#` header lines of a `# kprof folded begin` block said: every
 * key of src/lib/folded_frame.h; @have says which were present.  Keys it
 * does not know are comments. */
struct fold_meta {
	unsigned have;
	char *source;			/* malloc'd */
	uint64_t hz, window_ms, cpus, samples, dropped;
	/* `profile rotate`'s interval: its number, its span on the
	 * kernel's clock (a wall view: start_ns and stop_ns). */
	uint64_t seq, start_ns, end_ns, stop_ns;
	/* The host's time the block came (`kshell -o`), ns since the
	 * epoch (META_TIME). */
	uint64_t time_nanos;
	/* A wall view's: the time of kprof's service tasks it left out
	 * (META_HIDDEN). */
	uint64_t hidden_ns;
	/* The kernel's: samples beyond its table, its depth, the task the
	 * view kept, the rate a throttled counter fell to. */
	uint64_t other, depth, throttled_hz;
	int64_t pid;
	/* `# cpu_busy_ns=CPU:NS ...`: each CPU of the mask's busy time. */
	uint32_t cpu_busy_mask;
	uint64_t cpu_busy_ns[FOLDED_CPUS_MAX];
	/* The address view (`# frames=addr`): frames are addresses of the
	 * image whose id is build_id ("" when the header gave none); with
	 * `# weight=ns` each line's last number is its weight in ns. */
	bool addr, weight_ns;
	/* `# root=cpu`: each line's root frame is the CPU that took its
	 * samples (`cpuN`), read into the line's cpu, not a frame. */
	bool root_cpu;
	char build_id[BUILD_ID_HEX_MAX + 1];
	uint64_t busy_ns;		/* the CPUs' busy time (META_BUSY) */
	/* A wall profile (`# unit=us`): each line's count is microseconds
	 * of task time, its second frame the state ([cpu], [runnable],
	 * [blocked]). */
	bool unit_us;
	bool wall;			/* `# wall=1` */
};

/* How the input is framed (folded_reader_init's @flags). */
enum {
	/* No begin line: the lines are the profile from the first one, as
	 * flamegraph.pl's files are; an end line is an error.  Without it
	 * lines before the begin line are skipped (a console session, the
	 * rest of a reply), and an end line among them is an error (the
	 * begin line was lost). */
	FOLDED_READ_BARE = 1u << 0,
	/* The kernel's own form, as `kshell -o` takes it: no frame holds a
	 * blank and every count is whole, so that a line a lost datagram
	 * joined to another's tail is refused even when the counts agree. */
	FOLDED_READ_KERNEL = 1u << 1,
	/* What a period can weigh (kprof-collect's intervals): the header
	 * must give hz, cpus and window_ms before the first stack line, and
	 * the counts may add up to at most FOLDED_WEIGH_SLACK times the
	 * samples hz x cpus x window can take (plus one second's worth), so
	 * that a count no kernel could have counted is refused as it is
	 * read, before anything downstream multiplies it by the period. */
	FOLDED_READ_WEIGHED = 1u << 2,
	/* A block without a stack line is a profile (kprof-collect's: a
	 * kernel's interval may end before its first tick); without it
	 * kprof-report refuses one, which has nothing to show. */
	FOLDED_READ_EMPTY = 1u << 3,
	/* Each header key at most once (kprof-collect's intervals: which
	 * of two seq= lines would be the interval's?). */
	FOLDED_READ_ONCE = 1u << 4,
};

/* FOLDED_READ_WEIGHED's margin over the nominal rate: a tick that runs
 * late catches up, and a window's edges are rounded to the ms. */
#define FOLDED_WEIGH_SLACK 2

/* What folded_reader_line() made of a line. */
enum folded_kind {
	FOLDED_ERROR = -1,	/* the reader's err says what, and stops */
	FOLDED_SKIP,		/* outside the block, blank, a header, a comment */
	FOLDED_BEGIN,
	FOLDED_DATA,		/* the reader's line holds it */
	FOLDED_END,		/* the end line, its counts those of the block */
};

struct folded_span {
	const char *s;
	size_t len;
};

/* The data line just read; its pointers live until the next line. */
struct folded_line {
	long cpu;			/* -1 without `# root=cpu` */
	struct folded_span *frames;	/* root first, the CPU's not among them */
	size_t nframes;
	uint64_t count;			/* in units of 10^-decimals samples */
	uint64_t weight;		/* ns, with `# weight=ns`; else 0 */
	/* The earlier counts times this are in the unit of this one (a
	 * count with more decimals than before); 1 otherwise. */
	uint64_t rescale;
};

struct folded_reader {
	const char *path;		/* named in errors */
	unsigned flags;
	size_t lineno;			/* the last line's number; a caller
					 * that skips lines sets it */
	struct fold_meta meta;
	/* The block so far: its data lines, the sum of their counts in
	 * units of 10^-decimals samples, and of their weights. */
	uint64_t lines, total, total_weight;
	unsigned decimals;
	struct folded_line line;
	/* Caps for a reader of input it does not trust (kprof-collect),
	 * set after folded_reader_init: the most data lines, and frames in
	 * one line; 0 is no cap. */
	uint64_t max_lines;
	size_t max_frames;
	/* Private. */
	int state;
	size_t begin_line, first_line;
	char *text;			/* the line, NUL-terminated */
	size_t text_len, text_cap, frames_cap;
	size_t body_len;		/* the data line without its weight */
	uint64_t weigh_max;		/* FOLDED_READ_WEIGHED: the most samples */
	char *err;
	size_t errlen;
};

/* Ready @r to read @path (named in errors; its text is the caller's):
 * the first error goes to @err, one line (left as it is until then).
 * Allocates nothing yet. */
void folded_reader_init(struct folded_reader *r, const char *path,
			unsigned flags, char *err, size_t errlen);
/* The next line of the input, @len bytes without its newline (a '\r'
 * before it is dropped).  After FOLDED_ERROR or FOLDED_END (in a block)
 * further lines are skipped, but a second begin line, which is an
 * error: one profile per input. */
enum folded_kind folded_reader_line(struct folded_reader *r, const char *text,
				    size_t len);
/* At the input's end: false with the error when a block begun never
 * ended.  Whether a block began at all is folded_reader_begun()'s. */
bool folded_reader_finish(struct folded_reader *r);
bool folded_reader_begun(const struct folded_reader *r);
/* Free what the reader allocated (meta.source too: take it first, and
 * set it to NULL, to keep it). */
void folded_reader_free(struct folded_reader *r);

/* `kshell -o`: the folded block in @text (@size bytes, a command's
 * reply), read as @r was made ready to (not FOLDED_READ_BARE).
 * Returns 1 with the block, begin line to end line and its newline, in
 * [*@begin, *@end); 0 when the text holds no begin line; -1 with the
 * error in @r's err. */
int folded_block_find(struct folded_reader *r, const char *text, size_t size,
		      const char **begin, const char **end);

#endif
