/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/cpu.h for ksim.  "Interrupts" are SIGPROF, the tick: masking them
 * is blocking SIGPROF on the CPU's thread.  The counter's overflow signal
 * stands in for the NMI and is never blocked by hal_irq_save(). */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hal/cpu.h"
#include "hal/power.h"
#include "hal/timer.h"
#include "sim/sim.h"

static uint64_t sim_clock_read(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Threads that are not CPUs (console, UDP, a test's own) never run
 * kernel code; they read as CPU 0 rather than fault. */
unsigned hal_cpu_id(void)
{
	return sim_self ? sim_self->id : 0;
}

unsigned hal_cpu_count(void)
{
	return sim_ncpus;
}

/* The CPUs are ksim's threads, all started by ksim_start() (--cpus), each
 * already waiting for the scheduler; cpus= cannot take one away. */
void hal_cpus_start(unsigned max)
{
	(void)max;
}

static bool sim_sigprof_blocked(void)
{
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, SIGPROF) == 1;
}

static void sim_sigprof_mask(int how)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGPROF);
	pthread_sigmask(how, &s, NULL);
}

/* hal_irq_masked_ns(): the clock before the system call that masked
 * the tick, kept when that call was the outermost; UINT64_MAX while the
 * tick is not masked by hal_irq_save().  Only its CPU's thread writes
 * and reads it. */
static __thread uint64_t sim_irq_masked_ns = UINT64_MAX;

unsigned long hal_irq_save(void)
{
	/* Before the call: the host may hold the thread inside it. */
	uint64_t now = hal_clock_ns();
	sigset_t s, old;
	bool was;

	sigemptyset(&s);
	sigaddset(&s, SIGPROF);
	pthread_sigmask(SIG_BLOCK, &s, &old);
	was = sigismember(&old, SIGPROF) == 1;
	if (!was)
		sim_irq_masked_ns = now;
	return was;
}

void hal_irq_restore(unsigned long flags)
{
	if (!flags)
		sim_irq_masked_ns = UINT64_MAX;
	sim_sigprof_mask(flags ? SIG_BLOCK : SIG_UNBLOCK);
}

void hal_irq_enable(void)
{
	sim_irq_masked_ns = UINT64_MAX;
	sim_sigprof_mask(SIG_UNBLOCK);
}

uint64_t hal_irq_masked_ns(void)
{
	return sim_irq_masked_ns;
}

bool hal_irq_disabled(void)
{
	return sim_sigprof_blocked();
}

void hal_cpu_relax(void)
{
	__builtin_ia32_pause();
}

/* The wait is an inline system call, not a libc function, so that a tick
 * taken while idle resolves to this function (as `hlt` would), at the
 * label ksim_idle_resume just after the instruction.  rt_sigsuspend
 * unblocks SIGPROF and waits in one step, so a tick made pending while
 * interrupts were off is taken at once; it returns after the handler,
 * with the mask as it was. */
__attribute__((noinline)) void hal_cpu_idle(void)
{
	sigset_t cur;
	uint64_t kmask;
	long ret;

	/* The kernel's sigset is the first 64-bit word of glibc's. */
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	__builtin_memcpy(&kmask, &cur, sizeof(kmask));
	kmask &= ~(1ull << (SIGPROF - 1));
	__asm__ volatile("syscall\n"
			 ".globl ksim_idle_resume\n"
			 "ksim_idle_resume:\n"
			 : "=a"(ret)
			 : "0"((long)SYS_rt_sigsuspend), "D"(&kmask), "S"((long)8)
			 : "rcx", "r11", "memory");
	(void)ret;
}

/* The overflow signal is ksim's NMI: hal_irq_save() does not block it,
 * so a CPU spinning with "interrupts off" still takes it, and its
 * handler hands a signal from this process to kernel_nmi(). */
const char *hal_cpu_interrupt_others(void)
{
	unsigned me = hal_cpu_id();
	pid_t pid = getpid();

	for (unsigned i = 0; i < sim_ncpus; i++)
		if (i != me)
			syscall(SYS_tgkill, pid, sim_cpus[i].tid, sim_pmu_signo);
	return "signal";
}

void hal_cpu_park(void)
{
	sim_thread_park();
}

void hal_cpu_halt(void)
{
	hal_power_off(KSIM_EXIT_PANIC);
}

uint64_t hal_cycles(void)
{
	return sim_clock_read(CLOCK_MONOTONIC);
}

uint64_t hal_cycles_per_sec(void)
{
	return 1000000000ull;
}

uint64_t hal_cpu_time(void)
{
	return sim_clock_read(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t hal_cpu_time_per_sec(void)
{
	return 1000000000ull;
}
