/* SPDX-License-Identifier: BSD-2-Clause */
/* `stat`'s report (prof/stat.h): the plain table, a line per CPU, and
 * the listed one, a line per event with each count scaled to its window
 * and its running share where the events were multiplexed. */
#include "prof/stat.h"
#include "prof/stat_test.h"

#include "hal/cpu.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "prof/sampler.h"

#define STAT_COL 14

static uint64_t stat_ms(uint64_t ns)
{
	return (ns + 500000) / 1000000;
}

static int stat_event_index(const struct stat_cpu_result *r, const char *name)
{
	for (unsigned i = 0; i < r->nevents; i++)
		if (kstreq(r->names[i], name))
			return (int)i;
	return -1;
}

/* @num / @den as a ratio, two decimals (x1) or a percentage, one
 * decimal (x100), integers only; "-" without both. */
static void stat_ratio(char *buf, size_t size, uint64_t num, uint64_t den, bool percent)
{
	unsigned __int128 scaled;
	uint64_t v;

	if (!den) {
		kstrlcpy(buf, "-", size);
		return;
	}
	scaled = (unsigned __int128)num * (percent ? 1000 : 100) + den / 2;
	v = (uint64_t)(scaled / den);
	if (percent)
		ksnprintf(buf, size, "%llu.%llu%%", (unsigned long long)(v / 10),
			  (unsigned long long)(v % 10));
	else
		ksnprintf(buf, size, "%llu.%02llu", (unsigned long long)(v / 100),
			  (unsigned long long)(v % 100));
}

/* Add @r into @sum: an event is counted in the total only when it was
 * counted on every CPU the total covers. */
static void stat_add(struct stat_cpu_result *sum, const struct stat_cpu_result *r,
		     bool first)
{
	for (unsigned i = 0; i < r->nevents; i++) {
		sum->counted[i] = (first || sum->counted[i]) && r->counted[i];
		sum->ran[i] = (first || sum->ran[i]) && r->ran[i];
		sum->delta[i] += r->delta[i];
		sum->raw[i] += r->raw[i];
		sum->run_ns[i] += r->run_ns[i];
		sum->names[i] = r->names[i];
	}
	sum->nevents = r->nevents;
	sum->window_ns += r->window_ns;
	sum->idle_ns += r->idle_ns;
	sum->rotations += r->rotations;
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

static bool stat_shown(const struct stat_session *ss, unsigned c, int cpu)
{
	return ((ss->run_cpus >> c) & 1) && (cpu == STAT_CPU_ALL || (unsigned)cpu == c);
}

/* The time the counts below cover: each CPU counts from its own open to
 * its own close, on its ticks, so from the first open to the last close
 * of the CPUs shown -- not the session's window, which opens after
 * every CPU did and closes before any does.  When the CPUs' own windows
 * differ, their range too. */
static void stat_counted_line(struct out *o, const struct stat_session *ss, int cpu)
{
	uint64_t first = 0, last = 0, shortest = 0, longest = 0;
	bool any = false;

	for (unsigned c = 0; c < HAL_MAX_CPUS; c++) {
		const struct stat_cpu *sc = &stat_cpus[c];
		struct stat_cpu_result r;

		if (!stat_shown(ss, c, cpu))
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
		out_printf(o, "counted %llu ms\n", (unsigned long long)stat_ms(ss->t1 - ss->t0));
		return;
	}
	out_printf(o, "counted %llu ms", (unsigned long long)stat_ms(last - first));
	if (stat_ms(shortest) != stat_ms(longest))
		out_printf(o, " (each cpu's own window %llu-%llu ms)",
			   (unsigned long long)stat_ms(shortest),
			   (unsigned long long)stat_ms(longest));
	out_puts(o, "\n");
}

/* ---- the plain table: a line per CPU ---- */

static void stat_count_cell(struct out *o, bool counted, uint64_t v)
{
	char buf[24];

	if (counted)
		ksnprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	else
		kstrlcpy(buf, "not counted", sizeof(buf));
	out_printf(o, " %*s", STAT_COL, buf);
}

static void stat_idle_cell(struct out *o, uint64_t idle, uint64_t window)
{
	uint64_t tenths = window ? (idle * 1000 + window / 2) / window : 0;

	if (tenths > 1000)
		tenths = 1000;
	out_printf(o, " %5llu.%llu%%", (unsigned long long)(tenths / 10),
		   (unsigned long long)(tenths % 10));
}

static void stat_row(struct out *o, const char *label, const struct stat_cpu_result *r)
{
	int cyc = stat_event_index(r, "cycles"), ins = stat_event_index(r, "instructions");
	char ipc[24];

	out_printf(o, "%-5s", label);
	for (unsigned i = 0; i < r->nevents; i++)
		stat_count_cell(o, r->counted[i], r->delta[i]);
	if (cyc >= 0 && ins >= 0 && r->counted[cyc] && r->counted[ins])
		stat_ratio(ipc, sizeof(ipc), r->delta[ins], r->delta[cyc], false);
	else
		kstrlcpy(ipc, "-", sizeof(ipc));
	out_printf(o, " %6s", ipc);
	stat_idle_cell(o, r->idle_ns, r->window_ns);
	out_puts(o, "\n");
}

static void stat_header(struct out *o, const struct stat_cpu_result *r)
{
	out_printf(o, "%-5s", "cpu");
	for (unsigned i = 0; i < r->nevents; i++)
		out_printf(o, " %*s", STAT_COL, r->names[i]);
	out_printf(o, " %6s %7s\n", "ipc", "idle");
}

/* Say plainly which events nothing counted, and why that can be. */
static void stat_not_counted_note(struct out *o, const struct stat_cpu_result *r,
				  const bool *any_counted)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->nevents; i++) {
		if (any_counted[i])
			continue;
		out_printf(o, "%s%s", n++ ? ", " : "not counted on any cpu: ", r->names[i]);
	}
	if (n)
		out_puts(o, " (this machine does not count them, or they never moved)\n");
}

/* A plain stat's events multiplexed (ksim --pmu-counters=): each one's
 * share of the window in all, as the listed report gives it per cell. */
static void stat_shares_note(struct out *o, const struct stat_cpu_result *sum)
{
	unsigned n = 0;
	char share[16];

	for (unsigned i = 0; i < sum->nevents; i++) {
		if (!sum->ran[i] || sum->run_ns[i] >= sum->window_ns)
			continue;
		stat_ratio(share, sizeof(share), sum->run_ns[i], sum->window_ns, true);
		out_printf(o, "%s%s %s", n++ ? ", " : "multiplexed, scaled to the window: ",
			   sum->names[i], share);
	}
	if (n)
		out_puts(o, " of it counted\n");
}

static void stat_report_plain(struct out *o, const struct stat_session *ss, int cpu)
{
	struct stat_cpu_result r, sum;
	unsigned shown = 0;
	bool any_counted[STAT_EVENTS_MAX] = { false };
	char label[8];

	kmemset(&sum, 0, sizeof(sum));
	stat_result(0, &r);
	stat_header(o, &r);
	for (unsigned c = 0; c < HAL_MAX_CPUS; c++) {
		if (!stat_shown(ss, c, cpu))
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
	stat_left_out(o, ss->unopened, "open their counters", ss->open_wait_ns);
	stat_left_out(o, ss->unclosed & ~ss->unopened, "read their counters",
		      ss->close_wait_ns);
	stat_not_counted_note(o, &r, any_counted);
	if (shown)
		stat_shares_note(o, &sum);
}

/* ---- the listed report: a line per event, a column per CPU ---- */

#define STAT_LIST_COLS (HAL_MAX_CPUS + 2)
#define STAT_NAME_COL 22
#define STAT_CELL 14
#define STAT_SHARE_PAD "         "	/* where " (62.5%)" goes */

struct stat_columns {
	unsigned n;
	char label[STAT_LIST_COLS][16];
	struct stat_cpu_result r[STAT_LIST_COLS];
};

/* The task's column first (`stat pid=`), then each CPU shown, then all. */
static void stat_gather(const struct stat_session *ss, int cpu, struct stat_columns *cols)
{
	struct stat_cpu_result sum;
	unsigned shown = 0;

	cols->n = 0;
	kmemset(&sum, 0, sizeof(sum));
	if (ss->pid && stat_task_result(&cols->r[cols->n])) {
		ksnprintf(cols->label[cols->n++], sizeof(cols->label[0]), "pid %d", ss->pid);
	}
	for (unsigned c = 0; c < HAL_MAX_CPUS; c++) {
		struct stat_cpu_result *r = &cols->r[cols->n];

		if (!stat_shown(ss, c, cpu))
			continue;
		stat_result(c, r);
		if (!r->answered)
			continue;
		stat_add(&sum, r, shown++ == 0);
		ksnprintf(cols->label[cols->n++], sizeof(cols->label[0]), "cpu %u", c);
	}
	if (cpu == STAT_CPU_ALL && shown > 1) {
		cols->r[cols->n] = sum;
		kstrlcpy(cols->label[cols->n++], "all", sizeof(cols->label[0]));
	}
}

/* "12345 (62.5%)": the count scaled to the window, and the share of the
 * window it was counted in when that was not all of it. */
static void stat_list_cell(struct out *o, const struct stat_cpu_result *r, unsigned i,
			   bool last)
{
	char share[16];

	if (!r->counted[i]) {
		out_printf(o, " %*s%s", STAT_CELL, "not counted", last ? "" : STAT_SHARE_PAD);
		return;
	}
	out_printf(o, " %*llu", STAT_CELL, (unsigned long long)r->delta[i]);
	if (r->run_ns[i] < r->window_ns) {
		stat_ratio(share, sizeof(share), r->run_ns[i], r->window_ns, true);
		out_printf(o, " (%5s)", share);
	} else if (!last) {
		out_puts(o, STAT_SHARE_PAD);
	}
}

/* A derived figure where both sides were counted in that column. */
static void stat_derived(struct out *o, const struct stat_columns *cols, const char *label,
			 const char *num, const char *den, bool percent)
{
	const struct stat_cpu_result *r0 = &cols->r[0];
	int a = stat_event_index(r0, num), b = stat_event_index(r0, den);
	char buf[24];

	if (a < 0 || b < 0)
		return;
	out_printf(o, "%-*s", STAT_NAME_COL, label);
	for (unsigned k = 0; k < cols->n; k++) {
		const struct stat_cpu_result *r = &cols->r[k];

		if (r->counted[a] && r->counted[b])
			stat_ratio(buf, sizeof(buf), r->delta[a], r->delta[b], percent);
		else
			kstrlcpy(buf, "-", sizeof(buf));
		out_printf(o, " %*s%s", STAT_CELL, buf, k + 1 < cols->n ? STAT_SHARE_PAD : "");
	}
	out_puts(o, "\n");
}

/* Why each event that counted nowhere did not. */
static void stat_list_why(struct out *o, const struct stat_session *ss,
			  const struct stat_columns *cols)
{
	for (unsigned i = 0; i < ss->plan->n; i++) {
		const struct event *e = &ss->table->ev[ss->plan->ev[i]];
		bool any = false;

		for (unsigned k = 0; k < cols->n; k++)
			any |= cols->r[k].counted[i];
		if (any)
			continue;
		if (!e->counts)
			out_printf(o, "%s: not counted: %s\n", e->name, e->why_not);
		else
			out_printf(o, "%s: not counted: opened but never moved\n", e->name);
	}
}

static void stat_list_head(struct out *o, const struct stat_session *ss,
			   const struct stat_columns *cols)
{
	const struct stat_plan *p = ss->plan;

	if (ss->pid && cols->n && cols->label[0][0] == 'p')
		out_printf(o, "pid %d (%s) on cpu %u: on its cpu %llu ms of the window, came on %llu times\n",
			   ss->pid, ss->task_name, ss->task_cpu,
			   (unsigned long long)stat_ms(cols->r[0].window_ns),
			   (unsigned long long)cols->r[0].switches_in);
	if (p->nsets > 1)
		out_printf(o, "%u events on %u general + %u fixed counters: %u sets rotated on the tick\n",
			   p->n, ss->table->counters.general, ss->table->counters.fixed, p->nsets);
	out_printf(o, "%-*s", STAT_NAME_COL, "event");
	for (unsigned k = 0; k < cols->n; k++)
		out_printf(o, " %*s%s", STAT_CELL, cols->label[k],
			   k + 1 < cols->n ? STAT_SHARE_PAD : "");
	out_puts(o, "\n");
}

static struct stat_columns stat_cols;	/* the session holder's only */

static void stat_report_listed(struct out *o, const struct stat_session *ss, int cpu)
{
	struct stat_columns *cols = &stat_cols;

	stat_gather(ss, cpu, cols);
	if (!cols->n) {
		stat_left_out(o, ss->unopened, "open their counters", ss->open_wait_ns);
		return;
	}
	stat_list_head(o, ss, cols);
	for (unsigned i = 0; i < ss->plan->n; i++) {
		out_printf(o, "%-*s", STAT_NAME_COL, cols->r[0].names[i]);
		for (unsigned k = 0; k < cols->n; k++)
			stat_list_cell(o, &cols->r[k], i, k + 1 == cols->n);
		out_puts(o, "\n");
	}
	stat_derived(o, cols, "ipc", "instructions", "cycles", false);
	stat_derived(o, cols, "branch-miss", "branch-misses", "branches", true);
	stat_derived(o, cols, "cache-miss", "cache-misses", "cache-references", true);
	stat_left_out(o, ss->unopened, "open their counters", ss->open_wait_ns);
	stat_left_out(o, ss->unclosed & ~ss->unopened, "read their counters",
		      ss->close_wait_ns);
	stat_list_why(o, ss, cols);
}

void stat_report(struct out *o, int cpu)
{
	struct stat_session ss;

	stat_session_get(&ss);
	/* A task's counts are shown beside its own cpu's. */
	if (ss.pid)
		cpu = (int)ss.task_cpu;
	stat_counted_line(o, &ss, cpu);
	if (ss.listed || ss.pid)
		stat_report_listed(o, &ss, cpu);
	else
		stat_report_plain(o, &ss, cpu);
}
