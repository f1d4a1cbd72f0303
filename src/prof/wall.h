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
	uint64_t ns[WALL_STATES];	/* the books, clipped to the window */
	uint64_t stacked[WALL_STATES];	/* of which the records gave a stack */
	uint64_t held_ns;		/* of the cpu time, charged at switch-outs
					 * after a held-back tick (wall_books.c) */
	bool born, died;		/* inside the window */
	uint64_t born_ns, died_ns;
	/* The stack of the task's last run record drained: its next wait's
	 * when that record says so (OFFCPU_RUN_STACK, wall_books.c). */
	bool run_walked;
	uint32_t run_nframes;
	uintptr_t run_frames[PROF_MAX_FRAMES];
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
	/* The stacks of the tasks off their CPU at the window's start,
	 * walked through their saved contexts (wall_open()). */
	struct wall_start *starts;
	unsigned nstarts;
	uint32_t grace_missed;	/* CPUs that never left the hook in a grace period */
	bool incomplete;	/* the collect ran out of memory */
	uint64_t open_lost;	/* tasks past the collect's room: their waits
				 * open at the end are left out */
};

/* The names of the states, as the views print them. */
const char *wall_state_name(enum wall_state s);

/* A new wall run @gen walking @depth frames on CPUs @cpus: allocate the
 * rings (once, never freed) and the books, and register the switch
 * hook.  Returns NULL when out of memory.  The session's holder, before
 * the run's generation. */
struct prof_wall *wall_begin(unsigned gen, unsigned depth, uint32_t cpus);

/* Open the window now: walk the stacks of the tasks waiting already,
 * then take the clock.  Returns the window's start; intervals from then
 * on are charged.  Task context. */
uint64_t wall_open(struct prof_wall *w);

/* Close the window now: returns its end (the start too, when it never
 * opened).  No switch charges past it.  Any context. */
uint64_t wall_close(struct prof_wall *w);

/* Take what CPUs @cpus wrote since the last drain; @note(@pid) is told
 * each task seen (the session keeps its name).  Under the session's
 * drain claim. */
void wall_drain(struct prof_wall *w, uint32_t cpus, void (*note)(int pid));

/* After the last drain: charge each task's interval the window's end
 * cut, take every task's books and what the switches wrote meanwhile,
 * charge time no record gave a stack to "[unknown stack]", split
 * running time over the session's sampled chains of @d, and take the
 * switch hook away.  Under the session's drain claim, task context
 * (it waits for the other CPUs to leave the hook).  Returns 0 or
 * -ENOMEM. */
int wall_collect(struct prof_wall *w, const struct prof_data *d,
		 void (*note)(int pid));

/* Free @w; a run never collected takes the hook away first.  Task
 * context. */
void wall_free(struct prof_wall *w);

/* The views of a wall session (`profile show text|tasks|folded`). */
/* Each leaves out kprof's service tasks (shell, udpsh, profd, netrx:
 * they wait for input all the time) but where @how has
 * FOLD_VIEW_SERVICES or @pid names one, and says how much it left out. */
int prof_view_wall_text(struct out *o, const struct prof_data *d, int pid,
			unsigned chains, unsigned how);
int prof_view_wall_tasks(struct out *o, const struct prof_data *d,
			 unsigned how);
int prof_view_wall_folded(struct out *o, const struct prof_data *d, int pid);
/* By name, or by address (FOLD_VIEW_ADDR: `# frames=addr`, the image's
 * build-id; each leaf a function's start, each caller its return
 * address), chains cut at the depth marked `[truncated]`. */
int prof_view_wall_folded_as(struct out *o, const struct prof_data *d, int pid,
			     unsigned how);
/* The header prof_view_wall_folded_as() writes for task @pid. */
struct folded_head;
void prof_wall_folded_head(struct folded_head *h, const struct prof_data *d,
			   int pid, unsigned how);

/* A wall task's time alive in the window (books: the sum of its
 * states). */
uint64_t wall_task_ns(const struct wall_task *t);

#endif
