#include "kernel/kernel.h"

#include "hal/cpu.h"
#include "hal/entry.h"
#include "hal/timer.h"
#include "kernel/profiler.h"
#include "kernel/stat.h"
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

void kernel_tick(struct trap_frame *tf)
{
	/* A CPU may tick before its scheduler exists (early boot). */
	if (!sched_cpu_online(hal_cpu_id()))
		return;
	prof_tick(tf);
	stat_tick();
	sched_tick();
	sched_preempt();
}

bool kernel_nmi(struct trap_frame *tf)
{
	return prof_nmi(tf);
}
