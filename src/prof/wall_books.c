/* SPDX-License-Identifier: BSD-2-Clause */
/* A wall run's drain: the switch hook's records (prof/offcpu.h) taken
 * from the CPUs' rings into each task's stacks by state, and the books
 * of the tasks gone, so that the reaper may free them.  Under the
 * session's drain claim, task context. */
#include "prof/wall_internal.h"

#include "kernel/task.h"
#include "lib/kstring.h"
#include "prof/offcpu.h"

struct wall_task *wall_task_of(struct prof_wall *w, int32_t pid)
{
	for (unsigned i = w->ntasks; i-- > 0;)
		if (w->tasks[i].pid == pid)
			return &w->tasks[i];
	if (w->ntasks == WALL_TASKS)
		return NULL;
	w->tasks[w->ntasks].pid = pid;
	return &w->tasks[w->ntasks++];
}

/* @ns of task @pid in state @s at @frames: the stacks' side of the
 * books (running time goes to the run stacks until the collect splits
 * it). */
void wall_stack(struct prof_wall *w, enum wall_state s, int32_t pid,
		       const uintptr_t *frames, uint32_t n, uint64_t ns, unsigned cpu)
{
	struct wall_task *t;
	struct prof_record r;

	if (!ns)
		return;
	t = wall_task_of(w, pid);
	if (!t)
		return;		/* its books go to other_ns */
	t->stacked[s] += ns;
	r.pid = pid;
	r.nframes = n;
	r.weight = ns;
	kmemcpy(r.frames, frames, n * sizeof(r.frames[0]));
	/* A chain the table has no room for keeps its time in the task's
	 * books; the views count the difference as other. */
	(void)fold_add_cpu(s == WALL_CPU ? &w->run_stacks : &w->fold[s], &r, cpu);
}

const uintptr_t wall_unknown_frame = FOLD_UNKNOWN;

/* A run's time after a tick it held back (offcpu_held_back()): no
 * sample of the task's stands for it, so it is charged where the task
 * left its CPU, and kept out of the split over its samples. */
static void wall_held_back(struct prof_wall *w, const struct offcpu_record *r, unsigned cpu)
{
	struct wall_task *t;
	struct prof_record k;

	if (!r->ns_b)
		return;
	t = wall_task_of(w, r->pid);
	if (!t)
		return;		/* its books go to other_ns */
	t->stacked[WALL_CPU] += r->ns_b;
	t->held_ns += r->ns_b;
	k.pid = r->pid;
	k.nframes = r->nframes ? r->nframes : 1;
	k.weight = r->ns_b;
	if (r->nframes)
		kmemcpy(k.frames, r->frames, r->nframes * sizeof(k.frames[0]));
	else
		k.frames[0] = FOLD_UNKNOWN;
	(void)fold_add_cpu(&w->fold[WALL_CPU], &k, cpu);
}

/* A run record's stack, kept as its task's last: the wait that follows
 * it may say it waits there (OFFCPU_RUN_STACK). */
static void wall_keep_run_stack(struct prof_wall *w, const struct offcpu_record *r)
{
	struct wall_task *t = wall_task_of(w, r->pid);

	if (!t)
		return;		/* its books go to other_ns */
	t->run_walked = true;
	t->run_nframes = r->nframes;
	/* By words: kmemcpy() goes by bytes, and this is every run record. */
	for (uint32_t i = 0; i < r->nframes; i++)
		t->run_frames[i] = r->frames[i];
}

/* A wait's stack: the record's own, or its task's last run record's, or
 * the one the window's start walked, or unknown. */
static void wall_wait_frames(struct prof_wall *w, const struct offcpu_record *r,
			     const uintptr_t **frames, uint32_t *n)
{
	const struct wall_start *e;
	struct wall_task *t;

	*frames = r->frames;
	*n = r->nframes;
	if (r->flags & OFFCPU_RUN_STACK) {
		t = wall_task_of(w, r->pid);
		if (t && t->run_walked) {
			*frames = t->run_frames;
			*n = t->run_nframes;
		} else {
			*frames = &wall_unknown_frame;
			*n = 1;
		}
		return;
	}
	if (!(r->flags & OFFCPU_START_STACK))
		return;
	e = wall_start_of(w, r->pid);
	if (e && e->walked && e->nframes) {
		*frames = e->frames;
		*n = e->nframes;
	} else {
		*frames = &wall_unknown_frame;
		*n = 1;
	}
}

static void wall_take(struct prof_wall *w, const struct offcpu_record *r, unsigned cpu)
{
	const uintptr_t *frames;
	uint32_t n;

	if (r->kind == OFFCPU_RUN) {
		wall_keep_run_stack(w, r);
		wall_stack(w, WALL_CPU, r->pid, r->frames, r->nframes, r->ns_a - r->ns_b, cpu);
		wall_held_back(w, r, cpu);
		return;
	}
	wall_wait_frames(w, r, &frames, &n);
	wall_stack(w, WALL_BLOCKED, r->pid, frames, n, r->ns_a, cpu);
	wall_stack(w, WALL_RUNNABLE, r->pid, frames, n, r->ns_b, cpu);
}

void wall_book(struct prof_wall *w, const struct wall_book *b)
{
	struct wall_task *t = wall_task_of(w, b->pid);
	/* A drain takes the books of tasks gone while the window is open. */
	uint64_t stop = w->stop_ns ? w->stop_ns : UINT64_MAX;

	if (!t) {
		for (unsigned s = 0; s < WALL_STATES; s++)
			w->other_ns += b->ns[s];
		return;
	}
	for (unsigned s = 0; s < WALL_STATES; s++)
		t->ns[s] += b->ns[s];
	if (b->born_ns >= w->start_ns && b->born_ns < stop) {
		t->born = true;
		t->born_ns = b->born_ns;
	}
	if (b->died && b->died_ns >= w->start_ns && b->died_ns <= stop) {
		t->died = true;
		t->died_ns = b->died_ns;
	}
}

void wall_copy_books(struct task *t, void *ctx)
{
	struct wall_books *bk = ctx;
	struct wall_book *b;
	bool dead = t->state == TASK_DEAD && __atomic_load_n(&t->off_cpu, __ATOMIC_ACQUIRE);

	if (t->is_idle || __atomic_load_n(&t->wall.gen, __ATOMIC_ACQUIRE) != bk->w->gen ||
	    (bk->dead_only && !dead))
		return;
	if (bk->n == bk->cap) {
		bk->lost++;
		return;
	}
	b = &bk->b[bk->n++];
	b->pid = t->pid;
	for (unsigned s = 0; s < WALL_STATES; s++)
		b->ns[s] = t->wall.ns[s];
	b->born_ns = t->wall.born_ns;
	b->died = dead;
	b->died_ns = __atomic_load_n(&t->wall.off_ns, __ATOMIC_RELAXED);
	if (dead) {
		/* Taken: never again, and the reaper may have it. */
		__atomic_store_n(&t->wall.gen, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&t->wall.hold, 0, __ATOMIC_RELEASE);
	}
}

/* Take the books of the tasks gone into @w, a few at a time (a drain
 * runs on a task's stack). */
static void wall_take_dead_books(struct prof_wall *w, void (*note)(int pid))
{
	struct wall_book buf[16];
	struct wall_books bk = { w, buf, 0, 16, true, 0 };

	do {
		bk.n = 0;
		bk.lost = 0;
		task_for_each_all(wall_copy_books, &bk);
		for (size_t i = 0; i < bk.n; i++) {
			note(bk.b[i].pid);
			wall_book(w, &bk.b[i]);
		}
		/* Each task taken is let go: a pass that had no room for
		 * all of them goes on with the rest. */
	} while (bk.lost);
}

static void wall_drain_cpu(struct prof_wall *w, unsigned cpu, void (*note)(int pid))
{
	struct offcpu_cpu *oc = &offcpu_cpus[cpu];
	uint64_t tail, head;
	struct offcpu_record r;

	if (!oc->ring)
		return;
	tail = oc->tail;
	head = __atomic_load_n(&oc->head, __ATOMIC_ACQUIRE);
	for (; tail != head; tail++) {
		offcpu_unpack(oc->ring + (tail % OFFCPU_RING_RECORDS) * OFFCPU_STRIDE, &r);
		/* A straggler of an older run. */
		if (r.gen != w->gen)
			continue;
		note(r.pid);
		wall_take(w, &r, cpu);
	}
	/* The slots are the hook's again. */
	__atomic_store_n(&oc->tail, tail, __ATOMIC_RELEASE);
}

void wall_drain_rings(struct prof_wall *w, uint32_t cpus, void (*note)(int pid))
{
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		if ((cpus >> cpu) & 1)
			wall_drain_cpu(w, cpu, note);
}

void wall_drain(struct prof_wall *w, uint32_t cpus, void (*note)(int pid))
{
	/* Nothing is charged before the window opens. */
	if (!w || !w->start_ns)
		return;
	wall_drain_rings(w, cpus, note);
	/* The books of tasks gone, so that the reaper may free them. */
	wall_take_dead_books(w, note);
}
