/* SPDX-License-Identifier: BSD-2-Clause */
#include "prof/stat.h"
#include "prof/stat_test.h"

#include "hal/cpu.h"
#include "hal/timer.h"
#include "prof/profiler.h"
#include "prof/sampler.h"
#include "prof/tick_ask.h"
#include "kernel/sched.h"
#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/out.h"

/* The session as it is published, for the sampler (sampler.h).  The
 * running session, 0 when none, and the one last stopped: the stop
 * generation is published first (as the profiler's is), so a CPU that
 * sees no session also sees which one ended. */
unsigned stat_gen, stat_stop_gen;

/* The session's holder only. */
static unsigned stat_run_gen, stat_last_gen;
static uint32_t stat_run_cpus, stat_unopened, stat_unclosed;
static uint64_t stat_t0, stat_t1, stat_open_wait_ns, stat_close_wait_ns;
static unsigned stat_nevents;
static const char *stat_names[HAL_PMU_COUNT_MAX];
static unsigned stat_bits[HAL_PMU_COUNT_MAX];

uint64_t stat_delta(uint64_t start, uint64_t end, unsigned bits)
{
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;

	return (end - start) & mask;
}

/* ---- the session: task context ---- */

int stat_start(void)
{
	unsigned n = hal_cpu_count();

	if (prof_counters_claim() < 0)
		return -EBUSY;
	if (stat_cpus_still_open()) {
		prof_counters_release();
		return -EINPROGRESS;
	}
	stat_nevents = hal_pmu_count_events(stat_names, stat_bits);
	if (stat_nevents > HAL_PMU_COUNT_MAX)
		stat_nevents = HAL_PMU_COUNT_MAX;
	if (n > HAL_MAX_CPUS)
		n = HAL_MAX_CPUS;
	stat_run_cpus = n >= 32 ? ~0u : (1u << n) - 1;
	stat_unopened = stat_unclosed = 0;
	stat_open_wait_ns = stat_close_wait_ns = 0;
	if (++stat_last_gen == 0)
		stat_last_gen = 1;
	stat_run_gen = stat_last_gen;
	stat_t0 = stat_t1 = hal_clock_ns();
	__atomic_store_n(&stat_gen, stat_run_gen, __ATOMIC_RELEASE);
	return 0;
}

/* The session's CPUs, asked to answer on their tick: opened, or read
 * their end and closed (a CPU that never opened is not asked again). */
static struct tick_ask stat_ask(uint32_t cpus, const unsigned *answer)
{
	return (struct tick_ask){ cpus, stat_run_gen, answer, sizeof(stat_cpus[0]) };
}

uint32_t stat_wait_open(uint64_t budget_ns, void (*pause)(void *ctx), void *ctx)
{
	struct tick_ask ask = stat_ask(stat_run_cpus, &stat_cpus[0].open_gen);

	stat_unopened = tick_ask_wait(&ask, budget_ns, pause, ctx);
	stat_open_wait_ns = budget_ns;
	stat_t0 = hal_clock_ns();
	return stat_unopened;
}

void stat_stop(void)
{
	if (!__atomic_load_n(&stat_gen, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&stat_stop_gen, stat_run_gen, __ATOMIC_RELEASE);
	stat_t1 = hal_clock_ns();
	__atomic_store_n(&stat_gen, 0, __ATOMIC_RELEASE);
}

uint32_t stat_wait_closed(uint64_t budget_ns, void (*pause)(void *ctx), void *ctx)
{
	struct tick_ask ask = stat_ask(stat_run_cpus & ~stat_unopened,
				       &stat_cpus[0].close_gen);

	stat_unclosed = tick_ask_wait(&ask, budget_ns, pause, ctx);
	stat_close_wait_ns = budget_ns;
	return stat_unclosed;
}

/* The session gives the counters back, but a CPU that missed its stop
 * still counts: stat_open_cpus keeps the claim (stat_start() and
 * prof_start_as() refuse while a bit is set) until that CPU's tick closes
 * its events and clears the last bit. */
void stat_end(void)
{
	stat_stop();
	prof_counters_release();
}

uint32_t stat_cpus_still_open(void)
{
	return __atomic_load_n(&stat_open_cpus, __ATOMIC_ACQUIRE);
}

void stat_print_still_open(struct out *o, const char *whose)
{
	uint32_t mask = stat_cpus_still_open();
	unsigned n = 0;

	if (!mask) {
		out_printf(o, "%s was still open on a cpu that missed its stop (closed since); try again\n",
			   whose);
		return;
	}
	out_printf(o, "%s still open on cpu", whose);
	for (unsigned cpu = 0; cpu < 32; cpu++)
		if ((mask >> cpu) & 1)
			out_printf(o, "%s%u", n++ ? "," : (mask & (mask - 1)) ? "s " : " ", cpu);
	out_printf(o, " (%s); try again shortly\n",
		   n == 1 ? "it missed its stop" : "they missed their stop");
}

void stat_result(unsigned cpu, struct stat_cpu_result *r)
{
	const struct stat_cpu *c = &stat_cpus[cpu];

	kmemset(r, 0, sizeof(*r));
	r->nevents = stat_nevents;
	for (unsigned i = 0; i < stat_nevents; i++)
		r->names[i] = stat_names[i];
	r->answered = ((stat_run_cpus >> cpu) & 1) &&
		      !(((stat_unopened | stat_unclosed) >> cpu) & 1) &&
		      __atomic_load_n(&c->close_gen, __ATOMIC_ACQUIRE) == stat_run_gen;
	if (!r->answered)
		return;
	for (unsigned i = 0; i < stat_nevents; i++) {
		r->delta[i] = stat_delta(c->start[i], c->end[i], stat_bits[i]);
		/* A count that never moved is no count: never a zero passed
		 * off as one. */
		r->counted[i] = c->open[i] && r->delta[i] != 0;
	}
	r->window_ns = c->t1 - c->t0;
	r->idle_ns = c->idle1 - c->idle0;
	r->cpu_time = c->ct1 - c->ct0;
}

/* ---- the report ---- */

#define STAT_COL 14

static void stat_count_cell(struct out *o, bool counted, uint64_t v)
{
	char buf[24];

	if (counted)
		ksnprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	else
		kstrlcpy(buf, "not counted", sizeof(buf));
	out_printf(o, " %*s", STAT_COL, buf);
}

/* Instructions per cycle, two decimals, integers only; "-" without both. */
static void stat_ipc_cell(struct out *o, bool have, uint64_t instr, uint64_t cycles)
{
	char buf[24];

	if (have && cycles) {
		uint64_t x100 = (instr * 100 + cycles / 2) / cycles;

		ksnprintf(buf, sizeof(buf), "%llu.%02llu",
			  (unsigned long long)(x100 / 100), (unsigned long long)(x100 % 100));
	} else {
		kstrlcpy(buf, "-", sizeof(buf));
	}
	out_printf(o, " %6s", buf);
}

static void stat_idle_cell(struct out *o, uint64_t idle, uint64_t window)
{
	uint64_t tenths = window ? (idle * 1000 + window / 2) / window : 0;

	if (tenths > 1000)
		tenths = 1000;
	out_printf(o, " %5llu.%llu%%", (unsigned long long)(tenths / 10),
		   (unsigned long long)(tenths % 10));
}

static int stat_event_index(const char *name)
{
	for (unsigned i = 0; i < stat_nevents; i++)
		if (kstreq(stat_names[i], name))
			return (int)i;
	return -1;
}

static void stat_row(struct out *o, const char *label, const struct stat_cpu_result *r)
{
	int cyc = stat_event_index("cycles"), ins = stat_event_index("instructions");

	out_printf(o, "%-5s", label);
	for (unsigned i = 0; i < r->nevents; i++)
		stat_count_cell(o, r->counted[i], r->delta[i]);
	stat_ipc_cell(o, cyc >= 0 && ins >= 0 && r->counted[cyc] && r->counted[ins],
		      ins >= 0 ? r->delta[ins] : 0, cyc >= 0 ? r->delta[cyc] : 0);
	stat_idle_cell(o, r->idle_ns, r->window_ns);
	out_puts(o, "\n");
}

static void stat_header(struct out *o)
{
	out_printf(o, "%-5s", "cpu");
	for (unsigned i = 0; i < stat_nevents; i++)
		out_printf(o, " %*s", STAT_COL, stat_names[i]);
	out_printf(o, " %6s %7s\n", "ipc", "idle");
}

/* Add @r into @sum: an event is counted in the total only when it was
 * counted on every CPU the total covers. */
static void stat_add(struct stat_cpu_result *sum, const struct stat_cpu_result *r,
		     bool first)
{
	for (unsigned i = 0; i < r->nevents; i++) {
		sum->counted[i] = (first || sum->counted[i]) && r->counted[i];
		sum->delta[i] += r->delta[i];
	}
	sum->nevents = r->nevents;
	sum->window_ns += r->window_ns;
	sum->idle_ns += r->idle_ns;
}

static void stat_left_out(struct out *o, uint32_t mask, const char *what,
			  uint64_t wait_ns)
{
	if (!mask)
		return;
	out_puts(o, "cpus");
	for (unsigned cpu = 0, n = 0; cpu < 32; cpu++)
		if ((mask >> cpu) & 1)
			out_printf(o, "%s%u", n++ ? "," : " ", cpu);
	out_printf(o, " did not %s within %llu ms; left out\n", what,
		   (unsigned long long)(wait_ns / 1000000));
}

/* Say plainly which events nothing counted, and why that can be. */
static void stat_not_counted_note(struct out *o, const bool *any_counted)
{
	unsigned n = 0;

	for (unsigned i = 0; i < stat_nevents; i++) {
		if (any_counted[i])
			continue;
		out_printf(o, "%s%s", n++ ? ", " : "not counted on any cpu: ", stat_names[i]);
	}
	if (n)
		out_puts(o, " (this machine does not count them, or they never moved)\n");
}

static uint64_t stat_ms(uint64_t ns)
{
	return (ns + 500000) / 1000000;
}

static bool stat_shown(unsigned c, int cpu)
{
	return ((stat_run_cpus >> c) & 1) && (cpu == STAT_CPU_ALL || (unsigned)cpu == c);
}

/* The time the counts below cover: each CPU counts from its own open to
 * its own close, on its ticks, so from the first open to the last close
 * of the CPUs shown -- not the session's window, which opens after
 * every CPU did and closes before any does.  When the CPUs' own windows
 * differ, their range too. */
static void stat_counted_line(struct out *o, int cpu)
{
	uint64_t first = 0, last = 0, shortest = 0, longest = 0;
	bool any = false;

	for (unsigned c = 0; c < HAL_MAX_CPUS; c++) {
		const struct stat_cpu *sc = &stat_cpus[c];
		struct stat_cpu_result r;

		if (!stat_shown(c, cpu))
			continue;
		stat_result(c, &r);
		if (!r.answered)
			continue;
		if (!any || (int64_t)(sc->t0 - first) < 0)
			first = sc->t0;
		if (!any || (int64_t)(sc->t1 - last) > 0)
			last = sc->t1;
		if (!any || r.window_ns < shortest)
			shortest = r.window_ns;
		if (!any || r.window_ns > longest)
			longest = r.window_ns;
		any = true;
	}
	if (!any) {
		out_printf(o, "counted %llu ms\n", (unsigned long long)stat_ms(stat_t1 - stat_t0));
		return;
	}
	out_printf(o, "counted %llu ms", (unsigned long long)stat_ms(last - first));
	if (stat_ms(shortest) != stat_ms(longest))
		out_printf(o, " (each cpu's own window %llu-%llu ms)",
			   (unsigned long long)stat_ms(shortest),
			   (unsigned long long)stat_ms(longest));
	out_puts(o, "\n");
}

void stat_report(struct out *o, int cpu)
{
	struct stat_cpu_result r, sum;
	unsigned shown = 0;
	bool any_counted[HAL_PMU_COUNT_MAX] = { false };
	char label[8];

	kmemset(&sum, 0, sizeof(sum));
	stat_counted_line(o, cpu);
	stat_header(o);
	for (unsigned c = 0; c < HAL_MAX_CPUS; c++) {
		if (!stat_shown(c, cpu))
			continue;
		stat_result(c, &r);
		if (!r.answered)
			continue;
		ksnprintf(label, sizeof(label), "%u", c);
		stat_row(o, label, &r);
		stat_add(&sum, &r, shown++ == 0);
		for (unsigned i = 0; i < r.nevents; i++)
			any_counted[i] |= r.counted[i];
	}
	if (cpu == STAT_CPU_ALL && shown)
		stat_row(o, "all", &sum);
	stat_left_out(o, stat_unopened, "open their counters", stat_open_wait_ns);
	stat_left_out(o, stat_unclosed & ~stat_unopened, "read their counters",
		      stat_close_wait_ns);
	stat_not_counted_note(o, any_counted);
}
