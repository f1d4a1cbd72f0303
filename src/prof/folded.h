/* SPDX-License-Identifier: BSD-2-Clause */
/* Folded stacks of a session (prof/folded.c): its fold table re-folded
 * by function, or as sampled, in the folded format. */
#ifndef KPROF_PROF_FOLDED_H
#define KPROF_PROF_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/fold.h"

/* @f's chains of task @pid (PROF_PID_ALL: every task) folded by
 * function into a new table @t: two return addresses in one caller make
 * one frame, and the leaf loses its offsets.  With @by_cpu (from a table
 * that is) each CPU's chains stay apart, else they merge.  Returns 0,
 * or -ENOMEM with nothing to free.  Task context. */
int fold_by_function(struct fold *t, const struct fold *f, int pid,
		     bool by_cpu);

/* Longest frame name a folded line carries; longer ones are cut. */
#define FOLD_NAME_MAX 96

/* The name of the function starting at @fn for a folded line: its
 * symbol's name, the platform's name for foreign code, or the address;
 * never a ';' or a blank. */
void fold_frame_name(char *buf, size_t size, uintptr_t fn);

/* Brendan Gregg's folded stacks of the session @d, task @pid's only
 * unless PROF_PID_ALL, between `# kprof folded begin` and `end` header
 * lines (doc/profiler.md).  Returns 0, or -ENOMEM with nothing printed.
 * Task context. */
struct out;
struct prof_data;
int prof_view_folded(struct out *o, const struct prof_data *d, int pid);
/* A folded line's root frame, "pid-name", as both folded views write
 * it (the wall view too). */
void fold_print_task(struct out *o, const struct prof_data *d, int pid);
/* ";ADDR": a frame of the address views, or the platform's name for
 * code outside the image. */
void fold_print_addr(struct out *o, uintptr_t a);
/* The folded view by address (doc/profiler.md "From the hot function to
 * the hot line"): each frame as sampled, the image's build-id and each
 * chain's weight in ns. */
int prof_view_folded_addr(struct out *o, const struct prof_data *d, int pid);

/* How prof_view_folded_as() writes: frames by address (else by name);
 * each CPU's chains apart, under a root frame `cpuN` (else merged);
 * each line's weight in ns after its count, `# weight=ns` (the address
 * view always has them; the by-name view only when asked, for its
 * plain form is what flamegraph.pl and inferno read, and they would
 * take a weight for the count). */
#define FOLD_VIEW_ADDR 1u
#define FOLD_VIEW_CPUS 2u
#define FOLD_VIEW_WEIGHT 4u
/* A wall view's: kprof's own service tasks shown too (prof/wall.h). */
#define FOLD_VIEW_SERVICES 8u
/* The frame a folded line carries where its chain met the session's
 * depth: callers beyond it, if there were any, were not kept.  (The
 * record does not say whether the walk had more to give, so a chain
 * exactly that deep is marked too.)  A name no function has: brackets. */
#define FOLD_TRUNCATED "[truncated]"
/* Either folded view, by CPU where @how says so (`profile show folded
 * [addr] [cpus]`).  Returns as prof_view_folded(). */
int prof_view_folded_as(struct out *o, const struct prof_data *d, int pid,
			unsigned how);

/* The header of that view of @d, task @pid's: a caller that adds keys
 * (`profile rotate`'s interval) fills it, adds them, and writes the view
 * with prof_view_folded_with(). */
struct folded_head;
void prof_folded_head(struct folded_head *h, const struct prof_data *d,
		      int pid, unsigned how);
/* The view @how of @d, task @pid's, under header @h.  Returns as
 * prof_view_folded(). */
int prof_view_folded_with(struct out *o, const struct prof_data *d, int pid,
			  unsigned how, const struct folded_head *h);

/* `profile rotate SEQ [addr]`: interval @seq's data @d (its task
 * d->pid's) in view @how, its header saying which interval and its span
 * on the kernel's clock, and the image's build-id in either view.
 * Returns as prof_view_folded(). */
int prof_view_interval(struct out *o, const struct prof_data *d, unsigned how,
		       uint64_t seq, uint64_t start_ns, uint64_t end_ns);
/* The header prof_view_interval() writes. */
void prof_interval_head(struct folded_head *h, const struct prof_data *d,
			unsigned how, uint64_t seq, uint64_t start_ns,
			uint64_t end_ns);

#endif
