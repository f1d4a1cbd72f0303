/* SPDX-License-Identifier: BSD-2-Clause */
/* A wall-clock profile's books (`profile ... wall`): every nanosecond
 * of every task's time alive in the window, charged to running,
 * runnable or blocked with the stack it ran or waited at.  Filled from
 * the switch hook's records (prof/offcpu.h) by the session's drain,
 * closed by its collect; read by the wall views.  Task context. */
#ifndef KPROF_PROF_WALL_H
#define KPROF_PROF_WALL_H

#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "prof/fold.h"

struct out;
struct prof_data;

enum wall_state { WALL_CPU, WALL_RUNNABLE, WALL_BLOCKED, WALL_STATES };

/* Tasks a wall profile keeps books for; time of tasks past these is
 * counted in other_ns. */
#define WALL_TASKS 64

struct wall_task {
	int32_t pid;
	uint64_t ns[WALL_STATES];	/* clipped to the window */
	bool born, died;		/* inside the window */
	uint64_t born_ns, died_ns;
};

struct prof_wall {
	unsigned gen;
	uint32_t cpus;			/* the run's, whose rings it drains */
	uint64_t start_ns, stop_ns;	/* the window; stop 0 while open */
	uint64_t dropped;		/* switch records lost to a full ring */
	uint64_t dropped0[HAL_MAX_CPUS];	/* each ring's count at the start */
	uint64_t other_ns;		/* of tasks past WALL_TASKS */
	/* Chains by state, weights in ns, leaves by function.  The cpu
	 * table is made at the collect: each task's running time split
	 * over its sampled chains by their weight. */
	struct fold fold[WALL_STATES];
	/* Running intervals by the stack the task left its CPU with: a
	 * task with no sample in the window is charged there. */
	struct fold run_stacks;
	unsigned ntasks;
	struct wall_task tasks[WALL_TASKS];
	bool incomplete;	/* the collect ran out of memory */
	uint64_t open_lost;	/* tasks past the collect's room: their waits
				 * open at the end are left out */
};

/* The names of the states, as the views print them. */
const char *wall_state_name(enum wall_state s);

/* A new wall run @gen walking @depth frames on CPUs @cpus: allocate the
 * rings (once, never freed) and the books.  Returns NULL when out of
 * memory.  The session's holder, before the run's generation. */
struct prof_wall *wall_begin(unsigned gen, unsigned depth, uint32_t cpus);

/* The window opened at @start_ns: records from now on are charged. */
void wall_open(struct prof_wall *w, uint64_t start_ns);

/* The window closed at @stop_ns: no switch after it writes a record of
 * an interval that began after it. */
void wall_close(struct prof_wall *w, uint64_t stop_ns);

/* Take what CPUs @cpus wrote since the last drain; @note(@pid) is told
 * each task seen (the session keeps its name).  Under the session's
 * drain claim. */
void wall_drain(struct prof_wall *w, uint32_t cpus, void (*note)(int pid));

/* After the last drain: charge each task's interval the window's end
 * cut, take what the switches wrote meanwhile, split running time over
 * the session's sampled chains of @d, and stop the switches writing
 * records.  Under the session's drain claim.  Returns 0 or -ENOMEM. */
int wall_collect(struct prof_wall *w, const struct prof_data *d,
		 void (*note)(int pid));

void wall_free(struct prof_wall *w);

/* The views of a wall session (`profile show text|tasks|folded`). */
int prof_view_wall_text(struct out *o, const struct prof_data *d, int pid,
			unsigned chains);
int prof_view_wall_tasks(struct out *o, const struct prof_data *d);
int prof_view_wall_folded(struct out *o, const struct prof_data *d, int pid);

/* A wall task's time alive in the window (books: the sum of its
 * states). */
uint64_t wall_task_ns(const struct wall_task *t);

#endif
