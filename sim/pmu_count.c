/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/pmu.h counting for ksim: `stat`'s events are perf_event_open
 * counters of the CPU thread itself, opened, read and closed by that
 * thread on its own tick (so they count what that simulated CPU ran).
 * The host's hardware events where it counts them, and its software
 * events, named as the host's: its context switches and migrations are
 * the CPU *thread's* (host-context-switches, host-cpu-migrations), not
 * kprof's tasks' (the kernel's own context-switches), and page-faults
 * counts a host page only the first time the process touches it.  Where
 * the host refuses an event, the table says why and `stat` prints "not
 * counted".  The counters are --pmu-counters general ones, so that more
 * events than that are multiplexed by the portable core. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hal/pmu.h"
#include "sim/sim.h"

struct sim_event {
	const char *name;
	uint32_t type;
	uint64_t config;
	bool standard;
	/* The probe need not see it move: nothing it does provokes one. */
	bool sparse;
};

static const struct sim_event sim_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true, false },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true, false },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, true, false },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false, false },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, false, false },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, false, false },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, false, true },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, false, false },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, false, false },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false, false },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, false, false },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, false, true },
	{ "host-context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false, false },
	{ "host-cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false, true },
};

#define SIM_NEVENTS (sizeof(sim_events) / sizeof(sim_events[0]))

_Static_assert(SIM_NEVENTS <= HAL_PMU_EVENTS_MAX, "the table fits the contract");

/* Kernel time too where the host allows it; user space only where
 * perf_event_paranoid refuses that.  -errno when the host refuses. */
static int sim_count_open_event(const struct sim_event *e)
{
	struct perf_event_attr attr;
	long fd;

	if (sim_config.perf_refuse)
		return -EACCES;
	for (int user_only = 0; user_only < 2; user_only++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = e->type;
		attr.config = e->config;
		attr.exclude_kernel = user_only;
		attr.exclude_hv = 1;
		fd = syscall(SYS_perf_event_open, &attr, 0 /* this thread */, -1, -1,
			     PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			return (int)fd;
		if (errno != EACCES && errno != EPERM)
			break;
	}
	return -errno;
}

/* What the probe does while the events are open: a busy loop (cycles,
 * instructions, branches, clocks), a page first touched (page faults),
 * a short sleep (the thread's own context switch). */
static void sim_count_provoke(void)
{
	volatile uint64_t x = 0;
	struct timespec ts = { 0, 1000 };
	char *page;

	for (unsigned i = 0; i < 200000; i++)
		x += i ^ (x >> 3);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page != MAP_FAILED) {
		page[0] = 1;
		munmap(page, 4096);
	}
	nanosleep(&ts, NULL);
}

static struct hal_pmu_event sim_table[SIM_NEVENTS];
static bool sim_probed;

static void sim_probe_why(struct hal_pmu_event *h, int err)
{
	if (sim_config.perf_refuse)
		snprintf(h->why_not, sizeof(h->why_not), "perf_event_open refused (KSIM_PERF_REFUSE)");
	else if (err == -ENOENT || err == -EOPNOTSUPP)
		snprintf(h->why_not, sizeof(h->why_not), "the host has no such counter (%s)",
			 strerror(-err));
	else
		snprintf(h->why_not, sizeof(h->why_not), "the host refuses it (%s)", strerror(-err));
}

/* Every event opened alone, the probe's work done, read: moved or not. */
static void sim_probe(void)
{
	for (unsigned i = 0; i < SIM_NEVENTS; i++) {
		const struct sim_event *e = &sim_events[i];
		struct hal_pmu_event *h = &sim_table[i];
		uint64_t v = 0;
		int fd = sim_count_open_event(e);

		h->name = e->name;
		h->bits = 64;		/* the perf ABI's counts do not wrap */
		h->fixed = -1;
		h->standard = e->standard;
		h->exact = e->type == PERF_TYPE_SOFTWARE;
		snprintf(h->source, sizeof(h->source), "host perf %s event%s",
			 e->type == PERF_TYPE_HARDWARE ? "hardware" : "software",
			 e->type == PERF_TYPE_SOFTWARE && strncmp(e->name, "host-", 5) == 0 ?
			 " (the cpu thread's)" : "");
		if (fd < 0) {
			sim_probe_why(h, fd);
			continue;
		}
		sim_count_provoke();
		if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			v = 0;
		close(fd);
		h->counts = v != 0 || e->sparse;
		if (!h->counts)
			snprintf(h->why_not, sizeof(h->why_not), "opened, never moved in the probe");
	}
}

unsigned hal_pmu_events(struct hal_pmu_event ev[], unsigned max,
			struct hal_pmu_counters *counters)
{
	int saved_errno = errno;
	unsigned n = SIM_NEVENTS < max ? SIM_NEVENTS : max;

	if (!sim_probed) {
		sim_probe();
		sim_probed = true;
	}
	memcpy(ev, sim_table, n * sizeof(ev[0]));
	counters->general = sim_config.pmu_counters ? sim_config.pmu_counters : HAL_PMU_COUNT_MAX;
	if (counters->general > HAL_PMU_COUNT_MAX)
		counters->general = HAL_PMU_COUNT_MAX;
	counters->fixed = 0;
	errno = saved_errno;
	return n;
}

void hal_pmu_count_open(const unsigned ev[], unsigned n, bool open[])
{
	struct sim_cpu *c = sim_self;
	int saved_errno = errno;

	if (n > HAL_PMU_COUNT_MAX)
		n = HAL_PMU_COUNT_MAX;
	for (unsigned i = 0; i < n; i++) {
		int fd = c && ev[i] < SIM_NEVENTS ? sim_count_open_event(&sim_events[ev[i]]) : -1;

		if (c)
			c->count_fd[i] = fd < 0 ? -1 : fd;
		open[i] = fd >= 0;
	}
	if (c)
		c->count_n = n;
	errno = saved_errno;
}

void hal_pmu_count_read(uint64_t values[])
{
	struct sim_cpu *c = sim_self;
	int saved_errno = errno;

	for (unsigned i = 0; c && i < c->count_n; i++) {
		uint64_t v = 0;

		if (c->count_fd[i] >= 0 &&
		    read(c->count_fd[i], &v, sizeof(v)) != (ssize_t)sizeof(v))
			v = 0;
		values[i] = v;
	}
	errno = saved_errno;
}

/* The host has no software-increment event. */
bool hal_pmu_soft_incr(void)
{
	return false;
}

void hal_pmu_count_close(void)
{
	struct sim_cpu *c = sim_self;
	int saved_errno = errno;

	for (unsigned i = 0; c && i < c->count_n; i++) {
		if (c->count_fd[i] >= 0)
			close(c->count_fd[i]);
		c->count_fd[i] = -1;
	}
	if (c)
		c->count_n = 0;
	errno = saved_errno;
}
