/* SPDX-License-Identifier: BSD-2-Clause */
/* A wall run's window start: the tasks already off their CPU when the
 * hook was registered have no switch-out to tell their stacks, so each
 * is walked through its saved context while its CPU cannot pick it
 * (sched_call_parked()), at the depth the run asked.  Task context,
 * under the task list lock. */
#include "prof/wall_internal.h"

#include "hal/context.h"
#include "kernel/sched.h"
#include "kernel/stacktrace.h"
#include "kernel/task.h"
#include "prof/offcpu.h"

/* The walk offcpu_walk_leaving() made at @t's switch-out, made now from
 * the state the scheduler kept (task->wall.off_why) inside the stack
 * its saved context says is live. */
static size_t wall_walk_saved_raw(const struct task *t, uintptr_t *out, unsigned depth)
{
	struct hal_context_regs r;
	struct stack_bounds b = { t->stack_lo, t->stack_hi };
	const struct trap_frame *trap = task_off_trap(t->wall.off_why);
	uintptr_t tf = (uintptr_t)trap, fp;
	size_t n;

	hal_context_saved_regs(t->ctx, &r);
	if (r.sp < b.lo || r.sp >= b.hi)
		return 0;
	/* Nothing below the saved stack pointer is a live frame. */
	b.lo = r.sp;
	fp = task_off_frame(t->wall.off_why, b.lo, b.hi);
	if (tf)
		return tf >= b.lo && tf < b.hi
			       ? stacktrace_from_trap_on(trap, &b, out, depth) : 0;
	if (fp >= b.lo && fp < b.hi) {
		n = stacktrace_from_fp(fp, &b, out, depth);
		if (n)
			out[0] -= 1;	/* the call, as offcpu_walk_leaving() */
		return n;
	}
	/* No scheduler call recorded: the chain the saved frame starts. */
	out[0] = r.pc;
	return 1 + (depth > 1 ? stacktrace_from_fp(r.fp, &b, out + 1, depth - 1) : 0);
}

/* The same with a timed probe's return trampoline read as the real
 * return address (@t's shadow stack). */
static size_t wall_walk_saved(const struct task *t, uintptr_t *out, unsigned depth)
{
	size_t n = wall_walk_saved_raw(t, out, depth);

	stacktrace_probe_fix(t, out, n);
	return n;
}

struct wall_waiting {
	uintptr_t *out;
	unsigned depth;
	size_t n;
};

static void wall_walk_parked(struct task *t, void *arg)
{
	struct wall_waiting *wt = arg;

	wt->n = t->ctx ? wall_walk_saved(t, wt->out, wt->depth) : 0;
}

int wall_walk_waiting(struct task *t, uintptr_t *out, unsigned depth)
{
	struct wall_waiting wt = { out, depth > PROF_MAX_FRAMES ? PROF_MAX_FRAMES : depth, 0 };

	if (!wt.depth)
		return 0;
	/* Its CPU cannot pick it while the walk reads its stack. */
	switch (sched_call_parked(t, wall_walk_parked, &wt)) {
	case SCHED_PARKED:
		return (int)wt.n;
	case SCHED_LEAVING:
		return WALL_WALK_LEAVING;
	case SCHED_ON_CPU:
	default:
		return WALL_WALK_ON_CPU;
	}
}

/* Under the task list lock: a task off its CPU since before the hook's
 * first switch of it, and the stack it waits at, walked while its CPU
 * cannot pick it (wall_walk_waiting()). */
void wall_walk_start(struct task *t, void *ctx)
{
	struct prof_wall *w = ctx;
	struct wall_start *e;
	unsigned spins = 0;
	int n;

	if (t->is_idle || t->state == TASK_DEAD ||
	    __atomic_load_n(&t->wall.gen, __ATOMIC_ACQUIRE) == w->gen)
		return;		/* the hook has its stamps */
	if (!__atomic_load_n(&t->wall.started, __ATOMIC_ACQUIRE) && t->state != TASK_RUNNING)
		return;		/* never ran: it waits at its entry */
	if (w->nstarts == WALL_STARTS)
		return;
	e = &w->starts[w->nstarts++];
	e->pid = t->pid;
	e->on_cpu = false;
	e->walked = false;
	e->nframes = 0;
	e->blocked = t->state == TASK_SLEEPING || t->state == TASK_BLOCKED;
	e->wake_ns = __atomic_load_n(&t->wall.wake_ns, __ATOMIC_RELAXED);
	/* Leaving its CPU right now: its switch-out is a few instructions. */
	while ((n = wall_walk_waiting(t, e->frames,
				      __atomic_load_n(&offcpu_depth, __ATOMIC_RELAXED))) ==
		       WALL_WALK_LEAVING && spins++ < 100000)
		hal_cpu_relax();
	if (n < 0) {
		/* Running (or still leaving): its interval is open. */
		e->on_cpu = true;
		return;
	}
	e->nframes = (uint32_t)n;
	e->walked = true;
}

const struct wall_start *wall_start_of(const struct prof_wall *w, int32_t pid)
{
	for (unsigned i = 0; i < w->nstarts; i++)
		if (w->starts[i].pid == pid)
			return &w->starts[i];
	return NULL;
}
