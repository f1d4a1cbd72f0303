/* SPDX-License-Identifier: BSD-2-Clause */
/* The profile report: header, chains, and why a report is empty
 * (doc/profiler.md, "Reading the report").  Separate from the
 * sampler so that tests print reports from records they build
 * (report_test.h). */
#ifndef KPROF_PROF_REPORT_H
#define KPROF_PROF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "prof/fold.h"
#include "prof/profiler.h"
#include "prof/prof_data.h"

struct out;

/* The views (`profile show ...`), each a whole text ending in a newline.
 * They return 0, or -ENOMEM with nothing printed.  Task context. */
int prof_view_text(struct out *o, const struct prof_data *d, int pid,
		   unsigned chains);
/* prof_view_folded() and prof_view_folded_addr(): prof/folded.h. */
int prof_view_cpus(struct out *o, const struct prof_data *d);
int prof_view_tasks(struct out *o, const struct prof_data *d);
int prof_view_top(struct out *o, const struct prof_data *d, int pid,
		  unsigned n);

/* "31.2%": @part of @whole in tenths of a percent, rounded half up. */
void prof_print_percent(struct out *o, uint64_t part, uint64_t whole);

/* How many CPUs @mask names. */
unsigned prof_cpu_count(uint32_t mask);

/* The window measured, in milliseconds, rounded. */
uint64_t prof_window_ms(const struct prof_data *d);

/* "profiled N ms": the first line of every view but the folded one. */
void prof_print_window(struct out *o, const struct prof_data *d);

/* The views' first two lines: the window, then the samples, CPUs, drops
 * and source, as the text report prints them for every task. */
void prof_print_head(struct out *o, const struct prof_data *d);

/* The name the session noted for @pid, or "?". */
const char *prof_data_task_name(const struct prof_data *d, int pid);

#endif
