/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/pmu.h counting for ksim: `stat`'s events are perf_event_open
 * counters of the CPU thread itself, opened, read and closed by that
 * thread on its own tick (so they count what that simulated CPU ran).
 * Hardware cycles and instructions where the host has them; task-clock
 * (the thread's running time in ns) always.  Where the host refuses an
 * event it stays closed and `stat` prints "not counted". */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hal/pmu.h"
#include "sim/sim.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} sim_count_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
};

#define SIM_NCOUNT (sizeof(sim_count_events) / sizeof(sim_count_events[0]))

_Static_assert(SIM_NCOUNT <= HAL_PMU_COUNT_MAX, "stat's events fit the contract");

unsigned hal_pmu_count_events(const char *names[], unsigned bits[])
{
	for (unsigned i = 0; i < SIM_NCOUNT; i++) {
		names[i] = sim_count_events[i].name;
		bits[i] = 64;		/* the perf ABI's counts do not wrap */
	}
	return SIM_NCOUNT;
}

/* Kernel time too where the host allows it; user space only where
 * perf_event_paranoid refuses that. */
static int sim_count_open_one(unsigned i)
{
	struct perf_event_attr attr;
	long fd;

	if (sim_config.perf_refuse)
		return -1;
	for (int user_only = 0; user_only < 2; user_only++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = sim_count_events[i].type;
		attr.config = sim_count_events[i].config;
		attr.exclude_kernel = user_only;
		attr.exclude_hv = 1;
		fd = syscall(SYS_perf_event_open, &attr, 0 /* this thread */, -1, -1,
			     PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0 || (errno != EACCES && errno != EPERM))
			return (int)fd;
	}
	return -1;
}

void hal_pmu_count_open(bool open[])
{
	struct sim_cpu *c = sim_self;
	int saved_errno = errno;

	for (unsigned i = 0; i < HAL_PMU_COUNT_MAX; i++) {
		if (c)
			c->count_fd[i] = -1;
		open[i] = false;
	}
	for (unsigned i = 0; c && i < SIM_NCOUNT; i++) {
		c->count_fd[i] = sim_count_open_one(i);
		open[i] = c->count_fd[i] >= 0;
	}
	errno = saved_errno;
}

void hal_pmu_count_read(uint64_t values[])
{
	struct sim_cpu *c = sim_self;
	int saved_errno = errno;

	for (unsigned i = 0; i < HAL_PMU_COUNT_MAX; i++) {
		uint64_t v = 0;

		if (c && i < SIM_NCOUNT && c->count_fd[i] >= 0 &&
		    read(c->count_fd[i], &v, sizeof(v)) != (ssize_t)sizeof(v))
			v = 0;
		values[i] = v;
	}
	errno = saved_errno;
}

void hal_pmu_count_close(void)
{
	struct sim_cpu *c = sim_self;
	int saved_errno = errno;

	for (unsigned i = 0; c && i < SIM_NCOUNT; i++) {
		if (c->count_fd[i] >= 0)
			close(c->count_fd[i]);
		c->count_fd[i] = -1;
	}
	errno = saved_errno;
}
