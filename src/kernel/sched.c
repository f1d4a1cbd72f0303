/* SPDX-License-Identifier: BSD-2-Clause */
#include "kernel/sched.h"

#include "hal/context.h"
#include "hal/cpu.h"
#include "hal/timer.h"
#include "kernel/task.h"
#include "kernel/tick.h"
#include "kernel/trace.h"

struct cpu cpus[HAL_MAX_CPUS];

/* What a layer above asked to be told of each switch (sched_on_switch()),
 * and whether there is one: the byte a switch tests. */
static void (*switch_hook)(struct task *prev, struct task *next);
static bool switch_hooked;

void sched_on_switch(void (*fn)(struct task *prev, struct task *next))
{
	__atomic_store_n(&switch_hook, fn, __ATOMIC_RELEASE);
	__atomic_store_n(&switch_hooked, fn != NULL, __ATOMIC_RELEASE);
}

/* The hook, called: out of line, so that a switch without one pays a
 * compare of its pointer with NULL and a branch.  (unused: the bench's
 * baseline, KPROF_BENCH_NO_SWITCH_HOOK, calls no hook.) */
static void __attribute__((noinline, cold, unused)) sched_run_switch_hook(struct task *prev,
								  struct task *next)
{
	void (*hook)(struct task *, struct task *) =
		__atomic_load_n(&switch_hook, __ATOMIC_RELAXED);

	if (hook)
		hook(prev, next);
}

/* Still on @prev's stack, its state already set, before the registers
 * change hands: the hook sees both tasks as they are at the switch.
 * Without a hook this is one compare and one branch, all a switch pays
 * for off-CPU profiling besides the store of @prev->wall.off_why (a kernel
 * without code patching has no static key).  Relaxed: the hook
 * publishes nothing through its pointer, and loads whatever it reads
 * with its own order.  KPROF_BENCH_NO_SWITCH_HOOK builds the scheduler
 * without either, the baseline of bench/switch-icount. */
static inline void sched_call_switch_hook(struct task *prev, struct task *next)
{
#ifndef KPROF_BENCH_NO_SWITCH_HOOK
	if (__builtin_expect(__atomic_load_n(&switch_hooked, __ATOMIC_RELAXED), 0))
		sched_run_switch_hook(prev, next);
#else
	(void)prev;
	(void)next;
#endif
}

/* `stat pid=`'s per-task counts (sched_on_switch_count()): a hook of
 * their own beside the wall one, a load and a branch while unset. */
static void (*count_hook)(struct task *prev, struct task *next);

void sched_on_switch_count(void (*fn)(struct task *prev, struct task *next))
{
	__atomic_store_n(&count_hook, fn, __ATOMIC_RELEASE);
}

static inline void sched_call_count_hook(struct task *prev, struct task *next)
{
	void (*fn)(struct task *, struct task *) =
		__atomic_load_n(&count_hook, __ATOMIC_ACQUIRE);

	if (__builtin_expect(fn != NULL, 0))
		fn(prev, next);
}

static void rq_push(struct cpu *c, struct task *t)
{
	t->rq_next = NULL;
	if (c->rq_tail)
		c->rq_tail->rq_next = t;
	else
		c->rq_head = t;
	c->rq_tail = t;
}

static struct task *rq_pop(struct cpu *c)
{
	struct task *t = c->rq_head;

	if (t) {
		c->rq_head = t->rq_next;
		if (!c->rq_head)
			c->rq_tail = NULL;
		t->rq_next = NULL;
	}
	return t;
}

static void sleepers_remove(struct cpu *c, struct task *t)
{
	for (struct task **pp = &c->sleepers; *pp; pp = &(*pp)->rq_next) {
		if (*pp == t) {
			*pp = t->rq_next;
			t->rq_next = NULL;
			return;
		}
	}
}

void sched_cpu_init(void)
{
	struct cpu *c = this_cpu();

	c->id = hal_cpu_id();
	spin_init(&c->rq_lock);
	c->idle = task_adopt_boot_context(c->id);
	c->current = c->idle;
	c->slice = (int)sched_slice_ticks();
	c->switched_at = hal_cpu_time();
	c->idle_since_ns = hal_clock_ns();
	__atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
}

bool sched_cpu_online(unsigned cpu)
{
	return cpu < HAL_MAX_CPUS &&
	       __atomic_load_n(&cpus[cpu].online, __ATOMIC_ACQUIRE);
}

/* Runs first thing in whichever task a switch resumes: only now is it
 * the CPU's current task.  Until here the switch ran on the outgoing
 * task's behalf (its stack, its registers being saved), and a sample
 * taken inside it is charged to that task, not to the one coming in. */
static void sched_finish_switch(struct cpu *c)
{
	struct task *prev = c->last_prev;

	/* Release: @prev's context is saved, and a walk from another CPU
	 * that sees it is no longer current may read it
	 * (sched_call_parked()). */
	__atomic_store_n(&c->current, c->switch_to, __ATOMIC_RELEASE);
	if (prev && prev->state == TASK_DEAD)
		__atomic_store_n(&prev->off_cpu, true, __ATOMIC_RELEASE);
	c->last_prev = NULL;
}

/* The idle task's wall-clock time, for `stat`'s idle share: the
 * simulator's CPU time does not advance while a CPU thread idles. */
static void sched_account_idle(struct cpu *c, struct task *prev, struct task *next)
{
	uint64_t now;

	if (!prev->is_idle && !next->is_idle)
		return;
	now = hal_clock_ns();
	if (prev->is_idle)
		c->idle_ns += now - c->idle_since_ns;
	if (next->is_idle)
		c->idle_since_ns = now;
}

uint32_t sched_wait_cpus(uint32_t (*pending)(void *arg), void *arg,
			 uint64_t budget_ns, void (*pause)(void *ctx), void *ctx)
{
	uint64_t t0 = hal_clock_ns();
	uint32_t left;

	while ((left = pending(arg)) && hal_clock_ns() - t0 < budget_ns) {
		if (pause)
			pause(ctx);
		else
			hal_cpu_relax();
	}
	return left;
}

void sched_pause_tick(void *ctx)
{
	(void)ctx;
	sched_sleep_ms(1);
}

uint64_t sched_idle_ns(void)
{
	struct cpu *c = this_cpu();
	uint64_t idle = c->idle_ns;

	if (c->current && c->current->is_idle)
		idle += hal_clock_ns() - c->idle_since_ns;
	return idle;
}

/* Pick the next task and switch to it.  Interrupts off; the run queue
 * lock is dropped before the switch: tasks are pinned, so only this CPU
 * ever pops its queue, and wakers from other CPUs only push.  @why says
 * why the outgoing task leaves (task->wall.off_why; the hook's,
 * sched_on_switch()): schedule()'s own frame, or the state a preemption
 * interrupted | TASK_OFF_TRAP.  Inlined into both. */
static inline __attribute__((always_inline)) void schedule_switch(uintptr_t why)
{
	struct cpu *c = this_cpu();
	struct task *prev = c->current, *next;
	enum task_state prev_state;
	uint64_t now;

#ifndef KPROF_BENCH_NO_SWITCH_HOOK
	/* Why it leaves, kept while it is off: the stack a wall run's
	 * window start walks (sched_call_parked()), and the hook's.  A task
	 * that keeps its CPU never reads it. */
	prev->wall.off_why = why;
#else
	(void)why;
#endif

	spin_lock(&c->rq_lock);
	c->need_resched = false;
	next = rq_pop(c);
	if (!next)
		next = prev->state == TASK_RUNNING ? prev : c->idle;
	if (next != prev && prev->state == TASK_RUNNING) {
		/* The idle task waits outside the queue: it runs when nothing
		 * else can. */
		prev->state = TASK_RUNNABLE;
		if (!prev->is_idle)
			rq_push(c, prev);
	}
	next->state = TASK_RUNNING;
	c->slice = (int)sched_slice_ticks();
	/* For the tracepoint, read under the lock: once it is dropped a
	 * waker on another CPU may make a sleeping @prev runnable before
	 * this CPU has switched away from it. */
	prev_state = prev->state;
	spin_unlock(&c->rq_lock);
	if (next == prev)
		return;

	now = hal_cpu_time();
	__atomic_store_n(&prev->runtime, prev->runtime + (now - c->switched_at),
			 __ATOMIC_RELAXED);
	c->switched_at = now;
	c->switches++;
	sched_account_idle(c, prev, next);
	c->last_prev = prev;
	c->switch_to = next;
	sched_call_switch_hook(prev, next);
	/* The switch's tracepoint: its own, not a user of the hook's slot
	 * (kernel/trace.h).  Right after the hook, so that the two read the
	 * clock as close together as they can: a wall profile and a trace
	 * of one window agree on each task's running time (a host that
	 * stalls a ksim CPU between two reads would part them). */
	TRACE_POINT(TRACE_SCHED_SWITCH, prev_state, (uint32_t)next->pid,
		    why & TASK_OFF_TRAP ? TRACE_F_PREEMPT : 0u);
	/* Per-task counts saved and restored (sched_on_switch_count()). */
	sched_call_count_hook(prev, next);
	/* A dead task is never resumed: nothing of it to save. */
	hal_context_switch(prev->state == TASK_DEAD ? NULL : &prev->ctx, next->ctx);
	sched_finish_switch(this_cpu());
}

/* A task gives up its CPU in a call: the scheduler call it made is the
 * caller of this one.  No argument: the why is this function's own
 * frame, whose record links to its caller's (task_off_frame()), one
 * store of the frame pointer -- the caller passes nothing and nothing
 * is kept across the locked part.  Never inlined, so that it has that
 * frame; its callers are the scheduler calls themselves (whatever
 * they inline, such as sleep_until_locked(), is theirs). */
static void __attribute__((noinline)) schedule(void)
{
	schedule_switch((uintptr_t)__builtin_frame_address(0));
}

/* The first code a new task runs (hal_context_prepare's entry). */
static void task_trampoline(void *arg)
{
	struct task *t = arg;

	/* Once per task, not per switch: the switch hook's first run of
	 * it is the end of the wait it was born into. */
	__atomic_store_n(&t->wall.started, true, __ATOMIC_RELAXED);
	sched_finish_switch(this_cpu());
	hal_irq_enable();
	t->fn(t->arg);
	task_exit();
}

void *sched_prepare_context(struct task *t)
{
	return hal_context_prepare(t->stack, t->stack_size, task_trampoline, t);
}

enum sched_park sched_call_parked(struct task *t, void (*fn)(struct task *t, void *arg),
				  void *arg)
{
	struct cpu *c = &cpus[t->cpu];
	unsigned long flags = spin_lock_irqsave(&c->rq_lock);
	enum sched_park park = SCHED_PARKED;

	/* Picked (schedule() sets RUNNING under this lock), or running. */
	if (t->state == TASK_RUNNING)
		park = SCHED_ON_CPU;
	/* Current until the next task finishes the switch, which it does
	 * after the save (sched_finish_switch(), release). */
	else if (__atomic_load_n(&c->current, __ATOMIC_ACQUIRE) == t)
		park = SCHED_LEAVING;
	else
		fn(t, arg);
	spin_unlock_irqrestore(&c->rq_lock, flags);
	return park;
}

void sched_enqueue_new(struct task *t)
{
	struct cpu *c = &cpus[t->cpu];
	unsigned long flags = spin_lock_irqsave(&c->rq_lock);

	t->state = TASK_RUNNABLE;
	/* Runnable from birth: a wall profile charges the wait before its
	 * first run. */
	t->wall.born_ns = t->wall.wake_ns = t->wall.off_ns = hal_clock_ns();
	rq_push(c, t);
	if (c->current && c->current->is_idle)
		c->need_resched = true;
	spin_unlock_irqrestore(&c->rq_lock, flags);
}

void sched_yield_cpu(void)
{
	unsigned long flags = hal_irq_save();

	schedule();
	hal_irq_restore(flags);
}

/* Put the calling task on its CPU's sleep list until @deadline_ns and
 * switch away.  Interrupts off.  Returns true when a sched_wake() ended
 * the sleep, false when the tick did.  Inlined: the scheduler call that
 * calls schedule() is its caller's (sched_sleep_ns(), ...). */
static inline __attribute__((always_inline)) bool sleep_until_locked(struct cpu *c,
								      uint64_t deadline_ns)
{
	struct task *t = c->current;
	bool woken;

	spin_lock(&c->rq_lock);
	t->wake_at_ns = deadline_ns;
	t->woken = false;
	t->state = TASK_SLEEPING;
	t->rq_next = c->sleepers;
	c->sleepers = t;
	spin_unlock(&c->rq_lock);
	schedule();
	c = this_cpu();
	spin_lock(&c->rq_lock);
	woken = t->woken;
	t->woken = false;
	spin_unlock(&c->rq_lock);
	return woken;
}

void sched_sleep_ns(uint64_t ns)
{
	unsigned long flags = hal_irq_save();

	sleep_until_locked(this_cpu(), hal_clock_ns() + ns);
	hal_irq_restore(flags);
}

/* Not a call of sched_sleep_ns(): the caller's frame is where it waits. */
void sched_sleep_ms(uint64_t ms)
{
	unsigned long flags = hal_irq_save();

	sleep_until_locked(this_cpu(), hal_clock_ns() + ms * 1000000ull);
	hal_irq_restore(flags);
}

void sched_sleep_until_ns(uint64_t deadline_ns)
{
	unsigned long flags = hal_irq_save();
	bool woken = false;

	while ((int64_t)(hal_clock_ns() - deadline_ns) < 0)
		woken |= sleep_until_locked(this_cpu(), deadline_ns);
	if (woken) {
		/* The wake was for whatever the task blocks on next: keep it. */
		struct cpu *c = this_cpu();

		spin_lock(&c->rq_lock);
		c->current->wake_pending = true;
		spin_unlock(&c->rq_lock);
	}
	hal_irq_restore(flags);
}

void sched_sleep_window_ms(uint64_t ms)
{
	sched_sleep_until_ns(hal_clock_ns() + ms * 1000000ull);
}

void sched_block(void)
{
	unsigned long flags = hal_irq_save();
	struct cpu *c = this_cpu();
	struct task *t = c->current;

	spin_lock(&c->rq_lock);
	if (t->wake_pending) {
		t->wake_pending = false;
		spin_unlock(&c->rq_lock);
		hal_irq_restore(flags);
		return;
	}
	t->state = TASK_BLOCKED;
	spin_unlock(&c->rq_lock);
	schedule();
	hal_irq_restore(flags);
}

void sched_wake(struct task *t)
{
	struct cpu *c = &cpus[t->cpu];
	unsigned long flags = spin_lock_irqsave(&c->rq_lock);

	if (t->state == TASK_SLEEPING) {
		sleepers_remove(c, t);
		t->woken = true;
	}
	if (t->state == TASK_SLEEPING || t->state == TASK_BLOCKED) {
		t->state = TASK_RUNNABLE;
		t->wall.wake_ns = hal_clock_ns();
		t->wake_pending = false;
		rq_push(c, t);
		if (c->current->is_idle)
			c->need_resched = true;
		TRACE_POINT(TRACE_SCHED_WAKEUP, (uint32_t)t->pid, t->cpu, 0u);
	} else if (t->state != TASK_DEAD) {
		t->wake_pending = true;
	}
	spin_unlock_irqrestore(&c->rq_lock, flags);
}

unsigned sched_slice_ticks(void)
{
	unsigned n = SCHED_SLICE_MS * tick_hz() / 1000;

	return n ? n : 1;
}

uint64_t sched_cpu_ticks(unsigned cpu)
{
	return __atomic_load_n(&cpus[cpu].ticks, __ATOMIC_RELAXED);
}

void sched_tick(void)
{
	struct cpu *c = this_cpu();
	uint64_t now = hal_clock_ns(), ct = hal_cpu_time();
	struct task **pp;

	spin_lock(&c->rq_lock);
	__atomic_store_n(&c->ticks, c->ticks + 1, __ATOMIC_RELAXED);
	/* Charge the running task its slice so far: another CPU can read
	 * hal_cpu_time() only for itself, so a task that never switches out
	 * would otherwise show no time in `ps` (task_runtime()). */
	__atomic_store_n(&c->current->runtime, c->current->runtime + (ct - c->switched_at),
			 __ATOMIC_RELAXED);
	c->switched_at = ct;
	for (pp = &c->sleepers; *pp;) {
		struct task *t = *pp;
		if ((int64_t)(now - t->wake_at_ns) >= 0) {
			*pp = t->rq_next;
			t->state = TASK_RUNNABLE;
			t->wall.wake_ns = now;
			rq_push(c, t);
			TRACE_POINT(TRACE_SCHED_WAKEUP, (uint32_t)t->pid, t->cpu, TRACE_F_TIMER);
		} else {
			pp = &t->rq_next;
		}
	}
	if (c->rq_head && (c->current->is_idle || --c->slice <= 0))
		c->need_resched = true;
	spin_unlock(&c->rq_lock);
}

void sched_preempt(const struct trap_frame *tf)
{
	if (this_cpu()->need_resched)
		schedule_switch((uintptr_t)tf | TASK_OFF_TRAP);
}

void sched_idle_loop(void)
{
	hal_irq_save();
	for (;;) {
		struct cpu *c = this_cpu();

		if (c->need_resched || c->rq_head)
			schedule();
		else
			hal_cpu_idle();
		task_reap_if_due();
	}
}
