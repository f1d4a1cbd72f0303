/* SPDX-License-Identifier: BSD-2-Clause */
/* The simulated machine's state and its end: the table of CPUs and the
 * configuration that every file of sim/ reads, and sim_machine_exit()
 * (power off, a panic, the end of a script), which wakes ksim_wait().
 * This file calls no other file of sim/: the others stand on it, and
 * sim/start.c, which brings the machine up, stands on them. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "sim/sim.h"

struct sim_cpu sim_cpus[HAL_MAX_CPUS];
unsigned sim_ncpus;
__thread struct sim_cpu *sim_self;
struct ksim_config sim_config;

static int sim_exit_pipe[2] = { -1, -1 };
static int sim_exit_claimed;

int sim_machine_exit_init(void)
{
	if (pipe2(sim_exit_pipe, O_CLOEXEC) != 0) {
		perror("ksim: pipe");
		return -1;
	}
	return 0;
}

/* The first caller wins; a status written to a pipe wakes ksim_wait()
 * from any context, signal handlers included. */
void sim_machine_exit(int status)
{
	unsigned char b = (unsigned char)status;

	if (__atomic_exchange_n(&sim_exit_claimed, 1, __ATOMIC_ACQ_REL))
		return;
	while (write(sim_exit_pipe[1], &b, 1) < 0 && errno == EINTR)
		;
}

void sim_thread_park(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;)
		pause();
}

int ksim_wait(unsigned timeout_ms)
{
	struct pollfd p = { .fd = sim_exit_pipe[0], .events = POLLIN };
	struct timespec start, now;
	unsigned char b;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int waited, r;

		clock_gettime(CLOCK_MONOTONIC, &now);
		waited = (int)((now.tv_sec - start.tv_sec) * 1000 +
			       (now.tv_nsec - start.tv_nsec) / 1000000);
		if (timeout_ms && waited >= (int)timeout_ms)
			return -1;
		r = poll(&p, 1, timeout_ms ? (int)timeout_ms - waited : -1);
		if (r < 0 && errno == EINTR)
			continue;	/* poll is never restarted */
		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		if (read(sim_exit_pipe[0], &b, 1) == 1) {
			/* Leave the status for a later ksim_wait() too. */
			while (write(sim_exit_pipe[1], &b, 1) < 0 && errno == EINTR)
				;
			return b;
		}
	}
}

unsigned ksim_cpu_count(void)
{
	return sim_ncpus;
}

void ksim_cpu_stats(unsigned cpu, struct ksim_cpu_stats *st)
{
	const struct ksim_cpu_stats *s = &sim_cpus[cpu].stats;

	st->ticks = __atomic_load_n(&s->ticks, __ATOMIC_RELAXED);
	st->idle_ticks = __atomic_load_n(&s->idle_ticks, __ATOMIC_RELAXED);
	st->foreign = __atomic_load_n(&s->foreign, __ATOMIC_RELAXED);
	st->last_foreign_code = __atomic_load_n(&s->last_foreign_code, __ATOMIC_RELAXED);
	st->overflows = __atomic_load_n(&s->overflows, __ATOMIC_RELAXED);
	st->unclaimed = __atomic_load_n(&s->unclaimed, __ATOMIC_RELAXED);
	st->tick_overruns = __atomic_load_n(&s->tick_overruns, __ATOMIC_RELAXED);
	st->weighed = __atomic_load_n(&s->weighed, __ATOMIC_RELAXED);
	st->counted = __atomic_load_n(&s->counted, __ATOMIC_RELAXED);
	st->disarms = __atomic_load_n(&s->disarms, __ATOMIC_RELAXED);
	st->read_weights = __atomic_load_n(&s->read_weights, __ATOMIC_RELAXED);
}

int ksim_cpu_tid(unsigned cpu)
{
	return sim_cpus[cpu].tid;
}
