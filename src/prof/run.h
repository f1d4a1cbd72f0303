/* SPDX-License-Identifier: BSD-2-Clause */
/* The session's run and its data, shared by the two halves of the
 * profiler: the session (prof/profiler.c: start, arm, stop, waits) and
 * the drain (prof/drain.c: rings into the fold table, the books, the
 * intervals).  Nothing else includes this. */
#ifndef KPROF_PROF_RUN_H
#define KPROF_PROF_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "prof/prof_data.h"

/* The session's run: only the session's holder writes these. */
struct prof_run {
	unsigned gen;
	uint32_t cpus, missing, unarmed;
	uint64_t start_ns, stop_ns, wait_ns, arm_wait_ns;
	unsigned hz;
};
extern struct prof_run prof_run;

/* The session's folded data; the run it is filling (0: none), and the
 * run whose books are closed.  Changed under the drain claim only. */
extern struct prof_data prof_data;
extern unsigned prof_data_gen, prof_collected_gen;
/* A rotating session's open interval (session.c), folded into beside
 * prof_data; NULL when none.  Changed under the drain claim only. */
extern struct prof_data *prof_open_interval;

/* The drain claim guards prof_data and the books: a drain reads which
 * run they are for only once it holds the claim, and the session's
 * holder closes them (prof_collect()) or frees them for the next run
 * (prof_start_as()) only while it holds it.  Task context. */
void prof_drain_wait_claim(void);
void prof_drain_release(void);

#endif
