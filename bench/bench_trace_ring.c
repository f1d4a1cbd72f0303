/* SPDX-License-Identifier: BSD-2-Clause */
/* The trace ring's rate on this host (src/kernel/trace_ring.c): events
 * a second one writer puts into its ring alone (overwrite mode, no
 * reader), then with a reader draining it on another thread (stop mode,
 * so every event is read or counted lost).  One writer is one CPU: a
 * ring has one.  Figures only (doc/performance.md). */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernel/trace_ring.h"

#define SLOTS 8192		/* 256 KB, the default buffer= */
#define EVENTS 20000000ull

static struct trace_slot mem[SLOTS];
static struct trace_ring ring;
static bool done;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double write_all(void)
{
	struct trace_rec r = { .id = 1, .pid = 7 };
	double t0 = now_s();

	for (uint64_t i = 0; i < EVENTS; i++) {
		r.ts = i;
		r.f0 = (uint32_t)i;
		trace_ring_write(&ring, &r);
	}
	return now_s() - t0;
}

static void *reader(void *arg)
{
	uint64_t *got = arg;
	struct trace_rec r;

	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE) || trace_ring_pending(&ring))
		if (trace_ring_read(&ring, &r) == TRACE_READ_OK)
			(*got)++;
	return NULL;
}

/* Fill the ring, drain it, again: the reader's own cost, on one thread. */
static double read_alone(void)
{
	struct trace_rec r = { .id = 1 };
	double spent = 0;

	trace_ring_init(&ring, mem, SLOTS, false);
	for (uint64_t done_n = 0; done_n < EVENTS; done_n += SLOTS) {
		double t0;

		for (unsigned i = 0; i < SLOTS; i++)
			trace_ring_write(&ring, &r);
		t0 = now_s();
		while (trace_ring_read(&ring, &r) == TRACE_READ_OK)
			;
		spent += now_s() - t0;
	}
	return spent;
}

int main(void)
{
	pthread_t th;
	uint64_t got = 0;
	double s;

	trace_ring_init(&ring, mem, SLOTS, true);
	s = write_all();
	printf("trace ring, one writer, no reader (overwrite): %.1f M events/s (%.1f ns an event)\n",
	       EVENTS / s / 1e6, s * 1e9 / EVENTS);
	s = read_alone();
	printf("trace ring, the reader alone (fill, then drain): %.1f M events/s (%.1f ns an event)\n",
	       EVENTS / s / 1e6, s * 1e9 / EVENTS);
	trace_ring_init(&ring, mem, SLOTS, false);
	pthread_create(&th, NULL, reader, &got);
	s = write_all();
	__atomic_store_n(&done, true, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	printf("trace ring, one writer, a reader draining (stop): %.1f M events/s offered, "
	       "%.1f M/s read; %llu read, %llu lost (%.1f%%)\n", EVENTS / s / 1e6,
	       (double)got / s / 1e6, (unsigned long long)got,
	       (unsigned long long)trace_ring_lost(&ring),
	       100.0 * (double)trace_ring_lost(&ring) / EVENTS);
	return 0;
}
