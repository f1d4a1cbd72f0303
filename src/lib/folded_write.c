/* SPDX-License-Identifier: BSD-2-Clause */
/* The one writer of folded blocks: header lines from a struct
 * folded_head, in the order of enum folded_field, then the lines'
 * counts and the end line (lib/folded_write.h). */
#include "lib/folded_write.h"

#include <stddef.h>

#include "lib/out.h"

/* How a key's value is written. */
enum folded_value {
	FK_U64,		/* a uint64_t field */
	FK_I64,		/* an int64_t field */
	FK_STR,		/* a const char * field */
	FK_CHARS,	/* a char array field */
	FK_WORD,	/* a fixed word: the key has no field */
	FK_CPU_LIST,	/* cpu_busy_ns: "CPU:NS" for each CPU of the mask */
};

struct folded_row {
	const char *key;
	enum folded_value kind;
	size_t off;		/* the field's, where the kind has one */
	const char *word;	/* FK_WORD's value */
};

#define ROW(f, k, kind, field) \
	[f] = { k, kind, offsetof(struct folded_head, field), NULL }
#define WORD(f, k, w) [f] = { k, FK_WORD, 0, w }

static const struct folded_row folded_rows[FOLDED_F_COUNT] = {
	ROW(FOLDED_F_SEQ, FOLDED_KEY_SEQ, FK_U64, seq),
	ROW(FOLDED_F_START_NS, FOLDED_KEY_START_NS, FK_U64, start_ns),
	ROW(FOLDED_F_END_NS, FOLDED_KEY_END_NS, FK_U64, end_ns),
	ROW(FOLDED_F_STOP_NS, FOLDED_KEY_STOP_NS, FK_U64, stop_ns),
	ROW(FOLDED_F_SOURCE, FOLDED_KEY_SOURCE, FK_STR, source),
	ROW(FOLDED_F_HZ, FOLDED_KEY_HZ, FK_U64, hz),
	ROW(FOLDED_F_WINDOW_MS, FOLDED_KEY_WINDOW_MS, FK_U64, window_ms),
	ROW(FOLDED_F_CPUS, FOLDED_KEY_CPUS, FK_U64, cpus),
	WORD(FOLDED_F_WALL, FOLDED_KEY_WALL, "1"),
	WORD(FOLDED_F_UNIT_US, FOLDED_KEY_UNIT, FOLDED_UNIT_US),
	ROW(FOLDED_F_SAMPLES, FOLDED_KEY_SAMPLES, FK_U64, samples),
	ROW(FOLDED_F_DROPPED, FOLDED_KEY_DROPPED, FK_U64, dropped),
	ROW(FOLDED_F_OTHER, FOLDED_KEY_OTHER, FK_U64, other),
	ROW(FOLDED_F_DEPTH, FOLDED_KEY_DEPTH, FK_U64, depth),
	ROW(FOLDED_F_PID, FOLDED_KEY_PID, FK_I64, pid),
	WORD(FOLDED_F_ROOT_CPU, FOLDED_KEY_ROOT, FOLDED_ROOT_CPU),
	WORD(FOLDED_F_FRAMES_ADDR, FOLDED_KEY_FRAMES, FOLDED_FRAMES_ADDR),
	ROW(FOLDED_F_BUILD_ID, FOLDED_KEY_BUILD_ID, FK_CHARS, build_id),
	WORD(FOLDED_F_WEIGHT_NS, FOLDED_KEY_WEIGHT, FOLDED_WEIGHT_NS),
	ROW(FOLDED_F_BUSY_NS, FOLDED_KEY_BUSY_NS, FK_U64, busy_ns),
	ROW(FOLDED_F_CPU_BUSY_NS, FOLDED_KEY_CPU_BUSY_NS, FK_CPU_LIST, cpu_busy_ns),
	ROW(FOLDED_F_THROTTLED_HZ, FOLDED_KEY_THROTTLED_HZ, FK_U64, throttled_hz),
	ROW(FOLDED_F_HIDDEN_NS, FOLDED_KEY_HIDDEN_NS, FK_U64, hidden_ns),
};

void folded_head_set(struct folded_head *h, enum folded_field f, uint64_t v)
{
	const struct folded_row *r = &folded_rows[f];

	h->have |= FOLDED_HAS(f);
	if (r->kind == FK_U64)
		*(uint64_t *)((char *)h + r->off) = v;
	else if (r->kind == FK_I64)
		*(int64_t *)((char *)h + r->off) = (int64_t)v;
}

static void folded_put_cpu_list(struct out *o, const struct folded_head *h)
{
	const char *sep = "";

	for (unsigned cpu = 0; cpu < FOLDED_CPUS_MAX; cpu++) {
		if (!((h->cpu_busy_mask >> cpu) & 1))
			continue;
		out_printf(o, "%s%u:%llu", sep, cpu,
			   (unsigned long long)h->cpu_busy_ns[cpu]);
		sep = " ";
	}
}

static void folded_put_key(struct out *o, const struct folded_head *h,
			   const struct folded_row *r)
{
	const char *field = (const char *)h + r->off;

	out_printf(o, "# %s=", r->key);
	switch (r->kind) {
	case FK_U64:
		out_printf(o, "%llu", (unsigned long long)*(const uint64_t *)field);
		break;
	case FK_I64:
		out_printf(o, "%lld", (long long)*(const int64_t *)field);
		break;
	case FK_STR:
		out_puts(o, *(const char *const *)field);
		break;
	case FK_CHARS:
		out_puts(o, field);
		break;
	case FK_WORD:
		out_puts(o, r->word);
		break;
	case FK_CPU_LIST:
		folded_put_cpu_list(o, h);
		break;
	}
	out_puts(o, "\n");
}

void folded_write_begin(struct folded_writer *w, struct out *o,
			const struct folded_head *h)
{
	w->o = o;
	w->weight = h->have & FOLDED_HAS(FOLDED_F_WEIGHT_NS);
	w->lines = w->samples = 0;
	out_puts(o, FOLDED_BEGIN_LINE "\n");
	for (unsigned f = 0; f < FOLDED_F_COUNT; f++)
		if (h->have & FOLDED_HAS(f))
			folded_put_key(o, h, &folded_rows[f]);
}

void folded_write_count(struct folded_writer *w, uint64_t count,
			uint64_t weight)
{
	out_printf(w->o, " %llu", (unsigned long long)count);
	if (w->weight)
		out_printf(w->o, " %llu", (unsigned long long)weight);
	out_puts(w->o, "\n");
	w->lines++;
	w->samples += count;
}

void folded_write_end(struct folded_writer *w)
{
	out_printf(w->o, FOLDED_END_FORMAT "\n", (unsigned long long)w->lines,
		   (unsigned long long)w->samples);
}
