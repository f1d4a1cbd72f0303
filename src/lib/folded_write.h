/* SPDX-License-Identifier: BSD-2-Clause */
/* The one writer of folded blocks (src/lib/folded_frame.h): a header
 * struct, filled by whoever has the numbers (the folded views, wall
 * views, `profile rotate`), written as `# KEY=VALUE` lines in one fixed
 * order; then the data lines, counted and summed; then the end line.
 * Adding a key is a constant in folded_frame.h, a FOLDED_F_ name, a
 * field here where it carries a value, and a row in folded_write.c. */
#ifndef KPROF_LIB_FOLDED_WRITE_H
#define KPROF_LIB_FOLDED_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/folded_frame.h"

struct out;

/* A header's keys, in the order they are written.  FOLDED_HAS(f) is its
 * bit in folded_head.have. */
enum folded_field {
	FOLDED_F_SEQ,
	FOLDED_F_START_NS,
	FOLDED_F_END_NS,
	FOLDED_F_STOP_NS,
	FOLDED_F_SOURCE,
	FOLDED_F_HZ,
	FOLDED_F_WINDOW_MS,
	FOLDED_F_CPUS,
	FOLDED_F_WALL,		/* `wall=1`: no value of its own */
	FOLDED_F_UNIT_US,	/* `unit=us` */
	FOLDED_F_SAMPLES,
	FOLDED_F_DROPPED,
	FOLDED_F_OTHER,
	FOLDED_F_DEPTH,
	FOLDED_F_PID,
	FOLDED_F_ROOT_CPU,	/* `root=cpu` */
	FOLDED_F_FRAMES_ADDR,	/* `frames=addr` */
	FOLDED_F_BUILD_ID,
	FOLDED_F_WEIGHT_NS,	/* `weight=ns`: each line's weight after its count */
	FOLDED_F_BUSY_NS,
	FOLDED_F_CPU_BUSY_NS,
	FOLDED_F_THROTTLED_HZ,
	FOLDED_F_HIDDEN_NS,	/* a wall view: the service tasks' time left out */
	FOLDED_F_COUNT
};

#define FOLDED_HAS(f) (1u << (f))

/* A block's header: @have names the keys it holds; the fields of the
 * others are not read. */
struct folded_head {
	uint32_t have;
	uint64_t seq, start_ns, end_ns, stop_ns;
	const char *source;
	uint64_t hz, window_ms, cpus;
	uint64_t samples, dropped, other, depth;
	int64_t pid;
	char build_id[FOLDED_BUILD_ID_HEX_MAX + 1];
	uint64_t busy_ns;
	/* cpu_busy_ns: the busy time of each CPU in @cpu_busy_mask. */
	uint32_t cpu_busy_mask;
	uint64_t cpu_busy_ns[FOLDED_CPUS_MAX];
	uint64_t throttled_hz;
	uint64_t hidden_ns;
};

/* Key @f given with value @v (a numeric key's). */
void folded_head_set(struct folded_head *h, enum folded_field f, uint64_t v);

/* One block being written: its data lines and their counts so far. */
struct folded_writer {
	struct out *o;
	bool weight;			/* the head said weight=ns */
	uint64_t lines, samples;
};

/* The begin line and @h's header lines. */
void folded_write_begin(struct folded_writer *w, struct out *o,
			const struct folded_head *h);
/* A data line's frames are the caller's to write (root first, ';'
 * between them, none holding a ';' or a blank); this ends the line:
 * its count, and its weight where the head said weight=ns. */
void folded_write_count(struct folded_writer *w, uint64_t count,
			uint64_t weight);
/* The end line, with the lines and the counts written. */
void folded_write_end(struct folded_writer *w);

#endif
