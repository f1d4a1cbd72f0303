/* SPDX-License-Identifier: BSD-2-Clause */
/* stat [ms] [all|cpu]: count cycles, instructions and whatever else the
 * platform counts, per CPU, over a window (prof/stat.h). */
#include <stdint.h>

#include "hal/cpu.h"
#include "hal/timer.h"
#include "prof/profiler.h"
#include "kernel/sched.h"
#include "kernel/tick.h"
#include "prof/stat.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "shell/commands.h"
#include "shell/shell.h"

struct stat_args {
	uint64_t window_ms;
	int cpu;
};

static int stat_parse(struct out *o, int argc, char **argv, struct stat_args *a)
{
	uint64_t v;
	int r;

	a->window_ms = STAT_WINDOW_DEFAULT_MS;
	a->cpu = STAT_CPU_ALL;
	if (argc > 3) {
		out_puts(o, "stat: too many arguments (usage: " CMD_STAT_USAGE ")\n");
		return -E2BIG;
	}
	if (argc > 1) {
		r = parse_u64(argv[1], &a->window_ms);
		if (r == -EINVAL) {
			out_printf(o, "stat: window must be a number of ms (got %s)\n", argv[1]);
			return r;
		}
		if (r < 0 || a->window_ms < STAT_WINDOW_MIN_MS ||
		    a->window_ms > STAT_WINDOW_MAX_MS) {
			out_printf(o, "stat: window must be %d-%d ms (got %s)\n",
				   STAT_WINDOW_MIN_MS, STAT_WINDOW_MAX_MS, argv[1]);
			return -ERANGE;
		}
	}
	if (argc > 2 && !kstreq(argv[2], "all")) {
		if (parse_u64(argv[2], &v) < 0 || v >= hal_cpu_count()) {
			out_printf(o, "stat: cpu must be all or 0-%u (got %s)\n",
				   hal_cpu_count() - 1, argv[2]);
			return -EINVAL;
		}
		a->cpu = (int)v;
	}
	return 0;
}

int cmd_stat(struct shell_ctx *sh, int argc, char **argv)
{
	struct stat_args a;
	int r;

	if (stat_parse(sh->out, argc, argv, &a) < 0)
		return 1;
	r = stat_start();
	if (r == -EINPROGRESS) {
		stat_print_still_open(sh->out, "stat: the last stat's counter");
		return 1;
	}
	if (r < 0) {
		out_puts(sh->out, "stat: busy\n");
		return 1;
	}
	stat_wait_open(tick_answer_ns(), sched_pause_tick, NULL);
	sched_sleep_window_ms(a.window_ms);
	stat_stop();
	stat_wait_closed(prof_answer_budget_ns(), sched_pause_tick, NULL);
	stat_report(sh->out, a.cpu);
	stat_end();
	return 0;
}
