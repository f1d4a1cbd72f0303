/* SPDX-License-Identifier: BSD-2-Clause */
/* The recording fake PMU: see fake_pmu.h. */
#include "fake_pmu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "hal/entry.h"
#include "prof/profiler.h"
#include "prof/profiler_test.h"
#include "lib/errno.h"

struct hal_pmu_info fake_pmu_info = {
	.claim = "fake cycles counter",
	.claimed = true,
	.counts = true,
	.source = "pmu/fake cycles",
	.events_per_sec = 1000000000ull,
};
unsigned fake_pmu_probes;
bool fake_pmu_running[HAL_MAX_CPUS];
bool fake_pmu_waiting[HAL_MAX_CPUS];
bool fake_pmu_pending[HAL_MAX_CPUS];
uint64_t fake_pmu_period[HAL_MAX_CPUS];
void (*fake_pmu_disarm_hook)(unsigned cpu);
unsigned fake_pmu_unclaimed;
bool fake_pmu_fail_ops;
uint64_t fake_pmu_cost_ns[HAL_MAX_CPUS];
unsigned fake_pmu_set_periods;
char fake_pmu_log[16384];
size_t fake_pmu_log_len;

static void fake_pmu_logf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void fake_pmu_logf(const char *fmt, ...)
{
	size_t room = sizeof(fake_pmu_log) - fake_pmu_log_len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(fake_pmu_log + fake_pmu_log_len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		fake_pmu_log_len += (size_t)n < room ? (size_t)n : room - 1;
}

void fake_pmu_log_clear(void)
{
	fake_pmu_log_len = 0;
	fake_pmu_log[0] = '\0';
}

void fake_pmu_set_counting(uint64_t events_per_sec, const char *source)
{
	memset(&fake_pmu_info, 0, sizeof(fake_pmu_info));
	snprintf(fake_pmu_info.claim, sizeof(fake_pmu_info.claim), "fake cycles counter");
	snprintf(fake_pmu_info.source, sizeof(fake_pmu_info.source), "%s", source);
	fake_pmu_info.claimed = true;
	fake_pmu_info.counts = true;
	fake_pmu_info.events_per_sec = events_per_sec;
}

void fake_pmu_set_dead(const char *claim, const char *why)
{
	memset(&fake_pmu_info, 0, sizeof(fake_pmu_info));
	snprintf(fake_pmu_info.claim, sizeof(fake_pmu_info.claim), "%s", claim);
	snprintf(fake_pmu_info.why_not, sizeof(fake_pmu_info.why_not), "%s", why);
	fake_pmu_info.claimed = claim[0] != '\0';
}

void hal_pmu_probe(struct hal_pmu_info *info)
{
	fake_pmu_probes++;
	fake_pmu_logf("cpu%u probe\n", hal_cpu_id());
	*info = fake_pmu_info;
}

int hal_pmu_arm(uint64_t period)
{
	unsigned cpu = hal_cpu_id();

	fake_pmu_logf("cpu%u arm period=%llu armed=%d%s\n", cpu,
		      (unsigned long long)period, prof_cpu_armed(cpu),
		      fake_count_is_open[cpu] ? " refused: counting" : "");
	/* As arm64 does (hal/pmu.h): the counters are `stat`'s while open. */
	if (fake_count_is_open[cpu])
		return -EBUSY;
	if (fake_pmu_fail_ops)
		return -EIO;
	fake_pmu_running[cpu] = true;
	fake_pmu_period[cpu] = period;
	return 0;
}

int hal_pmu_disarm(void)
{
	unsigned cpu = hal_cpu_id();

	fake_pmu_logf("cpu%u disarm armed=%d\n", cpu, prof_cpu_armed(cpu));
	fake_pmu_running[cpu] = false;
	fake_pmu_waiting[cpu] = true;
	if (fake_pmu_disarm_hook)
		fake_pmu_disarm_hook(cpu);
	/* Left unable to read as overflowed. */
	fake_pmu_waiting[cpu] = false;
	fake_pmu_pending[cpu] = false;
	return fake_pmu_fail_ops ? -EIO : 0;
}

bool hal_pmu_ack(void)
{
	unsigned cpu = hal_cpu_id();
	bool ours = (fake_pmu_running[cpu] || fake_pmu_waiting[cpu]) &&
		    fake_pmu_pending[cpu];

	fake_pmu_logf("cpu%u ack %s armed=%d\n", cpu, ours ? "yes" : "no",
		      prof_cpu_armed(cpu));
	if (ours)
		fake_pmu_pending[cpu] = false;
	return ours;
}

uint64_t fake_pmu_events[HAL_MAX_CPUS];

uint64_t hal_pmu_sample_events(void)
{
	unsigned cpu = hal_cpu_id();

	return fake_pmu_events[cpu] ? fake_pmu_events[cpu] : fake_pmu_period[cpu];
}

int hal_pmu_set_period(uint64_t period)
{
	unsigned cpu = hal_cpu_id();

	fake_pmu_logf("cpu%u set_period period=%llu\n", cpu,
		      (unsigned long long)period);
	if (!fake_pmu_running[cpu])
		return -ENODEV;
	fake_pmu_period[cpu] = period;
	fake_pmu_set_periods++;
	return 0;
}

/* What the fake platform tells lscpu (nothing unless a test sets it). */
struct hal_pmu_facts fake_pmu_facts;
struct hal_pmu_cpu_facts fake_pmu_cpu_facts[HAL_MAX_CPUS];

void hal_pmu_facts(struct hal_pmu_facts *f)
{
	*f = fake_pmu_facts;
}

void hal_pmu_cpu_facts(unsigned cpu, struct hal_pmu_cpu_facts *f)
{
	*f = fake_pmu_cpu_facts[cpu];
}

bool fake_pmu_overflow(unsigned cpu, struct trap_frame *tf, bool ours)
{
	bool claimed;

	fake_cpu = cpu;
	if (ours)
		fake_pmu_pending[cpu] = true;
	claimed = kernel_nmi(tf);
	if (claimed && fake_pmu_running[cpu])
		kernel_pmu_took(fake_pmu_cost_ns[cpu]);
	/* The interrupt is over: an overflow nobody acknowledged does not
	 * linger into the next one. */
	fake_pmu_pending[cpu] = false;
	if (!claimed)
		fake_pmu_unclaimed++;
	return claimed;
}

/* ---- counting ---- */

unsigned fake_count_n = 2;
const char *fake_count_names[HAL_PMU_EVENTS_MAX] = { "cycles", "instructions" };
unsigned fake_count_bits[HAL_PMU_EVENTS_MAX] = { 48, 48 };
int fake_count_fixed[HAL_PMU_EVENTS_MAX] = { -1, -1 };
bool fake_count_counts[HAL_PMU_EVENTS_MAX] = { true, true };
bool fake_count_standard[HAL_PMU_EVENTS_MAX] = { true, true };
bool fake_count_can_open[HAL_PMU_EVENTS_MAX] = { true, true };
struct hal_pmu_counters fake_count_counters = { 4, 0 };
uint64_t fake_count_value[HAL_MAX_CPUS][HAL_PMU_EVENTS_MAX];
uint64_t fake_count_rate[HAL_MAX_CPUS][HAL_PMU_EVENTS_MAX];
bool fake_count_is_open[HAL_MAX_CPUS];
unsigned fake_count_opens, fake_count_closes;
unsigned fake_count_open_n[HAL_MAX_CPUS];
unsigned fake_count_open_ev[HAL_MAX_CPUS][HAL_PMU_COUNT_MAX];
unsigned fake_count_open_max;

static uint64_t fake_count_since[HAL_MAX_CPUS][HAL_PMU_EVENTS_MAX];

unsigned hal_pmu_events(struct hal_pmu_event ev[], unsigned max,
			struct hal_pmu_counters *counters)
{
	unsigned n = fake_count_n < max ? fake_count_n : max;

	for (unsigned i = 0; i < n; i++) {
		memset(&ev[i], 0, sizeof(ev[i]));
		ev[i].name = fake_count_names[i];
		snprintf(ev[i].source, sizeof(ev[i].source), "fake event %u", i);
		ev[i].bits = fake_count_bits[i];
		ev[i].fixed = fake_count_fixed[i];
		ev[i].counts = fake_count_counts[i];
		ev[i].standard = fake_count_standard[i];
		if (!ev[i].counts)
			snprintf(ev[i].why_not, sizeof(ev[i].why_not), "fake: claimed, never moved");
	}
	*counters = fake_count_counters;
	return n;
}

/* An event advances at its rate only while it is programmed, as a
 * counter does: what multiplexing has to scale back up. */
static void fake_count_advance(unsigned cpu)
{
	for (unsigned k = 0; k < fake_count_open_n[cpu]; k++) {
		unsigned e = fake_count_open_ev[cpu][k];
		uint64_t dt = fake_now_ns - fake_count_since[cpu][e];

		fake_count_value[cpu][e] += fake_count_rate[cpu][e] * dt / 1000000000u;
		fake_count_since[cpu][e] = fake_now_ns;
	}
}

/* The HAL contract broken by the core under test: its reason, then
 * abort (the Check suite's fork reports the signal).  libfakehal links
 * into the fuzz targets too, which have no Check library. */
#define FAKE_PMU_REQUIRE(cond, ...)					\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fake_pmu: " __VA_ARGS__);	\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

void hal_pmu_count_open(const unsigned ev[], unsigned n, bool open[])
{
	unsigned cpu = hal_cpu_id(), general = 0;

	FAKE_PMU_REQUIRE(!fake_count_is_open[cpu], "cpu %u: opened twice", cpu);
	FAKE_PMU_REQUIRE(n <= HAL_PMU_COUNT_MAX, "%u events opened, at most %u", n, HAL_PMU_COUNT_MAX);
	for (unsigned i = 0; i < n; i++) {
		FAKE_PMU_REQUIRE(ev[i] < fake_count_n, "event %u of %u", ev[i], fake_count_n);
		general += fake_count_fixed[ev[i]] < 0;
		open[i] = fake_count_can_open[ev[i]];
		fake_count_open_ev[cpu][i] = ev[i];
		fake_count_since[cpu][ev[i]] = fake_now_ns;
	}
	/* The core never asks for more than the part has. */
	FAKE_PMU_REQUIRE(general <= fake_count_counters.general,
			 "%u general counters asked, the part has %u", general,
			 fake_count_counters.general);
	fake_count_open_n[cpu] = n;
	if (n > fake_count_open_max)
		fake_count_open_max = n;
	fake_count_is_open[cpu] = true;
	fake_count_opens++;
}

void hal_pmu_count_read(uint64_t values[])
{
	unsigned cpu = hal_cpu_id();

	fake_count_advance(cpu);
	for (unsigned k = 0; k < fake_count_open_n[cpu]; k++) {
		unsigned e = fake_count_open_ev[cpu][k];

		values[k] = fake_count_can_open[e] ? fake_count_value[cpu][e] : 0;
	}
}

uint64_t fake_soft_incr[HAL_MAX_CPUS];
bool fake_soft_incr_has = true;

bool hal_pmu_soft_incr(void)
{
	if (!fake_soft_incr_has)
		return false;
	fake_soft_incr[hal_cpu_id()]++;
	return true;
}

void hal_pmu_count_close(void)
{
	unsigned cpu = hal_cpu_id();

	fake_count_advance(cpu);
	fake_count_open_n[cpu] = 0;
	fake_count_is_open[cpu] = false;
	fake_count_closes++;
}
