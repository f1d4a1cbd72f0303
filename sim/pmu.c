/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/pmu.h for ksim: a perf_event_open counter per CPU thread (cycles,
 * or task-clock where the host has no hardware counter).  It counts the
 * thread's kernel time too where the host allows it (root, or
 * perf_event_paranoid <= 1), and user space only otherwise (paranoid 2):
 * a user-space-only counter silently skips every overflow that falls due
 * while the thread is in the kernel (delivering the last signal, a system
 * call), measured here at 3-4% of signals at 1 kHz and 8% at 10 kHz.  The
 * signal still arrives in user space either way, so a sample never shows
 * a kernel address.  It runs with sample_period
 * set and keeps running; each overflow raises a real-time signal aimed
 * at the thread (F_SETSIG + F_SETOWN_EX/F_OWNER_TID), which stands in for
 * the NMI.  PERF_EVENT_IOC_REFRESH is never used: re-enabling an
 * overflowed counter that way has hung recent host kernels.
 *
 * A sample is weighed without a system call: each overflow also writes a
 * record to the counter's ring (its mmap), and the record carries the
 * count at that overflow (PERF_SAMPLE_READ), read by the host as it
 * overflowed.  A sample weighs the newest record's count less the count
 * of the one before, so the weights add up to what the counter counted
 * up to its last overflow, as a read(2) at every sample did.  Not the
 * records' periods (PERF_SAMPLE_PERIOD): task-clock's overflow is an
 * hrtimer that restarts a whole period from when it fired, so a timer
 * that fired late counted more than the period it stands for, and
 * user-space-only counting skips the overflows that fall due in the
 * kernel without skipping their count.  Where the ring cannot be mapped
 * (the user's locked-memory limit), the weight is read(2) as before,
 * and counted in the CPU's stats (read_weights). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hal/cpu.h"
#include "hal/entry.h"
#include "hal/pmu.h"
#include "hal/timer.h"
#include "sim/sim.h"

/* How long the probe reads a counter that does not move before giving
 * up, in hal_cycles() units (ns here).  task-clock moves within a read or
 * two; 500 us leaves room for a loaded host. */
#define SIM_PROBE_WAIT_NS 500000ull
/* A cycles counter's rate is measured over this much spinning. */
#define SIM_PROBE_RATE_NS 2000000ull
/* Data pages of a CPU's ring, a power of two: 16 KiB holds a thousand
 * 16-byte records, a second of overflows at 1 kHz that no signal was
 * handled for (the ring drops records when full, never a count: the next
 * record's count holds the lost ones'). */
#define SIM_RING_PAGES 4

int sim_pmu_signo;

static struct {
	bool usable;		/* an event type opened at start */
	uint32_t type;
	uint64_t config;
	const char *name;	/* "cycles", "task-clock" */
	int open_errno;		/* why neither opened */
	bool user_only;		/* kernel time refused: exclude_kernel */
	uint64_t events_per_sec;	/* the probe's answer, for pmu_hz */
} sim_pmu;

static bool sim_perf_refused(void)
{
	const char *e = getenv("KSIM_PERF_REFUSE");

	return sim_config.perf_refuse || (e && *e && strcmp(e, "0") != 0);
}

static int sim_perf_open_scope(uint32_t type, uint64_t config, uint64_t period,
			       bool user_only)
{
	struct perf_event_attr attr;
	long fd;

	if (sim_perf_refused()) {
		errno = EACCES;
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_READ;	/* the count, in each record */
	attr.wakeup_events = 1;
	attr.disabled = 1;
	attr.exclude_kernel = user_only;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0 /* this thread */, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return (int)fd;
}

static int sim_perf_open(uint32_t type, uint64_t config, uint64_t period)
{
	return sim_perf_open_scope(type, config, period, sim_pmu.user_only);
}

/* The counter with the thread's kernel time when the host allows it,
 * else user space only (the answer is kept for every later open). */
static int sim_perf_open_first(uint32_t type, uint64_t config)
{
	int fd = sim_perf_open_scope(type, config, 1000000, false);

	if (fd >= 0 || (errno != EACCES && errno != EPERM))
		return fd;
	fd = sim_perf_open_scope(type, config, 1000000, true);
	if (fd >= 0)
		sim_pmu.user_only = true;
	return fd;
}

/* Prefer the cycle counter; take task-clock where the host has none. */
void sim_pmu_init(void)
{
	int fd;

	sim_pmu_signo = SIGRTMIN + 2;
	if (sim_config.source == KSIM_SOURCE_TICK)
		return;
	fd = sim_perf_open_first(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	if (fd >= 0) {
		sim_pmu.type = PERF_TYPE_HARDWARE;
		sim_pmu.config = PERF_COUNT_HW_CPU_CYCLES;
		sim_pmu.name = "cycles";
	} else {
		sim_pmu.user_only = false;
		fd = sim_perf_open_first(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
		sim_pmu.type = PERF_TYPE_SOFTWARE;
		sim_pmu.config = PERF_COUNT_SW_TASK_CLOCK;
		sim_pmu.name = "task-clock";
	}
	if (fd < 0) {
		sim_pmu.open_errno = errno;
		return;
	}
	close(fd);
	sim_pmu.usable = true;
}

/* Why --source pmu cannot start, in one line on stderr: the errno, the
 * host's perf_event_paranoid (the usual cause: Debian's 3 refuses every
 * unprivileged user), and what works without a counter. */
void sim_pmu_say_refused(void)
{
	char level[16] = "unreadable";
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fgets(level, sizeof(level), f))
			level[strcspn(level, "\n")] = '\0';
		fclose(f);
	}
	fprintf(stderr,
		"ksim: --source pmu: perf_event_open refused: %s%s (perf_event_paranoid is %s; "
		"2 or lower lets a user count their own threads: sysctl kernel.perf_event_paranoid=2); "
		"--source tick samples without a counter\n",
		strerror(sim_pmu.open_errno),
		sim_perf_refused() ? ", forced by KSIM_PERF_REFUSE" : "", level);
}

const char *ksim_pmu_event_name(void)
{
	return sim_pmu.usable ? sim_pmu.name : NULL;
}

bool ksim_pmu_counts_kernel(void)
{
	return sim_pmu.usable && !sim_pmu.user_only;
}

/* Map @c's counter's ring; left unmapped (and weighed by read(2)) where
 * the host refuses. */
static void sim_ring_map(struct sim_cpu *c)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const struct perf_event_mmap_page *pg;
	void *m = mmap(NULL, page * (1 + SIM_RING_PAGES), PROT_READ | PROT_WRITE, MAP_SHARED,
		       c->perf_fd, 0);

	if (m == MAP_FAILED)
		return;
	pg = m;
	/* Hosts before Linux 4.1 leave these 0: the data follows the page. */
	c->ring_data_offset = pg->data_offset ? pg->data_offset : page;
	c->ring_data_size = pg->data_size ? pg->data_size : page * SIM_RING_PAGES;
	c->ring = m;
}

/* @n bytes at @pos of @c's ring, wrapped around its end. */
static void sim_ring_copy(const struct sim_cpu *c, uint64_t pos, void *dst, size_t n)
{
	const unsigned char *data = (const unsigned char *)c->ring + c->ring_data_offset;
	uint64_t off = pos & (c->ring_data_size - 1);
	size_t first = c->ring_data_size - off < n ? (size_t)(c->ring_data_size - off) : n;

	memcpy(dst, data + off, first);
	memcpy((unsigned char *)dst + first, data, n - first);
}

/* The count of the newest overflow recorded in @c's ring since it was
 * last emptied, into @count; the ring emptied.  False when none was
 * (a LOST or THROTTLE record alone carries no count).  The host wrote
 * the record before it raised the signal being handled. */
static bool sim_ring_take(struct sim_cpu *c, uint64_t *count)
{
	struct perf_event_mmap_page *pg = c->ring;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	bool found = false;

	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		sim_ring_copy(c, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + sizeof(*count)) {
			sim_ring_copy(c, tail + sizeof(h), count, sizeof(*count));
			found = true;
		}
		tail += h.size;
	}
	/* Our reads of the records are done before the host may reuse
	 * their bytes. */
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	return found;
}

/* Forget what @c's ring holds: records of a count since reset. */
static void sim_ring_discard(struct sim_cpu *c)
{
	struct perf_event_mmap_page *pg = c->ring;

	if (pg)
		__atomic_store_n(&pg->data_tail, __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
}

/* Add @n to a stat that only @c's own thread writes: no locked add on
 * the sample path. */
static void sim_stat_add_own(uint64_t *v, uint64_t n)
{
	__atomic_store_n(v, __atomic_load_n(v, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

void sim_pmu_cpu_init(struct sim_cpu *c)
{
	struct f_owner_ex owner;
	int fd;

	c->perf_fd = -1;
	c->pmu_state = SIM_PMU_OFF;
	if (!sim_pmu.usable) {
		c->perf_errno = sim_pmu.open_errno;
		return;
	}
	c->pmu_period = 1000000;
	fd = sim_perf_open(sim_pmu.type, sim_pmu.config, c->pmu_period);
	if (fd < 0) {
		c->perf_errno = errno;
		return;
	}
	owner.type = F_OWNER_TID;
	owner.pid = c->tid;
	if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 ||
	    fcntl(fd, F_SETSIG, sim_pmu_signo) != 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) != 0) {
		c->perf_errno = errno;
		close(fd);
		return;
	}
	c->perf_fd = fd;
	sim_ring_map(c);
}

/* The NMI.  Runs on the CPU's interrupt stack (sim/trap.c) with SIGPROF
 * and itself blocked, so nothing nests into it; it never switches
 * tasks. */
static void sim_pmu_handler(int sig, siginfo_t *si, void *uc)
{
	struct sim_cpu *c = sim_self;
	int saved_errno = errno;
	struct trap_frame tf;
	uint64_t t0;

	if (c && si->si_code == SI_TKILL && si->si_pid == getpid()) {
		/* Another CPU's hal_cpu_interrupt_others(): kernel_nmi()
		 * answers a panic's stop (and does not return). */
		sim_trap_from_signal(&tf, uc);
		if (!kernel_nmi(&tf))
			sim_trap_foreign(c, si->si_code);
		errno = saved_errno;
		return;
	}
	if (!c || (si->si_code != POLL_IN && si->si_code != POLL_HUP)) {
		sim_trap_foreign(c, si->si_code);
		return;
	}
	t0 = hal_clock_ns();
	sim_trap_from_signal(&tf, uc);
	sim_stat_inc(&c->stats.overflows);
	c->nmi_info = si;
	if (!kernel_nmi(&tf))
		sim_stat_inc(&c->stats.unclaimed);
	else if (__atomic_load_n(&c->pmu_state, __ATOMIC_ACQUIRE) == SIM_PMU_RUNNING)
		kernel_pmu_took(hal_clock_ns() - t0);
	c->nmi_info = NULL;
	errno = saved_errno;
}

void sim_pmu_install_handler(void)
{
	sim_trap_note_handler((uintptr_t)sim_pmu_handler);
	sim_trap_install(sim_pmu_signo, sim_pmu_handler, SA_RESTART | SA_ONSTACK,
			 SIGPROF, 0, "overflow signal");
}

/* Opens a counter of its own, without the signal, and reads it until it
 * moves, bounded by SIM_PROBE_WAIT_NS of the cycle clock. */
static bool sim_pmu_prove(struct hal_pmu_info *info)
{
	uint64_t v0 = 0, v = 0, t0, c0, now;
	int fd = sim_perf_open(sim_pmu.type, sim_pmu.config, 0);
	bool moved = false;

	if (fd < 0) {
		snprintf(info->why_not, sizeof(info->why_not),
			 "perf_event_open refused: %s", strerror(errno));
		return false;
	}
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	t0 = hal_cycles();
	c0 = hal_cpu_time();
	if (read(fd, &v0, sizeof(v0)) == (ssize_t)sizeof(v0)) {
		do {
			if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
				break;
			moved = v != v0;
			now = hal_cycles();
		} while (!moved && now - t0 < SIM_PROBE_WAIT_NS);
	}
	if (moved && sim_pmu.type == PERF_TYPE_HARDWARE) {
		/* Events per second of the thread's CPU time. */
		while (hal_cycles() - t0 < SIM_PROBE_RATE_NS)
			hal_cpu_relax();
		if (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) &&
		    hal_cpu_time() > c0)
			info->events_per_sec = (v - v0) * 1000000000ull /
					       (hal_cpu_time() - c0);
	} else if (moved) {
		info->events_per_sec = 1000000000ull;	/* task-clock: ns */
	}
	close(fd);
	sim_pmu.events_per_sec = info->events_per_sec;
	if (!moved)
		snprintf(info->why_not, sizeof(info->why_not),
			 "counter did not move in %llu us",
			 (unsigned long long)(SIM_PROBE_WAIT_NS / 1000));
	return moved;
}

void hal_pmu_probe(struct hal_pmu_info *info)
{
	unsigned long flags = hal_irq_save();

	memset(info, 0, sizeof(*info));
	if (sim_config.source == KSIM_SOURCE_TICK) {
		snprintf(info->claim, sizeof(info->claim), "perf_event_open not tried");
		snprintf(info->why_not, sizeof(info->why_not), "ksim --source tick");
	} else if (!sim_pmu.usable) {
		snprintf(info->claim, sizeof(info->claim),
			 "perf_event_open refused (%s)", strerror(sim_pmu.open_errno));
		snprintf(info->why_not, sizeof(info->why_not),
			 "perf_event_open refused: %s", strerror(sim_pmu.open_errno));
	} else {
		info->claimed = true;
		snprintf(info->claim, sizeof(info->claim),
			 "perf_event_open %s, %s", sim_pmu.name,
			 sim_pmu.user_only ? "user space" : "user and kernel");
		info->counts = sim_pmu_prove(info);
		for (unsigned i = 0; info->counts && i < sim_ncpus; i++) {
			if (sim_cpus[i].perf_fd < 0) {
				info->counts = false;
				snprintf(info->why_not, sizeof(info->why_not),
					 "cpu %u has no counter: %s", i,
					 strerror(sim_cpus[i].perf_errno));
			}
		}
		if (info->counts)
			snprintf(info->source, sizeof(info->source),
				 "pmu/signal perf %s", sim_pmu.name);
	}
	hal_irq_restore(flags);
}

/* One ioctl on the CPU's counter: 0, or -errno.  A refusal is counted by
 * the profiler (the report shows it), never ignored. */
static int sim_perf_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) == 0 ? 0 : -errno;
}

/* The first failure of a sequence of ioctls, 0 when all went through. */
static int sim_first_error(int so_far, int r)
{
	return so_far < 0 ? so_far : r;
}

/* From the CPU's own tick: the ioctls act on its own thread's counter. */
int hal_pmu_arm(uint64_t period)
{
	struct sim_cpu *c = sim_self;
	int r = 0;

	if (!c || c->perf_fd < 0)
		return -ENODEV;
	/* The periods and the last read are the overflow signal's too
	 * (hal_pmu_set_period(), hal_pmu_sample_events()), which may land
	 * in the tick that arms: relaxed atomics. */
	__atomic_store_n(&c->pmu_asked, period, __ATOMIC_RELAXED);
	if (sim_config.pmu_hz && sim_pmu.events_per_sec)
		period = sim_pmu.events_per_sec / sim_config.pmu_hz;
	if (period == 0)
		period = 1;
	if (period != __atomic_load_n(&c->pmu_period, __ATOMIC_RELAXED)) {
		r = sim_perf_ioctl(c->perf_fd, PERF_EVENT_IOC_PERIOD, &period);
		if (r == 0)
			__atomic_store_n(&c->pmu_period, period, __ATOMIC_RELAXED);
	}
	r = sim_first_error(r, sim_perf_ioctl(c->perf_fd, PERF_EVENT_IOC_RESET, 0));
	/* Records left from before the reset carry the old count. */
	sim_ring_discard(c);
	__atomic_store_n(&c->pmu_read, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&c->pmu_state, SIM_PMU_RUNNING, __ATOMIC_RELEASE);
	return sim_first_error(r, sim_perf_ioctl(c->perf_fd, PERF_EVENT_IOC_ENABLE, 0));
}

/* What the stopped counter counted since it was armed, into the CPU's
 * stats beside what its samples weighed (once per run, not per sample). */
static void sim_pmu_note_counted(struct sim_cpu *c)
{
	uint64_t v;

	if (read(c->perf_fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		sim_stat_add_own(&c->stats.counted, v);
	sim_stat_add_own(&c->stats.disarms, 1);
}

/* An overflow's signal is queued before the host returns to this thread
 * (the host raises it from its own interrupt on this thread's CPU), and
 * a pending unblocked signal is delivered on the way out of any system
 * call: the overflow signals of this counter have all been handled, as
 * "being disarmed", by the time the first ioctl below returns.  The
 * reset leaves the counter far from its next overflow. */
int hal_pmu_disarm(void)
{
	struct sim_cpu *c = sim_self;
	int r;

	if (!c || c->perf_fd < 0)
		return -ENODEV;
	__atomic_store_n(&c->pmu_state, SIM_PMU_DISARMING, __ATOMIC_RELEASE);
	r = sim_perf_ioctl(c->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
	sim_pmu_note_counted(c);
	r = sim_first_error(r, sim_perf_ioctl(c->perf_fd, PERF_EVENT_IOC_RESET, 0));
	__atomic_store_n(&c->pmu_state, SIM_PMU_OFF, __ATOMIC_RELEASE);
	return r;
}

/* Ours only when the signal being handled came from this CPU's own
 * counter and that counter is running or being disarmed.  A counter left
 * running with sample_period set needs no rearming. */
bool hal_pmu_ack(void)
{
	struct sim_cpu *c = sim_self;
	const siginfo_t *si;
	int state;

	if (!c || !c->nmi_info || c->perf_fd < 0)
		return false;
	si = c->nmi_info;
	state = __atomic_load_n(&c->pmu_state, __ATOMIC_ACQUIRE);
	return si->si_fd == c->perf_fd &&
	       (state == SIM_PMU_RUNNING || state == SIM_PMU_DISARMING);
}

/* What the host counted since the last sample's overflow (or since
 * arming), up to the newest overflow: from the counts the ring's records
 * carry, so that a signal that stood for several periods, or a period
 * the throttle changed, weighs what was really counted.  0 when no
 * overflow was recorded since the last sample (its signal stood for an
 * overflow an earlier sample already weighed).  Without a ring, the
 * count is read(2) (async-signal-safe; this thread's own counter). */
uint64_t hal_pmu_sample_events(void)
{
	struct sim_cpu *c = sim_self;
	uint64_t v, since;

	if (!c || c->perf_fd < 0)
		return c ? __atomic_load_n(&c->pmu_period, __ATOMIC_RELAXED) : 0;
	if (c->ring) {
		if (!sim_ring_take(c, &v))
			return 0;
	} else {
		sim_stat_add_own(&c->stats.read_weights, 1);
		if (read(c->perf_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			return __atomic_load_n(&c->pmu_period, __ATOMIC_RELAXED);
	}
	/* pmu_read is the arming tick's too (hal_pmu_arm() clears it). */
	since = v - __atomic_load_n(&c->pmu_read, __ATOMIC_RELAXED);
	__atomic_store_n(&c->pmu_read, v, __ATOMIC_RELAXED);
	sim_stat_add_own(&c->stats.weighed, since);
	return since;
}

/* The profiler's throttle, from inside the overflow signal: a new
 * sample_period for the running counter (the host applies it from the
 * next overflow).  A counter being disarmed or off is left alone.  Under
 * --pmu-hz the counter runs at another period than the profiler armed it
 * with: the new one is scaled alike, so that doubling stays doubling. */
int hal_pmu_set_period(uint64_t period)
{
	struct sim_cpu *c = sim_self;
	unsigned __int128 run;
	uint64_t actual, asked;
	int r;

	if (!c || c->perf_fd < 0 ||
	    __atomic_load_n(&c->pmu_state, __ATOMIC_ACQUIRE) != SIM_PMU_RUNNING)
		return -ENODEV;
	asked = __atomic_load_n(&c->pmu_asked, __ATOMIC_RELAXED);
	if (!period || !asked)
		return -ERANGE;
	run = (unsigned __int128)__atomic_load_n(&c->pmu_period, __ATOMIC_RELAXED) *
	      period / asked;
	if (!run || run > INT64_MAX)
		return -ERANGE;
	actual = (uint64_t)run;
	r = sim_perf_ioctl(c->perf_fd, PERF_EVENT_IOC_PERIOD, &actual);
	if (r == 0) {
		__atomic_store_n(&c->pmu_asked, period, __ATOMIC_RELAXED);
		__atomic_store_n(&c->pmu_period, actual, __ATOMIC_RELAXED);
	}
	return r;
}

/* Every simulated CPU opens the same perf event: the probe above already
 * checked them all, and lscpu's portable lines say it -- nothing more. */
void hal_pmu_facts(struct hal_pmu_facts *f)
{
	(void)f;
}

void hal_pmu_cpu_facts(unsigned cpu, struct hal_pmu_cpu_facts *f)
{
	(void)cpu;
	(void)f;
}
