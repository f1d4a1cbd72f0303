/* SPDX-License-Identifier: BSD-2-Clause */
#include "kernel/kernel.h"

#include "hal/cpu.h"
#include "hal/entry.h"
#include "hal/timer.h"
#include "kernel/kevents.h"
#include "kernel/panic.h"
#include "kernel/sched.h"
#include "kernel/trace.h"

static bool cpus_ready;
static uint64_t boot_ns;

/* What the layer above asked to be called on the tick and the counter's
 * interrupt (kernel/kernel.h): NULL until it registers.  Read with
 * acquire loads from any CPU's interrupt. */
static void (*tick_hook)(struct trap_frame *tf);
static bool (*nmi_hook)(struct trap_frame *tf);
static void (*pmu_took_hook)(uint64_t ns);

void kernel_on_tick(void (*fn)(struct trap_frame *tf))
{
	__atomic_store_n(&tick_hook, fn, __ATOMIC_RELEASE);
}

void kernel_on_nmi(bool (*fn)(struct trap_frame *tf))
{
	__atomic_store_n(&nmi_hook, fn, __ATOMIC_RELEASE);
}

void kernel_on_pmu_took(void (*fn)(uint64_t ns))
{
	__atomic_store_n(&pmu_took_hook, fn, __ATOMIC_RELEASE);
}

void kernel_clock_start(void)
{
	boot_ns = hal_clock_ns();
}

void kernel_publish_cpus_ready(void)
{
	__atomic_store_n(&cpus_ready, true, __ATOMIC_RELEASE);
}

bool kernel_cpus_ready(void)
{
	return __atomic_load_n(&cpus_ready, __ATOMIC_ACQUIRE);
}

uint64_t kernel_uptime_ns(void)
{
	return hal_clock_ns() - boot_ns;
}

/* The tick's irq_entry number.  Unused where KPROF_BENCH_NO_TRACEPOINTS
 * compiles the tracepoints out. */
static unsigned __attribute__((unused)) kernel_tick_irq_no(void)
{
	struct hal_timer_info ti;

	hal_timer_info(&ti);
	return ti.irq;
}

/* Another CPU is panicking: stop here, so that nothing prints over its
 * report.  Where the platform's stop is an NMI that comes first; where
 * it cannot interrupt a CPU at all, the tick is its answer. */
bool kernel_tick_irq(struct trap_frame *tf)
{
	void (*hook)(struct trap_frame *tf);
	bool resched;

	panic_answer_stop();
	/* A CPU may tick before its scheduler exists (early boot). */
	if (!sched_cpu_online(hal_cpu_id()))
		return false;
	TRACE_POINT(TRACE_IRQ_ENTRY, kernel_tick_irq_no(), 0, 0);
	/* The profiler's tick comes before the scheduler's: a sample is
	 * charged to the task the tick interrupted, not the one it may
	 * switch to. */
	hook = __atomic_load_n(&tick_hook, __ATOMIC_ACQUIRE);
	if (hook)
		hook(tf);
	sched_tick();
	resched = this_cpu()->need_resched;
	/* The switch a preemption makes comes after irq_exit: in ksim
	 * it runs on the task's own stack, out of the interrupt. */
	TRACE_POINT(TRACE_TICK, resched, 0, 0);
	TRACE_POINT(TRACE_IRQ_EXIT, kernel_tick_irq_no(), 0, 0);
	return resched;
}

void kernel_tick_preempt(struct trap_frame *tf)
{
	sched_preempt(tf);
}

void kernel_tick(struct trap_frame *tf)
{
	if (kernel_tick_irq(tf))
		kernel_tick_preempt(tf);
}

void kernel_interrupt(void)
{
	kevent_count(KEV_INTERRUPTS);
}

/* A panicking CPU's stop is answered before the profiler looks: it
 * never sees that interrupt. */
bool kernel_nmi(struct trap_frame *tf)
{
	bool (*hook)(struct trap_frame *tf);
	bool claimed;

	kevent_count(KEV_NMIS);
	panic_answer_stop();
	/* Nobody to claim it: the platform's genuine-NMI path. */
	hook = __atomic_load_n(&nmi_hook, __ATOMIC_ACQUIRE);
	claimed = hook ? hook(tf) : false;
	TRACE_POINT(TRACE_NMI, claimed, 0, 0);
	return claimed;
}

void kernel_irq_enter(unsigned irq)
{
	TRACE_POINT(TRACE_IRQ_ENTRY, irq, 0, 0);
}

void kernel_irq_exit(unsigned irq)
{
	TRACE_POINT(TRACE_IRQ_EXIT, irq, 0, 0);
}

void kernel_pmu_took(uint64_t ns)
{
	void (*hook)(uint64_t ns) = __atomic_load_n(&pmu_took_hook, __ATOMIC_ACQUIRE);

	if (hook)
		hook(ns);
}
