/* SPDX-License-Identifier: BSD-2-Clause */
#include "kernel/task.h"
#include "kernel/task_test.h"

#include "hal/context.h"
#include "hal/cpu.h"
#include "hal/mem.h"
#include "kernel/heap.h"
#include "kernel/page.h"
#include "kernel/sched.h"
#include "kernel/trace.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/spinlock.h"

static struct spinlock task_lock = SPINLOCK_INIT;
static struct task *task_list;
static int next_pid = 1;
static int zombies;

static void task_list_add(struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&task_lock);
	struct task **pp = &task_list;

	t->pid = next_pid++;
	while (*pp)			/* keep pid order for ps */
		pp = &(*pp)->all_next;
	*pp = t;
	spin_unlock_irqrestore(&task_lock, flags);
}

struct task *task_adopt_boot_context(unsigned cpu)
{
	static struct task boot_tasks[HAL_MAX_CPUS];
	struct task *t = &boot_tasks[cpu];

	ksnprintf(t->name, sizeof(t->name), "idle/%u", cpu);
	t->cpu = cpu;
	t->is_idle = true;
	hal_context_boot_stack(&t->stack_lo, &t->stack_hi);
	t->state = TASK_RUNNING;
	task_list_add(t);
	return t;
}

/* A task's stack sits on top of a guard page, which the platform makes
 * fault where it can: an overflow is then a fault reported on a good
 * stack, never a silent overwrite of whatever lies below. */
static bool task_stack_alloc(struct task *t)
{
	char *base = page_alloc(TASK_STACK_PAGES);

	if (!base)
		return false;
	t->stack_guarded = hal_mem_guard((uintptr_t)base, true);
	t->stack = base + HAL_PAGE_SIZE;
	t->stack_size = TASK_STACK_SIZE;
	return true;
}

static void task_stack_free(struct task *t)
{
	char *base = (char *)t->stack - HAL_PAGE_SIZE;

	if (t->stack_guarded)
		hal_mem_guard((uintptr_t)base, false);
	page_free(base, TASK_STACK_PAGES);
}

struct task *task_create(const char *name, void (*fn)(void *), void *arg,
			 unsigned cpu)
{
	struct task *t;

	if (!sched_cpu_online(cpu))
		return NULL;
	task_reap();
	t = kzalloc(sizeof(*t));
	if (!t)
		return NULL;
	if (!task_stack_alloc(t)) {
		kfree(t);
		return NULL;
	}
	kmemset(t->stack, TASK_STACK_PAINT, t->stack_size);
	t->stack_lo = (uintptr_t)t->stack;
	t->stack_hi = t->stack_lo + t->stack_size;
	kstrlcpy(t->name, name, sizeof(t->name));
	t->fn = fn;
	t->arg = arg;
	t->cpu = cpu;
	t->state = TASK_RUNNABLE;
	t->ctx = sched_prepare_context(t);
	task_list_add(t);
	/* Before it is queued: once queued it may run, end and be reaped. */
	trace_task_born(t->pid, t->name);
	TRACE_POINT(TRACE_TASK_NEW, (uint32_t)t->pid, cpu, 0u);
	sched_enqueue_new(t);
	return t;
}

void task_exit(void)
{
	hal_irq_save();
	TRACE_POINT(TRACE_TASK_EXIT, 0u, 0u, 0u);
	task_current()->state = TASK_DEAD;
	__atomic_fetch_add(&zombies, 1, __ATOMIC_RELAXED);
	sched_yield_cpu();
	hal_cpu_park();		/* a dead task is never switched back to */
}

struct task *task_current(void)
{
	return this_cpu()->current;
}

struct task *task_find(int pid)
{
	unsigned long flags = spin_lock_irqsave(&task_lock);
	struct task *t;

	for (t = task_list; t; t = t->all_next)
		if (t->pid == pid && t->state != TASK_DEAD)
			break;
	spin_unlock_irqrestore(&task_lock, flags);
	return t;
}

bool task_exists(int pid)
{
	return task_find(pid) != NULL;
}

uint64_t task_runtime(const struct task *t)
{
	unsigned long flags = hal_irq_save();
	struct cpu *c = this_cpu();
	uint64_t rt = __atomic_load_n(&t->runtime, __ATOMIC_RELAXED);

	if (t == c->current)
		rt += hal_cpu_time() - c->switched_at;
	hal_irq_restore(flags);
	return rt;
}

uint64_t task_runtime_self(void)
{
	return task_runtime(task_current());
}

void task_for_each(void (*fn)(struct task *t, void *ctx), void *ctx)
{
	unsigned long flags = spin_lock_irqsave(&task_lock);

	for (struct task *t = task_list; t; t = t->all_next)
		if (t->state != TASK_DEAD)
			fn(t, ctx);
	spin_unlock_irqrestore(&task_lock, flags);
}

void task_for_each_all(void (*fn)(struct task *t, void *ctx), void *ctx)
{
	unsigned long flags = spin_lock_irqsave(&task_lock);

	for (struct task *t = task_list; t; t = t->all_next)
		fn(t, ctx);
	spin_unlock_irqrestore(&task_lock, flags);
}

struct task *task_guard_owner(uintptr_t addr)
{
	struct task *t = task_current();
	uintptr_t lo;

	if (!t || !t->stack_guarded)
		return NULL;
	lo = (uintptr_t)t->stack;
	return addr >= lo - HAL_PAGE_SIZE && addr < lo ? t : NULL;
}

void task_report_guard_hit(struct out *o, uintptr_t addr)
{
	struct task *t = task_guard_owner(addr);

	if (t)
		out_printf(o, "stack overflow: task %d (%s) ran into the guard page below its stack at 0x%lx\n",
			   t->pid, t->name, (unsigned long)(uintptr_t)t->stack);
}

size_t task_stack_used(const struct task *t)
{
	const unsigned char *p = t->stack;
	size_t untouched = 0;

	if (!p)
		return 0;
	/* Stacks grow down: the paint survives from the bottom up. */
	while (untouched < t->stack_size && p[untouched] == TASK_STACK_PAINT)
		untouched++;
	return t->stack_size - untouched;
}

const char *task_state_name(enum task_state s)
{
	switch (s) {
	case TASK_RUNNING: return "running";
	case TASK_RUNNABLE: return "ready";
	case TASK_SLEEPING: return "sleeping";
	case TASK_BLOCKED: return "blocked";
	case TASK_DEAD: return "dead";
	}
	return "?";
}

void task_reap(void)
{
	struct task *dead = NULL;
	unsigned long flags = spin_lock_irqsave(&task_lock);

	for (struct task **pp = &task_list; *pp;) {
		struct task *t = *pp;
		/* A wall run holds a dead task until it has its books. */
		if (t->state == TASK_DEAD &&
		    __atomic_load_n(&t->off_cpu, __ATOMIC_ACQUIRE) &&
		    !__atomic_load_n(&t->wall.hold, __ATOMIC_ACQUIRE)) {
			*pp = t->all_next;
			t->all_next = dead;
			dead = t;
			__atomic_fetch_sub(&zombies, 1, __ATOMIC_RELAXED);
		} else {
			pp = &t->all_next;
		}
	}
	spin_unlock_irqrestore(&task_lock, flags);
	while (dead) {
		struct task *next = dead->all_next;
		hal_context_release(dead->stack, dead->stack_size);
		task_stack_free(dead);
		kfree(dead);
		dead = next;
	}
}

void task_reap_if_due(void)
{
	if (__atomic_load_n(&zombies, __ATOMIC_RELAXED) > 0)
		task_reap();
}
