/* SPDX-License-Identifier: BSD-2-Clause */
/* make bench, part 2: what a sample costs a CPU-bound workload, at
 * 10 kHz per CPU, in microseconds of the workload's CPU time.
 *
 * One ksim machine with a CPU per host core; on each CPU a task does a
 * fixed amount of work (bench_work) and measures its own thread's CPU
 * time.  Rounds come in interleaved sets, the order alternating:
 *   B  not profiled;
 *   A  profiled: a profile runs (prof_start ... prof_stop), its counter
 *      overflowing every 100 us of each CPU's time (ksim's pmu_hz hook);
 *   F  the signal floor: the same counter armed behind the profiler's
 *      back, so every overflow is delivered and only counted (ksim's
 *      handler, then kernel_nmi() says "not mine");
 * cost per sample = (CPU time of A or F - CPU time of B) / signals.
 *
 * Then the same work in plain threads (bench_cost --plain), alone and
 * under `perf record -e task-clock -F 10000 -g`, perf's cost being the
 * whole CPU time of perf and its child (wait4's rusage); skipped where
 * perf is not installed.  Figures are printed, nothing is asserted. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hal/cpu.h"
#include "hal/pmu.h"
#include "prof/profiler.h"
#include "prof/profiler_test.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "sim/ksim.h"

#define BENCH_HZ 10000
#define PAIRS 7
/* CPU time of one round's work per CPU, before the signals' own cost:
 * 4096 records hold 0.4 s at 10 kHz, and where a signal costs tens of
 * us (a nested VM) the round's CPU time doubles; it must not drop. */
#define ROUND_CPU_NS 120000000ull

enum mode { MODE_B, MODE_A, MODE_F, NMODES };

static unsigned ncpus;
static uint64_t work_iters;
static volatile unsigned round_no;
static volatile enum mode round_mode;
static volatile unsigned worker_round[HAL_MAX_CPUS];
static uint64_t worker_cpu_ns[HAL_MAX_CPUS], worker_signals[HAL_MAX_CPUS];
static uint64_t pmu_period;
static volatile bool bench_done;

/* per pair, per mode: total CPU ns and signals over every CPU */
static double cpu_ns[PAIRS][NMODES], signals[PAIRS][NMODES];
static uint64_t dropped_total;

static volatile uint64_t work_sink;

/* The workload: integer mixing, in user space, frames all the way. */
static __attribute__((noinline)) uint64_t bench_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static __attribute__((noinline)) void bench_work(uint64_t iters)
{
	uint64_t x = work_sink;

	for (uint64_t i = 0; i < iters; i++)
		x = bench_mix(x + i);
	work_sink = x;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void worker(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;
	unsigned done = 0;

	for (;;) {
		struct ksim_cpu_stats a, b;
		unsigned long flags;
		uint64_t c0, c1;
		enum mode m;

		while (__atomic_load_n(&round_no, __ATOMIC_ACQUIRE) == done)
			sched_sleep_ns(1);
		done = round_no;
		m = round_mode;
		if (m == MODE_F) {
			flags = hal_irq_save();
			hal_pmu_arm(pmu_period);
			hal_irq_restore(flags);
		}
		while (m == MODE_A && !prof_cpu_armed(cpu))
			sched_sleep_ns(1);
		ksim_cpu_stats(cpu, &a);
		c0 = thread_cpu_ns();
		bench_work(work_iters);
		c1 = thread_cpu_ns();
		ksim_cpu_stats(cpu, &b);
		if (m == MODE_F) {
			flags = hal_irq_save();
			hal_pmu_disarm();
			hal_irq_restore(flags);
		}
		worker_cpu_ns[cpu] = c1 - c0;
		worker_signals[cpu] = b.overflows - a.overflows;
		__atomic_store_n(&worker_round[cpu], done, __ATOMIC_RELEASE);
	}
}

static void run_round(unsigned pair, enum mode m)
{
	unsigned r = round_no + 1;

	if (m == MODE_A && prof_start() != 0)
		abort();
	round_mode = m;
	__atomic_store_n(&round_no, r, __ATOMIC_RELEASE);
	for (unsigned cpu = 0; cpu < ncpus; cpu++)
		while (__atomic_load_n(&worker_round[cpu], __ATOMIC_ACQUIRE) != r)
			sched_sleep_ms(1);
	if (m == MODE_A) {
		prof_stop();
		prof_wait_stopped(1000000000ull, NULL, NULL);
		for (unsigned cpu = 0; cpu < ncpus; cpu++) {
			struct prof_cpu_stats st;

			prof_cpu_stats(cpu, &st);
			dropped_total += st.dropped;
		}
		prof_end();
	}
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		cpu_ns[pair][m] += (double)worker_cpu_ns[cpu];
		signals[pair][m] += (double)worker_signals[cpu];
	}
}

static void driver(void *arg)
{
	static const enum mode order[2][NMODES] = {
		{ MODE_B, MODE_A, MODE_F }, { MODE_F, MODE_A, MODE_B },
	};

	(void)arg;
	pmu_period = prof_pmu_info()->events_per_sec / BENCH_HZ;
	for (unsigned pair = 0; pair < PAIRS; pair++)
		for (unsigned i = 0; i < NMODES; i++)
			run_round(pair, order[pair % 2][i]);
	__atomic_store_n(&bench_done, true, __ATOMIC_RELEASE);
	for (;;)
		sched_sleep_ms(1000);
}

static void start_tasks(void)
{
	/* The driver sleeps between rounds; it shares CPU 0. */
	for (unsigned cpu = 0; cpu < ncpus; cpu++)
		if (!task_create("work", worker, (void *)(uintptr_t)cpu, cpu))
			abort();
	if (!task_create("driver", driver, NULL, 0))
		abort();
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Iterations of bench_work() worth @ns of CPU time on this host. */
static uint64_t calibrate(uint64_t ns)
{
	uint64_t iters = 1000000, t;

	for (;;) {
		uint64_t c0 = thread_cpu_ns();

		bench_work(iters);
		t = thread_cpu_ns() - c0;
		if (t > 50000000)
			return (uint64_t)((double)iters * (double)ns / (double)t);
		iters *= 4;
	}
}

/* ---- plain threads, alone and under perf record ---- */

static void *plain_thread(void *arg)
{
	bench_work(*(uint64_t *)arg);
	return NULL;
}

static int plain_main(unsigned threads, uint64_t iters)
{
	pthread_t t[HAL_MAX_CPUS];

	for (unsigned i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, plain_thread, &iters);
	for (unsigned i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}

/* Run @argv; its CPU time (and its waited-for children's) in ns, and
 * the sample count perf printed on stderr, if any. */
static double run_child(char *const argv[], double *samples)
{
	struct rusage ru;
	int p[2], status;
	char buf[8192];
	size_t len = 0;
	ssize_t n;
	pid_t pid;
	const char *s;

	if (pipe(p) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(p[1], 2);
		close(p[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0 ||
	       (n < 0 && errno == EINTR))
		if (n > 0 && (len += (size_t)n) == sizeof(buf) - 1)
			break;
	buf[len] = '\0';
	close(p[0]);
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -1;
	*samples = 0;
	if ((s = strstr(buf, " samples)")) != NULL) {
		while (s > buf && s[-1] >= '0' && s[-1] <= '9')
			s--;
		*samples = atof(s);
	}
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

static void perf_rows(const char *self, double floor_us, double prof_us)
{
	char iters[32], threads[16];
	char *plain[] = { (char *)self, "--plain", threads, iters, NULL };
	char *perf[] = { "perf", "record", "-e", "task-clock", "-F", "10000", "-g",
			 "-o", "/dev/null", "--", (char *)self, "--plain", threads,
			 iters, NULL };
	double cost[PAIRS], ovh[PAIRS], samples_seen = 0;
	char *perf_data;

	snprintf(iters, sizeof(iters), "%llu", (unsigned long long)work_iters);
	snprintf(threads, sizeof(threads), "%u", ncpus);
	if (system("perf --version >/dev/null 2>&1") != 0) {
		printf("perf record: perf not installed, row skipped\n");
		return;
	}
	/* perf record cannot write to /dev/null: a file of its own. */
	perf_data = strdup("/tmp/kprof-bench-perf.XXXXXX");
	{
		int fd = mkstemp(perf_data);

		if (fd < 0) {
			printf("perf record: no temporary file, row skipped\n");
			return;
		}
		close(fd);
	}
	perf[8] = perf_data;
	for (unsigned pair = 0; pair < PAIRS; pair++) {
		double s = 0, b, a;

		if (pair % 2) {
			a = run_child(perf, &s);
			b = run_child(plain, &(double){ 0 });
		} else {
			b = run_child(plain, &(double){ 0 });
			a = run_child(perf, &s);
		}
		if (a < 0 || b < 0 || s <= 0) {
			printf("perf record: failed or refused here, row skipped\n");
			unlink(perf_data);
			return;
		}
		cost[pair] = (a - b) / s / 1e3;
		ovh[pair] = 100.0 * (a - b) / b;
		samples_seen += s;
	}
	unlink(perf_data);
	printf("perf record -e task-clock -F 10000 -g, perf and its child: %.2f us "
	       "per sample (median of %u pairs, %.0f samples per run, overhead "
	       "%.1f%%)\n", median(cost, PAIRS), PAIRS, samples_seen / PAIRS,
	       median(ovh, PAIRS));
	printf("  ratio: perf record / profiler %.1fx, perf record / floor %.1fx\n",
	       median(cost, PAIRS) / prof_us, median(cost, PAIRS) / floor_us);
}

int main(int argc, char **argv)
{
	struct ksim_config cfg;
	double cost_a[PAIRS], cost_f[PAIRS], ratio[PAIRS], ovh_a[PAIRS];
	double sa = 0, sf = 0;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (argc == 4 && strcmp(argv[1], "--plain") == 0)
		return plain_main((unsigned)atoi(argv[2]), strtoull(argv[3], NULL, 10));
	ncpus = cores < 1 ? 1 : cores > 4 ? 4 : (unsigned)cores;
	work_iters = calibrate(ROUND_CPU_NS);
	ksim_config_defaults(&cfg);
	cfg.cpus = ncpus;
	cfg.source = KSIM_SOURCE_PMU;
	cfg.pmu_hz = BENCH_HZ;
	cfg.late_init = start_tasks;
	cfg.out_fd = open("/dev/null", O_WRONLY);
	if (ksim_start(&cfg) != 0) {
		printf("cost per sample: perf_event_open refused here, skipped\n");
		return 0;
	}
	while (!__atomic_load_n(&bench_done, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, 10000000 };

		nanosleep(&ts, NULL);
	}
	for (unsigned p = 0; p < PAIRS; p++) {
		cost_a[p] = (cpu_ns[p][MODE_A] - cpu_ns[p][MODE_B]) / signals[p][MODE_A] / 1e3;
		cost_f[p] = (cpu_ns[p][MODE_F] - cpu_ns[p][MODE_B]) / signals[p][MODE_F] / 1e3;
		ratio[p] = cost_a[p] / cost_f[p];
		ovh_a[p] = 100.0 * (cpu_ns[p][MODE_A] - cpu_ns[p][MODE_B]) / cpu_ns[p][MODE_B];
		sa += signals[p][MODE_A];
		sf += signals[p][MODE_F];
	}
	printf("cost per sample at %u hz per cpu, %u cpus (ksim %s counter), %u "
	       "interleaved sets of B/A/F rounds of %.0f ms cpu per cpu:\n",
	       BENCH_HZ, ncpus, ksim_pmu_event_name(), PAIRS,
	       (double)ROUND_CPU_NS / 1e6);
	printf("  profiler (A - B): %.2f us per sample (median; %.0f samples per "
	       "round, overhead %.1f%%, %llu dropped)\n", median(cost_a, PAIRS),
	       sa / PAIRS, median(ovh_a, PAIRS), (unsigned long long)dropped_total);
	printf("  count-only floor (F - B): %.2f us per sample (median; %.0f "
	       "signals per round)\n", median(cost_f, PAIRS), sf / PAIRS);
	printf("  profiler / floor: %.3f (median of the per-set ratios)\n",
	       median(ratio, PAIRS));
	fflush(stdout);
	perf_rows(argv[0], median(cost_f, PAIRS), median(cost_a, PAIRS));
	fflush(stdout);
	_exit(0);
}
