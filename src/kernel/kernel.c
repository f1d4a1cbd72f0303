/* SPDX-License-Identifier: BSD-2-Clause */
#include "kernel/kernel.h"

#include "hal/cpu.h"
#include "hal/entry.h"
#include "hal/timer.h"
#include "kernel/panic.h"
#include "prof/profiler.h"
#include "prof/stat.h"
#include "kernel/sched.h"

static bool cpus_ready;
static uint64_t boot_ns;

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

/* Another CPU is panicking: stop here, so that nothing prints over its
 * report.  Where the platform's stop is an NMI that comes first; where
 * it cannot interrupt a CPU at all, the tick is its answer. */
void kernel_tick(struct trap_frame *tf)
{
	panic_answer_stop();
	/* A CPU may tick before its scheduler exists (early boot). */
	if (!sched_cpu_online(hal_cpu_id()))
		return;
	prof_tick(tf);
	stat_tick();
	sched_tick();
	sched_preempt();
}

/* A panicking CPU's stop is answered before the profiler looks: it
 * never sees that interrupt. */
bool kernel_nmi(struct trap_frame *tf)
{
	panic_answer_stop();
	return prof_nmi(tf);
}

void kernel_pmu_took(uint64_t ns)
{
	prof_pmu_took(ns);
}
