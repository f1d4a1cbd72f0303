/* SPDX-License-Identifier: BSD-2-Clause */
/* profile [ms] [pid|all] [chains]: sample, then print the report. */
#include <stdint.h>

#include "hal/pmu.h"
#include "hal/timer.h"
#include "kernel/profiler.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "shell/commands.h"
#include "shell/shell.h"

struct profile_args {
	uint64_t window_ms;
	int pid;
	unsigned chains;
};

static int profile_parse_window(struct out *o, const char *s, uint64_t *ms)
{
	int r = parse_u64(s, ms);

	if (r == -EINVAL) {
		out_printf(o, "profile: window must be a number of ms (got %s)\n", s);
		return -EINVAL;
	}
	if (r < 0 || *ms < PROF_WINDOW_MIN_MS || *ms > PROF_WINDOW_MAX_MS) {
		out_printf(o, "profile: window must be %d-%d ms (got %s)\n",
			   PROF_WINDOW_MIN_MS, PROF_WINDOW_MAX_MS, s);
		return -ERANGE;
	}
	return 0;
}

static int profile_parse_pid(struct out *o, const char *s, int *pid)
{
	uint64_t v;
	int r;

	if (kstreq(s, "all")) {
		*pid = PROF_PID_ALL;
		return 0;
	}
	r = parse_u64(s, &v);
	if (r == -EINVAL) {
		out_printf(o, "profile: pid must be a number or all (got %s)\n", s);
		return -EINVAL;
	}
	/* Too large to be a pid is the same as naming no task. */
	if (r < 0 || v > INT32_MAX || !task_exists((int)v)) {
		out_printf(o, "profile: no task with pid %s\n", s);
		return -ENOENT;
	}
	*pid = (int)v;
	return 0;
}

static int profile_parse_chains(struct out *o, const char *s, unsigned *chains)
{
	uint64_t v;
	int r = parse_u64(s, &v);

	if (r == -EINVAL) {
		out_printf(o, "profile: chains must be a number (got %s)\n", s);
		return -EINVAL;
	}
	if (r < 0 || v < PROF_CHAINS_MIN || v > PROF_CHAINS_MAX) {
		out_printf(o, "profile: chains must be %d-%d (got %s)\n",
			   PROF_CHAINS_MIN, PROF_CHAINS_MAX, s);
		return -ERANGE;
	}
	*chains = (unsigned)v;
	return 0;
}

static int profile_parse(struct out *o, int argc, char **argv,
			 struct profile_args *a)
{
	a->window_ms = PROF_WINDOW_DEFAULT_MS;
	a->pid = PROF_PID_ALL;
	a->chains = PROF_CHAINS_DEFAULT;
	if (argc > 4) {
		out_puts(o, "profile: too many arguments (usage: profile [ms] [pid|all] [chains])\n");
		return -E2BIG;
	}
	if (argc > 1 && profile_parse_window(o, argv[1], &a->window_ms) < 0)
		return -EINVAL;
	if (argc > 2 && profile_parse_pid(o, argv[2], &a->pid) < 0)
		return -EINVAL;
	if (argc > 3 && profile_parse_chains(o, argv[3], &a->chains) < 0)
		return -EINVAL;
	return 0;
}

int cmd_profile(struct shell_ctx *sh, int argc, char **argv)
{
	const struct hal_pmu_info *info;
	struct profile_args a;
	int r;

	if (profile_parse(sh->out, argc, argv, &a) < 0)
		return 1;
	info = prof_pmu_info();
	if (prof_counter_required_but_absent(info)) {
		out_printf(sh->out, "profile: profile.source=pmu, but the counter does not count (%s)\n",
			   info->why_not[0] ? info->why_not : "no counter");
		return 1;
	}
	r = prof_start();
	if (r == -EBUSY) {
		out_puts(sh->out, "profile: busy\n");
		return 1;
	}
	if (r < 0) {
		out_puts(sh->out, "profile: out of memory for the sample buffers\n");
		return 1;
	}
	/* The window opens once every CPU samples, so that all of it is
	 * sampled time. */
	prof_wait_armed(hal_timer_answer_ns(), sched_pause_tick, NULL);
	sched_sleep_window_ms(a.window_ms);
	prof_stop();
	prof_wait_stopped(prof_answer_budget_ns(), sched_pause_tick, NULL);
	r = prof_report(sh->out, a.pid, a.chains);
	prof_end();
	if (r < 0) {
		out_puts(sh->out, "profile: out of memory for the report\n");
		return 1;
	}
	return 0;
}
