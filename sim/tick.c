/* SPDX-License-Identifier: BSD-2-Clause */
/* The tick: SIGPROF from a per-thread CLOCK_MONOTONIC timer (the rest of
 * hal/timer.h is sim/timer.c).  A process-wide CPU-time timer
 * (setitimer(ITIMER_PROF)) would skew samples between threads and be
 * checked only at the host's own tick; a monotonic timer aimed at one
 * thread ticks that CPU whether it works or idles, as a real timer does. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hal/entry.h"
#include "sim/sim.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

int sim_preempt_signo;

/* The tick runs on the CPU's interrupt stack (SA_ONSTACK: sim/trap.c),
 * so the host's signal frame (3.4 KB on an AVX-512 host) and the
 * sampler's frames never land on the task it interrupts.  SIGPROF and
 * the preemption signal are blocked while it runs; the overflow signal
 * is not, so it may nest in here exactly as an NMI nests into a timer
 * interrupt.  A switch here would leave this frame on a stack every
 * CPU's next tick reuses: when the task is to be preempted, the tick
 * raises the preemption signal instead, which the host delivers on the
 * task's own stack as this handler returns (sim_preempt_handler()). */
static void sim_tick_handler(int sig, siginfo_t *si, void *uc)
{
	struct sim_cpu *c = sim_self;
	int saved_errno = errno;
	struct trap_frame tf __attribute__((aligned(16)));

	if (!c || si->si_code != SI_TIMER || si->si_value.sival_int != (int)c->id) {
		/* kill, tgkill, sigqueue, or a timer not this CPU's: no tick. */
		sim_trap_foreign(c, si->si_code);
		return;
	}
	sim_trap_from_ucontext(&tf, uc);
	sim_stat_inc(&c->stats.ticks);
	if (si->si_overrun > 0)
		__atomic_fetch_add(&c->stats.tick_overruns, (uint64_t)si->si_overrun,
				   __ATOMIC_RELAXED);
	if (tf.ip == (uintptr_t)ksim_idle_resume)
		sim_stat_inc(&c->stats.idle_ticks);
	kernel_interrupt();	/* the simulator's one interrupt */
	if (sim_tick_call(kernel_tick_irq, &tf))
		syscall(SYS_tgkill, getpid(), c->tid, sim_preempt_signo);
	errno = saved_errno;
}

/* The tick's second half, as Linux preempts on its way out of an
 * interrupt: on the interrupted task's own stack, SIGPROF blocked, so
 * that a switch leaves this frame where the task's resumption finds it
 * (sim/context.c). */
static void sim_preempt_handler(int sig, siginfo_t *si, void *uc)
{
	struct sim_cpu *c = sim_self;
	int saved_errno = errno;
	struct trap_frame tf;

	if (!c || si->si_code != SI_TKILL || si->si_pid != getpid()) {
		sim_trap_foreign(c, si->si_code);
		return;
	}
	sim_trap_from_ucontext(&tf, uc);
	kernel_tick_preempt(&tf);
	errno = saved_errno;
}

void sim_tick_install_handler(void)
{
	sim_preempt_signo = SIGRTMIN + 3;
	sim_trap_note_handler((uintptr_t)sim_tick_handler);
	sim_trap_install(SIGPROF, sim_tick_handler, SA_RESTART | SA_ONSTACK,
			 sim_preempt_signo, 0, "SIGPROF");
	sim_trap_note_handler((uintptr_t)sim_preempt_handler);
	sim_trap_install(sim_preempt_signo, sim_preempt_handler, SA_RESTART,
			 SIGPROF, 0, "preemption signal");
}

/* A cheap per-CPU generator for the first expiry: CPUs must not tick in
 * lockstep, or every sample of a run would land at the same moment. */
static uint64_t sim_tick_first_ns(unsigned cpu, uint64_t period)
{
	struct timespec ts;
	uint64_t x;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull + cpu * 0xbf58476d1ce4e5b9ull + 1;
	x ^= x >> 31;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 29;
	return 1 + x % period;
}

/* Tick @c every @period ns from a random first expiry. */
static void sim_tick_arm(struct sim_cpu *c, uint64_t period)
{
	struct itimerspec its;
	uint64_t first = sim_tick_first_ns(c->id, period);

	memset(&its, 0, sizeof(its));
	its.it_interval.tv_sec = (time_t)(period / 1000000000ull);
	its.it_interval.tv_nsec = (long)(period % 1000000000ull);
	its.it_value.tv_sec = (time_t)(first / 1000000000ull);
	its.it_value.tv_nsec = (long)(first % 1000000000ull);
	if (timer_settime((timer_t)c->timer, 0, &its, NULL) != 0) {
		perror("ksim: timer_settime");
		exit(1);
	}
}

void sim_tick_cpu_init(struct sim_cpu *c)
{
	struct sigevent sev;
	timer_t t;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev.sigev_value.sival_int = (int)c->id;
	sev.sigev_notify_thread_id = c->tid;
	if (timer_create(CLOCK_MONOTONIC, &sev, &t) != 0) {
		perror("ksim: timer_create");
		exit(1);
	}
	c->timer = t;
	sim_tick_arm(c, 1000000000ull / sim_config.hz);
}

/* hal/timer.h: every CPU thread armed its timer at --hz when it
 * started (before the boot read its command line); a tick.hz= that
 * differs re-arms them all.  Any thread may set a POSIX timer. */
void hal_timer_start(unsigned hz)
{
	if (hz == sim_config.hz)
		return;
	for (unsigned i = 0; i < sim_ncpus; i++)
		sim_tick_arm(&sim_cpus[i], 1000000000ull / hz);
}
