/* SPDX-License-Identifier: BSD-2-Clause */
/* What the ksim benchmarks share (make bench): the host's clock, the
 * sort for medians, and the machine a benchmark's body runs in. */
#ifndef KPROF_BENCH_RUN_H
#define KPROF_BENCH_RUN_H

#include <stdint.h>

/* The CPU a body runs on: not CPU 0, which takes the console. */
#define BENCH_CPU 1

/* CLOCK_MONOTONIC, ns. */
uint64_t bench_now_ns(void);

/* For qsort() of doubles, ascending. */
int bench_cmp_double(const void *a, const void *b);

/* Boot a 2-CPU ksim machine (its tick at @hz; 0 keeps the default)
 * whose console goes to /dev/null, run @body in a task on BENCH_CPU,
 * and return when it has returned.  Exits the process with status 1
 * when the machine does not start. */
void bench_run(void (*body)(void), unsigned hz);

#endif
