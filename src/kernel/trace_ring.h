/* SPDX-License-Identifier: BSD-2-Clause */
/* One CPU's ring of trace events: written without a lock by whatever
 * runs on that CPU -- a task, an interrupt that lands inside that
 * task's write, an NMI inside that -- and drained by one reader on any
 * CPU while the writers go on.  Fixed-size records, a power-of-two
 * count of slots, each slot a sequence word and the record.  Two modes
 * when the reader falls a ring behind: overwrite the oldest (the reader
 * counts what it never saw) or stop (the writer counts what it refused).
 * Either way, once the writers are done, events offered = events read +
 * lost, exactly (trace_ring_lost()). */
#ifndef KPROF_KERNEL_TRACE_RING_H
#define KPROF_KERNEL_TRACE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu.h"

/* One event: when, on which CPU, in whose context, what, and its two
 * typed fields (kernel/trace.h says what each event's mean). */
struct trace_rec {
	uint64_t ts;		/* hal_clock_ns(): one clock for every CPU */
	int32_t pid;		/* the task current on the CPU */
	uint8_t id;		/* enum trace_id */
	uint8_t cpu;		/* the ring's CPU, filled by the reader */
	uint16_t flags;		/* per event (TRACE_F_*) */
	uint32_t f0, f1;
};

/* A slot: the record and its state, 2 * pos + 1 while the writer that
 * took position @pos fills it, 2 * pos + 2 once it is whole. */
struct trace_slot {
	uint64_t seq;
	union {
		struct trace_rec rec;
		uint64_t word[3];
	};
};

struct trace_ring {
	uint64_t head;		/* positions taken by writers */
	uint64_t tail;		/* the reader's next position */
	uint64_t refused;	/* stop mode: writes refused, ring full */
	uint64_t overwritten;	/* overwrite mode: the reader's misses */
	uint64_t mask;		/* slots - 1 */
	bool overwrite;
	struct trace_slot *slots;
} __attribute__((aligned(HAL_CACHELINE)));

enum trace_read {
	TRACE_READ_OK,		/* *rec is the next event */
	TRACE_READ_EMPTY,	/* nothing more written */
	TRACE_READ_BUSY,	/* the next is still being written */
};

/* The bytes a ring of @slots (a power of two) takes. */
#define TRACE_RING_BYTES(slots) ((size_t)(slots) * sizeof(struct trace_slot))

/* Make @r a ring over @mem, @slots slots (a power of two, at least 2),
 * empty.  Nobody may write or read it meanwhile. */
void trace_ring_init(struct trace_ring *r, void *mem, uint64_t slots, bool overwrite);

/* Append @rec.  Only from the ring's own CPU, in any context (task,
 * interrupt, NMI, each nesting in the one before).  Returns false when
 * stop mode refused it (counted). */
bool trace_ring_write(struct trace_ring *r, const struct trace_rec *rec);

/* Take the oldest unread event into @rec.  One reader at a time, any
 * CPU, while writers go on.  Events an overwrite took before they were
 * read are skipped and counted. */
enum trace_read trace_ring_read(struct trace_ring *r, struct trace_rec *rec);

/* Events written and not yet read (an overwrite's victims included). */
uint64_t trace_ring_pending(const struct trace_ring *r);

/* Events lost so far: refused when full, or overwritten unread. */
uint64_t trace_ring_lost(const struct trace_ring *r);

#endif
