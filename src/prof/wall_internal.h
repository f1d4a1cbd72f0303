/* SPDX-License-Identifier: BSD-2-Clause */
/* What the files of a wall run share (prof/wall.h is the session's
 * side): wall.c the run's life and its grace periods, wall_start.c the
 * window's start, wall_books.c the drain into the books and stacks,
 * wall_collect.c the collect at the window's end.  Private to them. */
#ifndef KPROF_PROF_WALL_INTERNAL_H
#define KPROF_PROF_WALL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/profiler.h"
#include "prof/wall.h"

struct task;

/* A task off its CPU at the window's start, and the stack it waits at. */
struct wall_start {
	int32_t pid;
	bool on_cpu;
	bool blocked;			/* off and not woken */
	bool walked;			/* else its stack is unknown */
	uint64_t wake_ns;		/* its last wake then */
	uint32_t nframes;
	uintptr_t frames[PROF_MAX_FRAMES];
};

#define WALL_STARTS (2 * WALL_TASKS)

/* A task's books as its slot kept them, and its birth and exit. */
struct wall_book {
	int32_t pid;
	uint64_t ns[WALL_STATES];
	uint64_t born_ns, died_ns;
	bool died;
};

/* Books copied under the task list lock, charged after it. */
struct wall_books {
	const struct prof_wall *w;
	struct wall_book *b;
	size_t n, cap;
	bool dead_only;		/* a drain: the tasks gone, whose books are final */
	uint64_t lost;
};

/* ---- wall.c ---- */

/* Wait until every CPU inside the switch hook now has left it. */
void wall_grace(struct prof_wall *w);

/* The hook away, after a grace period, and every task it held for the
 * books let go. */
void wall_unregister(struct prof_wall *w);

/* ---- wall_start.c ---- */

/* wall_walk_waiting(): @t runs or was picked to, or its switch-out is
 * still saving it (a few instructions: ask again). */
#define WALL_WALK_ON_CPU (-1)
#define WALL_WALK_LEAVING (-2)

/* @t's stack, walked from another CPU through its saved context into
 * @out (@depth frames at most), its CPU kept from picking it meanwhile:
 * the count, or WALL_WALK_ON_CPU, WALL_WALK_LEAVING.  Task context, the
 * task list lock allowed. */
int wall_walk_waiting(struct task *t, uintptr_t *out, unsigned depth);

/* For task_for_each() at the window's start (@ctx: the run): a task
 * off its CPU since before the hook's first switch of it, and the stack
 * it waits at, into w->starts. */
void wall_walk_start(struct task *t, void *ctx);

/* The start's entry of task @pid, or NULL. */
const struct wall_start *wall_start_of(const struct prof_wall *w, int32_t pid);

/* ---- wall_books.c ---- */

/* FOLD_UNKNOWN as a one-frame chain. */
extern const uintptr_t wall_unknown_frame;

/* Task @pid's books, made at its first sight; NULL past WALL_TASKS. */
struct wall_task *wall_task_of(struct prof_wall *w, int32_t pid);

/* @ns of task @pid in state @s at @frames, into the stacks' side of the
 * books. */
void wall_stack(struct prof_wall *w, enum wall_state s, int32_t pid,
		const uintptr_t *frames, uint32_t n, uint64_t ns, unsigned cpu);

/* A task's books into @w. */
void wall_book(struct prof_wall *w, const struct wall_book *b);

/* For task_for_each_all() (@ctx: struct wall_books): copy a task's
 * books. */
void wall_copy_books(struct task *t, void *ctx);

/* Take what CPUs @cpus' rings hold. */
void wall_drain_rings(struct prof_wall *w, uint32_t cpus, void (*note)(int pid));

#endif
