/* SPDX-License-Identifier: BSD-2-Clause */
/* One interval as a kernel sent it, read as input nobody vouches for
 * (doc/collect.md, "A hostile target"): its size against what the
 * session can produce, its numbers from its own header only (through
 * the one folded reader, tools/folded_read.c), then its folded block
 * through kprof-report's reader under caps, and its pprof.
 * Nothing here exits the process; every refusal is a value with a
 * reason.  tests/fuzz/fuzz_collect.c drives these functions. */
#define _GNU_SOURCE

#include "collect.h"
#include "report.h"
#include "lib/folded_frame.h"
#include "hal/cpu.h"
#include "prof/folded.h"
#include "prof/session.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A reply's bytes besides its data lines: the header (source, build-id,
 * a dozen keys), the end line and the prompt after it. */
#define INTERVAL_HEADER_BYTES (64u << 10)
/* Distinct frame names one interval may hold: a kernel has a few
 * thousand functions. */
#define INTERVAL_NAMES_MAX (1u << 16)
/* The count and the blanks a data line has besides its frames. */
#define INTERVAL_LINE_EXTRA 48u

/* The longest a kernel interval runs between two of our rotates: the
 * back-off after silence waits up to 16 intervals (target.c), and a
 * round may start a second late. */
static uint64_t interval_span_ms(int64_t interval_ns)
{
	return (uint64_t)(17 * interval_ns / 1000000) + 1000;
}

void interval_caps(struct interval_caps *c, unsigned hz, unsigned depth,
		   int64_t interval_ns, uint64_t reply_max)
{
	/* The kernel's own defaults where the run leaves them. */
	uint64_t rate = hz ? hz : PROF_HZ_MAX;
	uint64_t frames = (depth ? depth : PROF_DEPTH_DEFAULT) + 2;	/* task, [truncated] */
	uint64_t samples = rate * HAL_MAX_CPUS * interval_span_ms(interval_ns) / 1000;
	/* One line per chain at most, the interval's `other` besides. */
	uint64_t lines = samples < PROF_INTERVAL_CHAINS + 1 ? samples : PROF_INTERVAL_CHAINS + 1;
	uint64_t line_bytes = frames * (FOLD_NAME_MAX + 1) + INTERVAL_LINE_EXTRA;

	memset(c, 0, sizeof(*c));
	c->lim.lines = lines;
	c->lim.frames = (size_t)frames;
	c->lim.names = INTERVAL_NAMES_MAX;
	/* An interval with no tick in it is one all the same, not a loss. */
	c->lim.flags = FOLDED_READ_KERNEL | FOLDED_READ_WEIGHED | FOLDED_READ_EMPTY;
	c->reply_max = reply_max ? reply_max : INTERVAL_HEADER_BYTES + lines * line_bytes;
}

/* The interval's numbers from the reader's header, as it stood at the
 * first stack line (or the end line): a key further down is no
 * header's.  False (said in @err) when one is missing. */
static bool interval_keys(struct interval *iv, const struct fold_meta *m, char *err,
			  size_t errlen)
{
	const unsigned want = META_SEQ | META_START | META_END | META_SAMPLES | META_DROPPED;

	if ((m->have & want) != want) {
		snprintf(err, errlen, "the header lacks seq, start_ns, end_ns, samples or dropped");
		return false;
	}
	iv->seq = m->seq;
	iv->start_ns = m->start_ns;
	iv->end_ns = m->end_ns;
	iv->samples = m->samples;
	iv->dropped = m->dropped;
	/* The reader checked it: even hex digits, at most 128. */
	iv->addr = m->addr;
	memcpy(iv->build_id, m->build_id, sizeof(iv->build_id));
	return true;
}

bool interval_header(const char *text, size_t len, struct interval *iv, char *err,
		     size_t errlen)
{
	const char *p = text, *stop = text + len;
	struct folded_reader r;
	bool keys = false;

	memset(iv, 0, sizeof(*iv));
	/* Each key once: which of two seq= lines would be the interval's? */
	folded_reader_init(&r, "interval", FOLDED_READ_ONCE, err, errlen);
	while (p < stop) {
		const char *nl = memchr(p, '\n', (size_t)(stop - p));
		const char *next = nl ? nl + 1 : stop;
		enum folded_kind k = folded_reader_line(&r, p, (size_t)((nl ? nl : stop) - p));

		if (p == text && k != FOLDED_BEGIN) {
			snprintf(err, errlen, "the reply is not a folded block");
			break;
		}
		if (k == FOLDED_ERROR)
			break;
		if ((k == FOLDED_DATA || k == FOLDED_END) && !keys) {
			if (!interval_keys(iv, &r.meta, err, errlen))
				break;
			keys = true;
		}
		if (k == FOLDED_END) {
			if (!nl) {
				/* A block is whole lines: this one was cut. */
				snprintf(err, errlen, "the block's end line has no newline (the reply was cut)");
				break;
			}
			/* The file is the block, not the prompt after it. */
			iv->text = text;
			iv->len = (size_t)(next - text);
			break;
		}
		p = next;
	}
	if (p >= stop)
		snprintf(err, errlen, len ? "the block has no end line"
					  : "the reply is not a folded block");
	folded_reader_free(&r);
	if (!iv->len)
		return false;
	if (iv->end_ns < iv->start_ns) {
		snprintf(err, errlen, "end_ns %" PRIu64 " is before start_ns %" PRIu64,
			 iv->end_ns, iv->start_ns);
		iv->len = 0;
		return false;
	}
	return true;
}

/* @p's pprof: an address view resolved against iv->image when it is
 * that image's (under the image's lock: libdw's handles are not shared
 * between threads), else by name. */
static bool interval_write(struct interval *iv, struct profile *p,
			   const struct pprof_stamp *stamp, struct buf *out, char *err,
			   size_t errlen)
{
	struct coll_image *c = iv->image;
	bool ok;

	if (!c || !p->meta.addr || strcmp(p->meta.build_id, c->build_id))
		return report_pprof_stamped(out, p, 1000, NULL, stamp, err, errlen);
	pthread_mutex_lock(&c->lock);
	image_resolve(p, c->im);
	ok = report_pprof_stamped(out, p, 1000, c->im, stamp, err, errlen);
	pthread_mutex_unlock(&c->lock);
	return ok;
}

bool interval_pprof(struct interval *iv, const struct target_labels *labels,
		    const struct folded_limits *lim, struct buf *out, char *err,
		    size_t errlen)
{
	const char *keys[COLLECT_LABELS_MAX + 3], *values[COLLECT_LABELS_MAX + 3];
	struct pprof_stamp stamp = { iv->host_start_ns, keys, values, labels->n };
	struct profile p;
	struct names names = { 0 };
	bool ok;

	memcpy(keys, labels->keys, labels->n * sizeof(*keys));
	memcpy(values, labels->values, labels->n * sizeof(*values));
	ok = folded_parse_text(&p, "interval", iv->text, iv->len, &names, lim, err, errlen);
	if (ok && p.total != iv->samples) {
		snprintf(err, errlen, "the header says samples=%" PRIu64 " but the lines hold %" PRIu64,
			 iv->samples, p.total);
		ok = false;
	}
	if (ok) {
		/* The reader checked it: even hex digits, at most 128. */
		memcpy(iv->build_id, p.meta.build_id, sizeof(iv->build_id));
		if (iv->build_id[0]) {
			keys[stamp.nlabels] = "build_id";
			values[stamp.nlabels++] = iv->build_id;
		}
		ok = interval_write(iv, &p, &stamp, out, err, errlen);
	}
	folded_free(&p);
	names_free(&names);
	return ok;
}
