/* SPDX-License-Identifier: BSD-2-Clause */
/* Tasks: the unit the scheduler runs and the profiler charges samples to.
 * Every task is pinned to the CPU it was created on. */
#ifndef KPROF_KERNEL_TASK_H
#define KPROF_KERNEL_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/mem.h"

struct out;
struct trap_frame;

#define TASK_NAME_MAX 16
/* AddressSanitizer's redzones about double a frame (the shell's
 * commands reach 12-14 KB of 16 under it, 7 KB without), and the
 * simulator's tick lands on the task's stack: sanitized builds double
 * the stack, as Linux does under KASAN (KASAN_STACK_ORDER). */
#if defined(__SANITIZE_ADDRESS__)
#define TASK_STACK_SCALE 2
#else
#define TASK_STACK_SCALE 1
#endif
#define TASK_STACK_SIZE (TASK_STACK_SCALE * 16 * 1024)
/* A task stack's pages: the stack, and one guard page below it. */
#define TASK_STACK_PAGES (TASK_STACK_SIZE / HAL_PAGE_SIZE + 1)
/* Painted into a new stack so `stacks` can find the deepest use. */
#define TASK_STACK_PAINT 0x6b
/* Frames of the stack a task last left its CPU with (off-CPU profiling):
 * the deepest a profile walks. */
#define TASK_OFF_FRAMES 32

enum task_state {
	TASK_RUNNING,		/* on its CPU now */
	TASK_RUNNABLE,		/* on its CPU's run queue */
	TASK_SLEEPING,		/* until wake_at_ns */
	TASK_BLOCKED,		/* until sched_wake() */
	TASK_DEAD,		/* exited; freed once off its CPU */
};

/* Off-CPU and wall-clock profiling's state of one task (prof/offcpu.c,
 * prof/wall*.c), and who writes each field.  The scheduler keeps the
 * first group for every task, profiled or not; the rest is written
 * only while a wall run is on.  A task the hook has not switched in
 * the current run (@gen is another's) is taken from the walk of its
 * saved context at the window's start instead (prof/wall_start.c). */
struct task_wall {
	/* The scheduler (kernel/sched.c). */
	/* Why it last gave up its CPU, stored at every switch-out on its
	 * own CPU, one word (task_off_trap(), task_off_frame()): the frame
	 * of schedule() inside the scheduler call it made, or the address
	 * of the preempted state (on its own stack, valid while it is off)
	 * with TASK_OFF_TRAP set; 0 for neither.  Its stack can then be walked
	 * while it waits (sched_call_parked()). */
	uintptr_t off_why;
	/* It has run: set once, by its first instructions
	 * (task_trampoline()). */
	bool started;
	/* When it was created and when it last became runnable: stamped
	 * under its CPU's run-queue lock (sched_enqueue_new(),
	 * sched_wake(), sched_tick()).  sched_enqueue_new() also sets
	 * off_ns to its birth. */
	uint64_t born_ns, wake_ns;

	/* The wall run's switch hook (prof/offcpu.c), on the task's own CPU
	 * with interrupts off, registered only while a wall run is on. */
	uint64_t in_ns, off_ns;	/* when it last came on and went off its CPU */
	bool on_cpu;		/* between a switch-in and a switch-out */
	/* The wall run @gen's books of this task: nanoseconds in each
	 * state (running, runnable, blocked) inside the window, added at
	 * each of its switches.  The collect (prof/wall_books.c) zeroes @gen
	 * once it has taken a dead task's books. */
	unsigned gen;
	uint64_t ns[3];
	/* The stack it last went off its CPU with. */
	uint32_t off_nframes;
	uintptr_t off_frames[TASK_OFF_FRAMES];

	/* Both the hook and the session. */
	/* The wall run whose end its interval crossed: claimed once, by a
	 * compare-and-swap of the hook or of the collect, whichever comes
	 * first (offcpu_claim_crossing()). */
	unsigned crossed;
	/* A wall run that has yet to take the books of this dead task: set
	 * by the hook at its last switch-out, cleared by the collect
	 * (prof/wall_books.c); task_reap() leaves it until then. */
	unsigned hold;
};

/* Probes' shadow stack of one task (prof/probe_hit.c): the calls of
 * timed probed functions it is inside, innermost last.  Each entry keeps
 * the real return address, and the stack slot that now holds the
 * return trampoline's (hal_probe_ret_addr()) instead, so a walk can give
 * the real one back (stacktrace_probe_fix()).  Written only by the task
 * itself; a call past the depth is counted, not timed. */
#define TASK_PROBE_DEPTH 16

struct task_probe_frame {
	uintptr_t ret;		/* the real return address */
	uintptr_t *slot;	/* where the trampoline's stands in for it */
	uint64_t t0;		/* hal_clock_ns() at entry */
	uint32_t probe, gen;	/* the probe (prof/probe.c's slot) timing it */
};

struct task_probe {
	unsigned depth;
	struct task_probe_frame f[TASK_PROBE_DEPTH];
};

struct task {
	int pid;
	char name[TASK_NAME_MAX];
	enum task_state state;
	unsigned cpu;
	bool is_idle;
	bool wake_pending;	/* a sched_wake() that no sched_block() has consumed */
	bool woken;		/* sched_wake() ended its last sleep early */
	bool off_cpu;		/* dead and switched away from: safe to free */
	void *ctx;		/* hal/context.h handle while not running */
	void *stack;		/* above its guard page; NULL for a boot context */
	size_t stack_size;
	bool stack_guarded;	/* the page below it faults (hal_mem_guard()) */
	uintptr_t stack_lo, stack_hi;	/* bounds of the stack it runs on */
	void (*fn)(void *);
	void *arg;
	uint64_t wake_at_ns;
	uint64_t runtime;	/* hal_cpu_time() units spent running */
	struct task *rq_next;	/* run queue or sleep list of its CPU */
	struct task *all_next;	/* the global task list */
	/* Off-CPU and wall-clock profiling's state of this task. */
	struct task_wall wall;
	/* Probes' shadow stack. */
	struct task_probe probe;
};

/* task->wall.off_why's mark of a preempted state: both it and a frame are
 * word aligned. */
#define TASK_OFF_TRAP ((uintptr_t)1)

/* The state a preemption of @t interrupted, when that is why it left
 * its CPU last; else NULL. */
static inline const struct trap_frame *task_off_trap(uintptr_t why)
{
	return why & TASK_OFF_TRAP ? (const struct trap_frame *)(why - TASK_OFF_TRAP) : NULL;
}

/* The frame of the scheduler call @t made when it left its CPU last
 * (sched_yield_cpu(), sched_block(), ...); else 0.  @why is the frame
 * of schedule() inside that call, whose record's first word links to
 * its caller's frame (both platforms' records: the caller's frame
 * pointer, then the return address); it is read only when it lies in
 * @t's stack [@lo, @hi), and @t is off its CPU or leaving it, so its
 * stack holds still. */
static inline uintptr_t task_off_frame(uintptr_t why, uintptr_t lo, uintptr_t hi)
{
	if ((why & TASK_OFF_TRAP) || why < lo || why > hi - 2 * sizeof(uintptr_t) ||
	    why % sizeof(uintptr_t))
		return 0;
	return *(const uintptr_t *)why;
}

/* Create a task running fn(arg) on @cpu, runnable at once.  Returns NULL
 * when memory is exhausted or @cpu is not running.  Task context. */
struct task *task_create(const char *name, void (*fn)(void *), void *arg,
			 unsigned cpu);

/* End the calling task.  Never returns. */
void task_exit(void) __attribute__((noreturn));

/* The task running on the calling CPU.  Any context. */
struct task *task_current(void);

bool task_exists(int pid);

/* @t's CPU time so far in hal_cpu_time() units, including its current
 * slice: to now when @t runs on the calling CPU, to its CPU's last tick
 * when it runs on another (each CPU reads its own time only).  Any
 * context but the profiler's NMI. */
uint64_t task_runtime(const struct task *t);

/* The calling task's CPU time so far, including the current slice, in
 * hal_cpu_time() units. */
uint64_t task_runtime_self(void);

/* Walk every task under the task list lock (interrupts off): @fn must be
 * quick and must not allocate or sleep. */
void task_for_each(void (*fn)(struct task *t, void *ctx), void *ctx);

/* The same over every task, dead ones not yet freed included. */
void task_for_each_all(void (*fn)(struct task *t, void *ctx), void *ctx);

/* The calling CPU's task when @addr lies in the guard page below its
 * stack, else NULL.  Only that task can have run into it: tasks are
 * pinned, and a stack overflows on the CPU running it.  Any context,
 * a fault report's included: takes no lock. */
struct task *task_guard_owner(uintptr_t addr);

/* For a platform's fault report, between panic_begin() and panic_end():
 * when @addr (the faulting address) lies in task_guard_owner()'s guard
 * page, say so in one line, "stack overflow: task N (NAME) ran into the
 * guard page below its stack at 0x...", the stack's lowest address. */
void task_report_guard_hit(struct out *o, uintptr_t addr);

/* Deepest stack use seen so far, from the paint left at creation. */
size_t task_stack_used(const struct task *t);

const char *task_state_name(enum task_state s);

/* Free the memory of tasks that have exited.  Task context or the idle
 * loop; task_reap_if_due() is the cheap check for the idle loop. */
void task_reap(void);
void task_reap_if_due(void);

/* For the scheduler: a task for the calling CPU's boot context, which
 * becomes that CPU's idle task. */
struct task *task_adopt_boot_context(unsigned cpu);

#endif
