/* SPDX-License-Identifier: BSD-2-Clause */
/* The trace ring (kernel/trace_ring.h).  Writers on one CPU nest, never
 * run side by side: a position is taken with a compare-and-swap on the
 * head, which only an interrupt landing between the load and the swap
 * can make fail (it took the position first; the outer writer takes the
 * next).  A nested writer may finish before the one it interrupted, so
 * the reader trusts a slot's sequence word, not the head: a slot whose
 * word is not "whole at this position" is still being written (stop)
 * or has been lapped (the word is past it).  The record is copied word
 * by word with relaxed atomics and the sequence read again after, as a
 * seqlock's reader does: an overwrite during the copy shows as a
 * changed word. */
#include "kernel/trace_ring.h"

#include "lib/race_point.h"

void trace_ring_init(struct trace_ring *r, void *mem, uint64_t slots, bool overwrite)
{
	struct trace_slot *s = mem;

	for (uint64_t i = 0; i < slots; i++)
		s[i].seq = 0;
	r->head = r->tail = r->refused = r->overwritten = 0;
	r->mask = slots - 1;
	r->overwrite = overwrite;
	r->slots = s;
}

/* Take the next position, or refuse when stop mode finds the ring full. */
static bool trace_ring_take(struct trace_ring *r, uint64_t *pos)
{
	uint64_t p = __atomic_load_n(&r->head, __ATOMIC_RELAXED);

	do {
		/* Acquire: the reader's copy of the slot it freed is done. */
		if (!r->overwrite &&
		    p - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) > r->mask) {
			__atomic_fetch_add(&r->refused, 1, __ATOMIC_RELAXED);
			return false;
		}
		race_point("trace_ring_take");
	} while (!__atomic_compare_exchange_n(&r->head, &p, p + 1, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*pos = p;
	return true;
}

bool trace_ring_write(struct trace_ring *r, const struct trace_rec *rec)
{
	const uint64_t *w = (const uint64_t *)(const void *)rec;
	struct trace_slot *s;
	uint64_t pos;

	if (!trace_ring_take(r, &pos))
		return false;
	s = &r->slots[pos & r->mask];
	__atomic_store_n(&s->seq, 2 * pos + 1, __ATOMIC_RELAXED);
	/* The mark before the words: a reader that sees a new word sees
	 * the mark when it reads the sequence again. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	race_point("trace_ring_write");
	for (unsigned i = 0; i < 3; i++)
		__atomic_store_n(&s->word[i], w[i], __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, 2 * pos + 2, __ATOMIC_RELEASE);
	return true;
}

/* The reader moves past @n positions it could not have. */
static void trace_ring_skip(struct trace_ring *r, uint64_t pos, uint64_t n)
{
	__atomic_store_n(&r->overwritten, r->overwritten + n, __ATOMIC_RELAXED);
	__atomic_store_n(&r->tail, pos + n, __ATOMIC_RELEASE);
}

enum trace_read trace_ring_read(struct trace_ring *r, struct trace_rec *rec)
{
	uint64_t *w = (uint64_t *)(void *)rec;

	for (;;) {
		uint64_t pos = r->tail;
		uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		struct trace_slot *s;
		uint64_t s1, s2;

		if (pos == head)
			return TRACE_READ_EMPTY;
		if (head - pos > r->mask + 1) {
			/* Lapped already: the oldest left is head - slots. */
			trace_ring_skip(r, pos, head - (r->mask + 1) - pos);
			continue;
		}
		s = &r->slots[pos & r->mask];
		s1 = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		if (s1 != 2 * pos + 2) {
			if (s1 > 2 * pos + 2) {
				trace_ring_skip(r, pos, 1);
				continue;
			}
			return TRACE_READ_BUSY;
		}
		race_point("trace_ring_read");
		for (unsigned i = 0; i < 3; i++)
			w[i] = __atomic_load_n(&s->word[i], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
		if (s2 != s1) {
			trace_ring_skip(r, pos, 1);
			continue;
		}
		__atomic_store_n(&r->tail, pos + 1, __ATOMIC_RELEASE);
		return TRACE_READ_OK;
	}
}

uint64_t trace_ring_pending(const struct trace_ring *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}

uint64_t trace_ring_lost(const struct trace_ring *r)
{
	return __atomic_load_n(&r->refused, __ATOMIC_RELAXED) +
	       __atomic_load_n(&r->overwritten, __ATOMIC_RELAXED);
}
