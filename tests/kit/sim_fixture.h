/* SPDX-License-Identifier: BSD-2-Clause */
/* Driving an in-process ksim from a Check test: start the machine with
 * its console on a pipe, collect what it prints, type lines, wait for
 * the prompt.  Everything here runs in the test's (forked) process and
 * outside the simulated CPUs. */
#ifndef KPROF_TESTS_SIM_FIXTURE_H
#define KPROF_TESTS_SIM_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/ksim.h"

/* Start a machine with @cfg (its out_fd is replaced by the fixture's
 * pipe); fails the test when it cannot start.  Waits for the first
 * prompt unless the config runs commands (-c). */
void simfx_start(struct ksim_config *cfg);

/* Everything the console printed so far, NUL-terminated; the pointer
 * stays valid until the next simfx_* call. */
const char *simfx_output(void);

/* Wait up to @timeout_ms for the console output after byte @from to
 * contain @needle; returns its offset, or -1. */
long simfx_wait_for(size_t from, const char *needle, unsigned timeout_ms);

/* Type @line and a newline, and wait up to @timeout_ms for the prompt
 * that follows the command's output.  Returns that output (prompt
 * excluded) in a buffer the caller frees, or NULL on timeout. */
char *simfx_run(const char *line, unsigned timeout_ms);

/* Wait up to @timeout_ms for the output to end with the prompt. */
bool simfx_wait_prompt(unsigned timeout_ms);

/* Wait up to @timeout_ms for @cond(ctx), polling; true when it held. */
bool simfx_poll(bool (*cond)(void *ctx), void *ctx, unsigned timeout_ms);

/* Wait up to @timeout_ms for all @n flags to be set (each stored with
 * __ATOMIC_RELEASE by a simulated CPU); true when they were. */
bool simfx_wait_flags(volatile bool *flags, unsigned n, unsigned timeout_ms);

/* Sum of every CPU's counters. */
void simfx_stats_total(struct ksim_cpu_stats *sum);

/* Reports of `split` pooled over several profiles, and its truth. */
#define SIMFX_SPLIT_CHAINS 3
struct simfx_split {
	unsigned long leaf[SIMFX_SPLIT_CHAINS];	  /* frame 0 in split_leaf_x */
	unsigned long caller_ok[SIMFX_SPLIT_CHAINS]; /* ... first "<-" is split_chain_x */
	unsigned long total;		/* samples the reports covered */
	unsigned long hidden;		/* in chains the reports left out */
	unsigned long records;		/* every record of those runs */
	unsigned long handler_entry;	/* ... with frame 0 at a handler's entry */
	unsigned profiles;
	double truth[SIMFX_SPLIT_CHAINS];	/* percent, from `work stop` */
	bool have_truth;
};

/* Add one report (the output of `profile ... all 128`) to @sp. */
void simfx_split_add(struct simfx_split *sp, const char *report);
/* Read "split truth: split_leaf_a P% ..." out of `work stop`'s output. */
void simfx_split_truth(struct simfx_split *sp, const char *out);
unsigned long simfx_split_leaves(const struct simfx_split *sp);

/* Records of the last run (all CPUs) whose frame 0 is the first
 * instruction of one of ksim's signal handlers; *total counts them all. */
unsigned long simfx_handler_entry_samples(unsigned long *total);

/* Fails the test when a report line's frame is a bare address, or when
 * a chain shorter than PROF_MAX_FRAMES ends in host code rather than at
 * a task's entry function. */
void simfx_assert_chains_end_in_image(const char *report);

/* Percent of a report's samples in chains whose leaf is @leaf. */
double simfx_leaf_share(const char *report, const char *leaf);

/* On a started machine of at least 2 CPUs: `test irqsoff 1 1700 200`,
 * then `profile 2000 all 128`, whose header must name @want_source;
 * again until the windows hold enough samples.  Returns the percent of
 * their samples with frame 0 in irqsoff_spin. */
double simfx_irqsoff_share(const char *want_source);

/* End to end on a started machine: `split` on every CPU, profiles of
 * 2000 ms (each must name @source and every CPU) pooled until they hold
 * at least @min_samples leaf samples (at most @max_profiles), then the
 * truth.  Asserts the pool holds enough leaf samples that @tolerance is
 * five standard deviations of a share (the counter samples CPU time,
 * which a starved host gives less of: fewer than @min_samples is not a
 * fault), each leaf's share of the leaf samples is within @tolerance
 * points of the truth, and that each leaf's immediate caller
 * is the first "<-" line in >= 99% of its samples, that no report line is
 * a bare address and every chain ends in the image, and that no record has frame 0 at a signal handler's
 * entry. */
void simfx_profile_split(const char *source, unsigned long min_samples,
			 unsigned max_profiles, double tolerance,
			 struct simfx_split *sp);

/* True when perf_event_open gives this thread a task-clock counter,
 * counting kernel time too when @with_kernel. */
bool simfx_perf_available(bool with_kernel);

#endif
