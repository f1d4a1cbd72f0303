/* SPDX-License-Identifier: BSD-2-Clause */
/* lscpu: the CPUs, what their counter claims, what the probe proved, and
 * the source `profile` would use. */
#include "hal/cpu.h"
#include "hal/pmu.h"
#include "kernel/profiler.h"
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
	hal_pmu_lscpu(sh->out);
	return 0;
}
