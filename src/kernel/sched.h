/* SPDX-License-Identifier: BSD-2-Clause */
/* The portable scheduler: per-CPU run queues of pinned tasks, round
 * robin, preemption from the tick.  Contexts switch through hal/context.h. */
#ifndef KPROF_KERNEL_SCHED_H
#define KPROF_KERNEL_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "lib/spinlock.h"

struct task;
struct trap_frame;

/* How long a task runs before the tick preempts it for another runnable
 * one: time, so that a faster tick (tick.hz=) does not shorten it. */
#define SCHED_SLICE_MS 20

struct cpu {
	unsigned id;
	bool online;
	struct task *current;
	struct task *idle;
	struct task *last_prev;		/* the task a switch just left */
	struct task *switch_to;		/* current once the switch lands */
	struct spinlock rq_lock;
	struct task *rq_head, *rq_tail;	/* runnable, not running */
	struct task *sleepers;		/* sleeping, unordered */
	bool need_resched;
	int slice;			/* ticks left in current's slice */
	uint64_t switched_at;		/* hal_cpu_time() at the last switch */
	uint64_t idle_ns;		/* hal_clock_ns() in idle, up to idle_since */
	uint64_t idle_since_ns;		/* when idle last started to run */
	uint64_t ticks;
	uint64_t switches;
};

extern struct cpu cpus[HAL_MAX_CPUS];

static inline struct cpu *this_cpu(void)
{
	return &cpus[hal_cpu_id()];
}

/* Adopt the calling context as the calling CPU's idle task and put the
 * CPU online.  Called once per CPU, interrupts off, before its first tick. */
void sched_cpu_init(void);

/* Wall-clock ns the calling CPU has spent in its idle task since boot,
 * the current stretch included.  Interrupts off (its tick). */
uint64_t sched_idle_ns(void);

/* SCHED_SLICE_MS in ticks at the tick's rate, at least one. */
unsigned sched_slice_ticks(void);

/* Ticks @cpu has taken since its scheduler started.  Any context. */
uint64_t sched_cpu_ticks(unsigned cpu);

/* Poll @pending(@arg), a mask of CPUs yet to answer a request they take
 * on their tick, until it is empty or @budget_ns have passed by
 * hal_clock_ns(), calling @pause(@ctx) between polls (NULL: spin).
 * Returns the CPUs that never answered.  Task context. */
uint32_t sched_wait_cpus(uint32_t (*pending)(void *arg), void *arg,
			 uint64_t budget_ns, void (*pause)(void *ctx), void *ctx);

/* A pause for sched_wait_cpus(): sleep until the next tick, which is
 * also when a CPU answers. */
void sched_pause_tick(void *ctx);

/* True once @cpu has run sched_cpu_init(). */
bool sched_cpu_online(unsigned cpu);

/* Give up the CPU to another runnable task, if any.  Task context. */
void sched_yield_cpu(void);

/* Sleep at least @ns nanoseconds (woken by the first tick after).
 * Task context, not the idle task. */
void sched_sleep_ns(uint64_t ns);
void sched_sleep_ms(uint64_t ms);

/* Sleep until hal_clock_ns() reaches @deadline_ns, whatever wakes the task
 * before then: a sched_wake() meant for its sched_block() (a datagram for
 * the shell task) puts it back to sleep, and is kept for that next
 * sched_block() rather than lost.  What a timed command's window uses.
 * Task context, not the idle task. */
void sched_sleep_until_ns(uint64_t deadline_ns);
/* The same for a window of @ms from now. */
void sched_sleep_window_ms(uint64_t ms);

/* Block until sched_wake() names the calling task; returns at once when a
 * wake arrived since the last block.  Callers loop on their condition:
 *     while (!ready) sched_block();
 * Task context, not the idle task. */
void sched_block(void);

/* Make @t runnable if it sleeps or blocks, else remember the wake for its
 * next sched_block().  Any context but the profiler's NMI. */
void sched_wake(struct task *t);

/* From kernel_tick(): wake sleepers whose time has come, account the
 * slice.  Interrupts off. */
void sched_tick(void);

/* From the end of kernel_tick(@tf): switch if the tick asked for it;
 * @tf is the state the switch preempts. */
void sched_preempt(const struct trap_frame *tf);

/* Call @fn(@prev, @next) at every switch from one task to another, on
 * the switching CPU, interrupts off, before the context switch: the
 * hook point of off-CPU profiling, registered by the layer above
 * (doc/internals.md, "Rooms and the dispatch"); NULL unregisters.
 * @prev->state says why it leaves: TASK_RUNNABLE (preempted by the tick,
 * or it yielded), TASK_SLEEPING, TASK_BLOCKED or TASK_DEAD.  @fn must
 * not block, switch tasks or call sched_wake().  @prev->wall.off_why says
 * why it leaves (kernel/task.h: the preempted state of a preemption, or
 * the frame of the scheduler call that gave up the CPU; 0 for the idle
 * loop's own switches).  Without a hook a switch pays one load and one
 * branch for it, and the store of off_why. */
void sched_on_switch(void (*fn)(struct task *prev, struct task *next));

/* Call @fn(@prev, @next) at every switch from one task to another, on
 * the switching CPU, interrupts off, after the switch hook's call and
 * before the context switch: where counts that follow a task (`stat
 * pid=`) are saved and restored.  Under the same rules as the switch
 * hook's @fn; NULL unregisters. */
void sched_on_switch_count(void (*fn)(struct task *prev, struct task *next));

enum sched_park {
	SCHED_PARKED,		/* @fn ran */
	SCHED_ON_CPU,		/* running, or picked to run: not called */
	SCHED_LEAVING,		/* its switch-out is still saving it: not called */
};

/* Call @fn(@t, @arg) while @t is off its CPU with its context saved,
 * and held there: its CPU's run queue lock is held (interrupts off), so
 * that nothing picks it until @fn returns.  @fn reads @t's saved stack
 * (a wall run's window start walks it); it must be short, take no lock
 * and not touch its CPU's run queue.  Task context, any CPU, the task
 * list lock allowed (taken before the run queue's). */
enum sched_park sched_call_parked(struct task *t, void (*fn)(struct task *t, void *arg),
				  void *arg);

/* The idle loop of the calling CPU.  Never returns. */
void sched_idle_loop(void) __attribute__((noreturn));

/* For task.c: lay out @t's first context, and queue it when it is new. */
void *sched_prepare_context(struct task *t);
void sched_enqueue_new(struct task *t);

#endif
