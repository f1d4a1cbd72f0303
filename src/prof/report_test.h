/* SPDX-License-Identifier: BSD-2-Clause */
/* The text report of records a test or a benchmark built itself, with
 * no session: what tests/prof/golden/ pins down. */
#ifndef KPROF_PROF_REPORT_TEST_H
#define KPROF_PROF_REPORT_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/report.h"

/* One CPU's samples of the run. */
struct prof_segment {
	unsigned cpu;
	const struct prof_record *recs;
	size_t count;
	uint64_t dropped;
};

struct prof_report_in {
	uint64_t window_ns;		/* measured, start to stop */
	const char *source;		/* "pmu/nmi intel fixed-ctr1", "tick 100hz" */
	bool counter;			/* the source counts only running CPUs */
	int pid;			/* PROF_PID_ALL or the task to keep */
	unsigned chains;		/* chains to print, 1..PROF_CHAINS_MAX */
	uint32_t missing;		/* CPUs that never acknowledged the stop */
	uint64_t wait_ns;		/* how long the report waited for them */
	uint32_t unarmed;		/* CPUs that never armed: left out */
	uint64_t arm_wait_ns;		/* how long the window waited for them */
	uint64_t errors;		/* the counter failed to arm or disarm */
	uint64_t throttled_hz;		/* the rate a throttled counter fell to, 0 if none */
	unsigned hz;			/* samples per second per CPU; 0: unknown */
	const struct prof_segment *segs;	/* the CPUs that did */
	size_t nsegs;
};

/* Fold @in's samples and print the report.  Returns 0, or -ENOMEM with
 * nothing printed.  Task context (the chain table is on the heap). */
int prof_report_print(struct out *o, const struct prof_report_in *in);

#endif
