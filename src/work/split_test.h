/* SPDX-License-Identifier: BSD-2-Clause */
/* The `split` workload's insides, for tests: three call chains in a
 * known proportion, each measuring its own share of the sampled
 * quantity, so a test can hold a profile against the truth.  The rest
 * of the tree knows the workload only as work_split (work.h). */
#ifndef KPROF_WORK_SPLIT_TEST_H
#define KPROF_WORK_SPLIT_TEST_H

#include <stdint.h>

#include "hal/cpu.h"

#define SPLIT_CHAINS 3
#define SPLIT_SEED 0x6b70726f66ull	/* "kprof" */

/* Relative weight of each chain's slices: 5:3:2, so 50/30/20 on average. */
extern const unsigned split_weight[SPLIT_CHAINS];
/* The leaf function each chain spends its time in, as the report names it. */
extern const char *const split_leaf_name[SPLIT_CHAINS];

struct split_rng {
	uint64_t state;
};

void split_rng_seed(struct split_rng *r, uint64_t seed);
uint64_t split_rng_next(struct split_rng *r);

/* Length of the next slice of @chain in microseconds: a pseudo-random
 * length scaled by the chain's weight, never a multiple of the tick
 * period, so slices cannot stay in step with the tick. */
uint32_t split_slice_us(struct split_rng *r, unsigned chain);

/* The time each chain has taken so far in hal_cpu_time() units, summed
 * over the workload's tasks. */
void split_truth(uint64_t out[SPLIT_CHAINS]);

/* Calls of each leaf by one task (the probes' truth, issue 59), with
 * their wall-clock ns summed as the caller measured around the call. */
#define SPLIT_CALL_TASKS (HAL_MAX_CPUS + 1)
#define SPLIT_CALL_CALIBRATION HAL_MAX_CPUS	/* the entry of begin's caller */

struct split_calls {
	int pid;
	uint64_t n[SPLIT_CHAINS];
	uint64_t ns[SPLIT_CHAINS];
};

/* Every entry, since the last start: entry i < HAL_MAX_CPUS is the task
 * on CPU i, the last one the task that ran the calibration (3 calls of
 * each leaf). */
void split_calls_read(struct split_calls out[SPLIT_CALL_TASKS]);

#endif
