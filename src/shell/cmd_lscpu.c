/* SPDX-License-Identifier: BSD-2-Clause */
/* lscpu: the CPUs, what their counter claims, what the probe proved, and
 * the source `profile` would use. */
#include "hal/cpu.h"
#include "hal/pmu.h"
#include "kernel/build_id.h"
#include "kernel/kernel.h"
#include "kernel/sched.h"
#include "kernel/tick.h"
#include "prof/profiler.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "shell/commands.h"
#include "shell/shell.h"

static void lscpu_counts(struct out *o, const struct hal_pmu_info *info)
{
	if (prof_counter_counts(info))
		out_puts(o, "pmu counts: yes\n");
	else if (info->counts)
		out_puts(o, "pmu counts: yes, at a rate the probe did not find\n");
	else if (info->why_not[0])
		out_printf(o, "pmu counts: no (%s)\n", info->why_not);
	else
		out_puts(o, info->claimed ? "pmu counts: no\n"
					  : "pmu counts: no (nothing claimed)\n");
}

static void lscpu_machine(struct out *o, const struct hal_pmu_facts *f)
{
	unsigned n = f->nlines < HAL_PMU_FACT_LINES ? f->nlines : HAL_PMU_FACT_LINES;

	/* The platform's own lines first (its interrupt controller). */
	for (unsigned i = 0; i < n; i++)
		if (f->lines[i].label)
			out_printf(o, "%s: %s\n", f->lines[i].label, f->lines[i].text);
	if (f->counter && f->counter_hz)
		out_printf(o, "pmu: %s at %llu cycles/s (against %s), period %llu at %d samples/s\n",
			   f->counter, (unsigned long long)f->counter_hz, f->clock,
			   (unsigned long long)(f->counter_hz / PROF_COUNTER_HZ), PROF_COUNTER_HZ);
	if (!f->insn_counter)
		return;
	if (f->insn_bits >= 64)
		out_printf(o, "stat: instructions on %s, 64 bits (%s)\n", f->insn_counter,
			   f->insn_wide_by);
	else
		out_printf(o, "stat: instructions on %s, 32 bits, its overflows counted\n",
			   f->insn_counter);
}

/* A proven counter's line, with its interrupt's books where the
 * platform keeps them, and the profiler's of its last run. */
static void lscpu_proven(struct out *o, unsigned cpu, const struct hal_pmu_cpu_facts *c)
{
	struct prof_cpu_stats st;

	if (!c->irqs) {
		out_printf(o, "cpu %u: counter claimed, proven, %s\n", cpu,
			   c->used ? "used" : "not used yet");
		return;
	}
	out_printf(o, "cpu %u: counter claimed, proven, %s; pmu irqs: %llu claimed, %llu without overflow, %llu unarmed; %llu spurious acks; handler %llu cycles/sample\n",
		   cpu, c->used ? "used" : "not used yet",
		   (unsigned long long)c->claimed, (unsigned long long)c->no_overflow,
		   (unsigned long long)c->unarmed, (unsigned long long)c->spurious,
		   (unsigned long long)c->cycles_per_sample);
	if (!c->used)
		return;
	prof_cpu_stats(cpu, &st);
	/* The backend counts claims since its last arm: of an older run
	 * when this CPU's counter did not arm for the last (its vCPU came
	 * too late, the run sampled on the tick), so not shown beside this
	 * run's books. */
	if (!st.counter_armed) {
		out_printf(o, "cpu %u last run: counter not armed for it; %u stored, %llu dropped, %llu late; %llu disarm waits timed out\n",
			   cpu, st.stored, (unsigned long long)st.dropped,
			   (unsigned long long)st.late,
			   (unsigned long long)c->disarm_timeouts);
		return;
	}
	out_printf(o, "cpu %u last run: %llu claimed; %u stored, %llu dropped, %llu late; %llu disarm waits timed out\n",
		   cpu, (unsigned long long)c->claimed_run, st.stored,
		   (unsigned long long)st.dropped, (unsigned long long)st.late,
		   (unsigned long long)c->disarm_timeouts);
}

/* A CPU probes its counter when a run first arms it: while runs sample
 * on the tick none will, and "yet" would promise a probe that never
 * comes (@on_tick). */
static void lscpu_cpu(struct out *o, unsigned cpu, bool on_tick)
{
	struct hal_pmu_cpu_facts c;

	kmemset(&c, 0, sizeof(c));
	hal_pmu_cpu_facts(cpu, &c);
	switch (c.verdict) {
	case HAL_PMU_NOT_PROBED:
		if (on_tick)
			out_printf(o, "cpu %u: counter not probed (runs sample on the tick; a run with source=pmu probes it)\n",
				   cpu);
		else
			out_printf(o, "cpu %u: counter not probed yet (the first run probes it)\n", cpu);
		break;
	case HAL_PMU_NOT_CLAIMED:
		if (c.why[0])
			out_printf(o, "cpu %u: counter not claimed (%s)\n", cpu, c.why);
		else
			out_printf(o, "cpu %u: counter not claimed\n", cpu);
		break;
	case HAL_PMU_NOT_PROVEN:
		out_printf(o, "cpu %u: counter claimed, not proven (%s)\n", cpu, c.why);
		break;
	default:
		lscpu_proven(o, cpu, &c);
	}
}

/* The platform's facts, after the portable lines. */
static void lscpu_platform(struct out *o, bool on_tick)
{
	struct hal_pmu_facts f;
	unsigned n = hal_cpu_count();

	kmemset(&f, 0, sizeof(f));
	hal_pmu_facts(&f);
	lscpu_machine(o, &f);
	if (n > HAL_MAX_CPUS)
		n = HAL_MAX_CPUS;
	for (unsigned cpu = 0; f.cpus && cpu < n; cpu++)
		lscpu_cpu(o, cpu, on_tick);
	if (f.nmis)
		out_printf(o, "nmis: %llu unknown, %llu late overflows claimed\n",
			   (unsigned long long)f.unknown_nmis, (unsigned long long)f.late_nmis);
}

/* The image's build-id, where it carries one: what kprof-report --elf
 * and a debugger match the image's ELF file by. */
static void lscpu_build_id(struct out *o)
{
	char hex[2 * BUILD_ID_MAX + 1];

	if (build_id_hex(hex, sizeof(hex)))
		out_printf(o, "build id: %s\n", hex);
}

/* The tick's rate and each CPU's count of ticks taken, read at one
 * moment of the kernel's own clock: two readings give the rate the
 * hardware really delivered (tests/qemu: within 10% of tick.hz=). */
static void lscpu_tick(struct out *o)
{
	uint64_t ms = kernel_uptime_ns() / 1000000;
	unsigned n = hal_cpu_count();

	if (n > HAL_MAX_CPUS)
		n = HAL_MAX_CPUS;
	out_printf(o, "tick: %u Hz per cpu; ticks by %llu.%03llu s:", tick_hz(),
		   (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000));
	for (unsigned cpu = 0; cpu < n; cpu++)
		out_printf(o, "%s cpu %u %llu", cpu ? "," : "", cpu,
			   (unsigned long long)sched_cpu_ticks(cpu));
	out_puts(o, "\n");
}

int cmd_lscpu(struct shell_ctx *sh, int argc, char **argv)
{
	const struct hal_pmu_info *info;

	if (argc > 1) {
		out_printf(sh->out, "lscpu: takes no arguments (got %s)\n", argv[1]);
		return 1;
	}
	info = prof_pmu_info();
	out_printf(sh->out, "cpus: %u\n", hal_cpu_count());
	out_printf(sh->out, "pmu claims: %s\n", info->claim[0] ? info->claim : "nothing");
	lscpu_counts(sh->out, info);
	if (prof_counter_usable(info))
		out_printf(sh->out, "profile source: %s, %d samples/s per cpu\n",
			   info->source, PROF_COUNTER_HZ);
	else if (prof_counter_counts(info))
		/* It counts; the boot chose the tick (profile.source=tick). */
		out_printf(sh->out, "profile source: %s (profile.source=tick; source=pmu takes %s for one run)\n",
			   prof_source_name(info), info->source);
	else
		out_printf(sh->out, "profile source: %s\n", prof_source_name(info));
	lscpu_platform(sh->out, !prof_counter_usable(info));
	lscpu_build_id(sh->out);
	lscpu_tick(sh->out);
	return 0;
}
