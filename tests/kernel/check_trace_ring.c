/* SPDX-License-Identifier: BSD-2-Clause */
/* The trace ring (src/kernel/trace_ring.c), built here with its race
 * points: an interrupt and an NMI nesting inside a write, the reader
 * looking in the middle of one, an overwrite landing while the reader
 * copies, stop and overwrite modes' exact lost counts, and a reader
 * draining rings while one thread per ring -- a CPU -- writes. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "kernel/trace_ring.h"

#define SLOTS 64

static struct trace_slot slots_mem[SLOTS];
static struct trace_ring ring;

/* What a race point does: one nested action, at one site. */
static void (*race_hook)(const char *site);

void race_point(const char *site)
{
	if (race_hook)
		race_hook(site);
}

static struct trace_rec rec_n(uint32_t n)
{
	struct trace_rec r = { .ts = 1000 + n, .pid = (int32_t)n, .id = 3,
			       .flags = 7, .f0 = n, .f1 = ~n };
	return r;
}

static void check_rec(const struct trace_rec *r, uint32_t n)
{
	ck_assert_uint_eq(r->ts, 1000 + n);
	ck_assert_int_eq(r->pid, (int32_t)n);
	ck_assert_uint_eq(r->id, 3);
	ck_assert_uint_eq(r->flags, 7);
	ck_assert_uint_eq(r->f0, n);
	ck_assert_uint_eq(r->f1, ~n);
}

static void setup(void)
{
	race_hook = NULL;
	trace_ring_init(&ring, slots_mem, SLOTS, false);
}

CHECK_TEST("modes", test_read_gives_writes_in_order)
{
	struct trace_rec r;

	ck_assert_int_eq(trace_ring_read(&ring, &r), TRACE_READ_EMPTY);
	/* Three times round the ring, read as written. */
	for (uint32_t i = 0; i < 3 * SLOTS; i++) {
		struct trace_rec w = rec_n(i);

		ck_assert(trace_ring_write(&ring, &w));
		ck_assert_int_eq(trace_ring_read(&ring, &r), TRACE_READ_OK);
		check_rec(&r, i);
	}
	ck_assert_int_eq(trace_ring_read(&ring, &r), TRACE_READ_EMPTY);
	ck_assert_uint_eq(trace_ring_lost(&ring), 0);
}
END_TEST

/* Stop mode keeps the oldest SLOTS and counts every refusal. */
CHECK_LOOP_TEST("modes", test_stop_mode_counts_refused, 0, 3)
{
	uint32_t extra = (uint32_t)_i * 37 + 1, n = 0;
	struct trace_rec r;

	for (uint32_t i = 0; i < SLOTS + extra; i++) {
		struct trace_rec w = rec_n(i);

		ck_assert_int_eq(trace_ring_write(&ring, &w), i < SLOTS);
	}
	ck_assert_uint_eq(trace_ring_lost(&ring), extra);
	while (trace_ring_read(&ring, &r) == TRACE_READ_OK)
		check_rec(&r, n++);
	ck_assert_uint_eq(n, SLOTS);
	/* Room again once read. */
	ck_assert(trace_ring_write(&ring, &(struct trace_rec){ 0 }));
}
END_TEST

/* Overwrite mode keeps the newest SLOTS, intact, and the reader counts
 * exactly what it never saw. */
CHECK_LOOP_TEST("modes", test_overwrite_keeps_newest, 0, 3)
{
	uint32_t extra = (uint32_t)_i * 100 + 5, total = SLOTS + extra, n = 0;
	struct trace_rec r;

	trace_ring_init(&ring, slots_mem, SLOTS, true);
	for (uint32_t i = 0; i < total; i++) {
		struct trace_rec w = rec_n(i);

		ck_assert(trace_ring_write(&ring, &w));
	}
	while (trace_ring_read(&ring, &r) == TRACE_READ_OK)
		check_rec(&r, extra + n++);
	ck_assert_uint_eq(n, SLOTS);
	ck_assert_uint_eq(trace_ring_lost(&ring), extra);
}
END_TEST

/* ---- nesting: an interrupt inside a write, an NMI inside that ---- */

static unsigned nest_depth, nest_max;
static uint32_t nest_next;
static const char *nest_site;

static void nest_write(const char *site)
{
	struct trace_rec w;

	/* Each level once: a retried take passes its point again. */
	if (strcmp(site, nest_site) != 0 || nest_depth >= nest_max || nest_next > nest_max)
		return;
	nest_depth++;
	w = rec_n(nest_next++);
	ck_assert(trace_ring_write(&ring, &w));
	nest_depth--;
}

/* At the take (between the head's load and its swap) and inside the
 * write: the nested writers finish first and the outer one's event
 * comes after theirs (take) or before them (write), each whole. */
CHECK_LOOP_TEST("nesting", test_interrupt_and_nmi_nest_in_a_write, 0, 2)
{
	struct trace_rec r, got[8];
	unsigned n = 0;

	nest_site = _i ? "trace_ring_write" : "trace_ring_take";
	nest_max = 2;
	nest_next = 1;
	race_hook = nest_write;
	{
		struct trace_rec w = rec_n(0);

		ck_assert(trace_ring_write(&ring, &w));
	}
	race_hook = NULL;
	while (trace_ring_read(&ring, &r) == TRACE_READ_OK)
		got[n++] = r;
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(trace_ring_lost(&ring), 0);
	/* Every event once, each whole. */
	for (uint32_t want = 0; want < 3; want++) {
		unsigned hits = 0;

		for (unsigned k = 0; k < n; k++)
			if (got[k].f0 == want) {
				check_rec(&got[k], want);
				hits++;
			}
		ck_assert_uint_eq(hits, 1);
	}
	/* take: the NMI took its position first, then the interrupt,
	 * then the task; write: the task's position was taken first. */
	if (_i == 0) {
		ck_assert_uint_eq(got[0].f0, 2);
		ck_assert_uint_eq(got[2].f0, 0);
	} else {
		ck_assert_uint_eq(got[0].f0, 0);
	}
}
END_TEST

/* A reader in the middle of a write (another CPU, or the writer's own
 * interrupt) finds it busy, reads nothing torn, and gets it later. */
static enum trace_read mid_read;

static void read_inside(const char *site)
{
	struct trace_rec r;

	if (strcmp(site, "trace_ring_write") == 0)
		mid_read = trace_ring_read(&ring, &r);
}

CHECK_TEST("nesting", test_reader_inside_a_write_sees_busy)
{
	struct trace_rec w = rec_n(9), r;

	race_hook = read_inside;
	ck_assert(trace_ring_write(&ring, &w));
	race_hook = NULL;
	ck_assert_int_eq(mid_read, TRACE_READ_BUSY);
	ck_assert_int_eq(trace_ring_read(&ring, &r), TRACE_READ_OK);
	check_rec(&r, 9);
}
END_TEST

/* Overwrite mode: the writers lap the slot the reader is copying.  The
 * copy is thrown away and counted, never handed out torn. */
static uint32_t lap_next;

static void lap_during_copy(const char *site)
{
	if (strcmp(site, "trace_ring_read") != 0)
		return;
	race_hook = NULL;
	for (unsigned i = 0; i < SLOTS; i++) {
		struct trace_rec w = rec_n(lap_next++);

		ck_assert(trace_ring_write(&ring, &w));
	}
}

CHECK_TEST("nesting", test_overwrite_during_copy_is_counted)
{
	struct trace_rec r;
	uint32_t n = 0, first = 0;

	trace_ring_init(&ring, slots_mem, SLOTS, true);
	for (lap_next = 0; lap_next < 10; lap_next++) {
		struct trace_rec w = rec_n(lap_next);

		ck_assert(trace_ring_write(&ring, &w));
	}
	race_hook = lap_during_copy;
	while (trace_ring_read(&ring, &r) == TRACE_READ_OK) {
		if (n == 0)
			first = r.f0;
		check_rec(&r, first + n);
		n++;
	}
	/* 10 + SLOTS written; the newest SLOTS read, the first 10 lost. */
	ck_assert_uint_eq(first, 10);
	ck_assert_uint_eq(n, SLOTS);
	ck_assert_uint_eq(trace_ring_lost(&ring), 10);
}
END_TEST

/* ---- a reader racing writers: one thread per ring, as CPUs ---- */

#define RACE_RINGS 3
#define RACE_SLOTS 256
#define RACE_EVENTS 200000

static struct trace_ring race_rings[RACE_RINGS];
static struct trace_slot race_mem[RACE_RINGS][RACE_SLOTS];
static bool race_done[RACE_RINGS];

static void *race_writer(void *arg)
{
	unsigned k = (unsigned)(uintptr_t)arg;

	for (uint32_t i = 0; i < RACE_EVENTS; i++) {
		struct trace_rec w = rec_n(i);

		w.pid = (int32_t)k;
		w.ts = i;
		w.f1 = ~i;
		trace_ring_write(&race_rings[k], &w);
	}
	__atomic_store_n(&race_done[k], true, __ATOMIC_RELEASE);
	return NULL;
}

/* Every event read is whole and in order, and once the writers are
 * done read + lost = written, per ring. */
CHECK_LOOP_TEST("race", test_reader_races_writers, 0, 2)
{
	pthread_t th[RACE_RINGS];
	uint64_t got[RACE_RINGS] = { 0 };
	int64_t last[RACE_RINGS];
	bool all_done = false;

	for (unsigned k = 0; k < RACE_RINGS; k++) {
		trace_ring_init(&race_rings[k], race_mem[k], RACE_SLOTS, _i == 1);
		race_done[k] = false;
		last[k] = -1;
	}
	for (unsigned k = 0; k < RACE_RINGS; k++)
		ck_assert_int_eq(pthread_create(&th[k], NULL, race_writer, (void *)(uintptr_t)k), 0);
	while (!all_done) {
		all_done = true;
		for (unsigned k = 0; k < RACE_RINGS; k++) {
			bool done = __atomic_load_n(&race_done[k], __ATOMIC_ACQUIRE);
			struct trace_rec r;
			enum trace_read rr;

			while ((rr = trace_ring_read(&race_rings[k], &r)) == TRACE_READ_OK) {
				ck_assert_int_eq(r.pid, (int32_t)k);
				ck_assert_uint_eq(r.f1, ~r.f0);
				ck_assert_uint_eq(r.ts, r.f0);
				ck_assert_int_gt((int64_t)r.f0, last[k]);
				last[k] = r.f0;
				got[k]++;
			}
			if (!done || rr != TRACE_READ_EMPTY)
				all_done = false;
		}
	}
	for (unsigned k = 0; k < RACE_RINGS; k++) {
		pthread_join(th[k], NULL);
		ck_assert_uint_eq(got[k] + trace_ring_lost(&race_rings[k]), RACE_EVENTS);
		ck_assert_uint_gt(got[k], 0);
	}
}
END_TEST

int main(void)
{
	return check_run(check_suite("trace_ring", setup, 0));
}
