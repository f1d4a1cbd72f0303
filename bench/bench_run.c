/* SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE
#include "bench_run.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "kernel/sched.h"
#include "kernel/task.h"
#include "sim/ksim.h"

static void (*bench_body)(void);
static volatile bool bench_done;

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The body, then asleep for good: the machine is never stopped, the
 * process exits under it. */
static void bench_task(void *arg)
{
	(void)arg;
	bench_body();
	__atomic_store_n(&bench_done, true, __ATOMIC_RELEASE);
	for (;;)
		sched_sleep_ms(1000);
}

static void bench_start(void)
{
	if (!task_create("bench", bench_task, NULL, BENCH_CPU))
		abort();
}

void bench_run(void (*body)(void), unsigned hz)
{
	struct ksim_config cfg;

	bench_body = body;
	ksim_config_defaults(&cfg);
	cfg.cpus = 2;
	if (hz)
		cfg.hz = hz;
	cfg.late_init = bench_start;
	cfg.out_fd = open("/dev/null", O_WRONLY);
	if (ksim_start(&cfg) != 0)
		exit(1);
	while (!__atomic_load_n(&bench_done, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, 10000000 };

		nanosleep(&ts, NULL);
	}
}
