/* SPDX-License-Identifier: BSD-2-Clause */
/* stat [ms] [all|cpu|pid=N] [events=LIST]: count cycles, instructions
 * and whatever else the platform counts, or the events listed, per CPU
 * and for one task, over a window (prof/stat.h). */
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
	int pid;
	const char *events;		/* NULL: the standard ones */
	bool cpu_given;
};

static bool stat_key(const char *arg, const char *key, const char **value)
{
	size_t n = kstrlen(key);

	if (kstrlen(arg) < n || kmemcmp(arg, key, n) != 0)
		return false;
	*value = arg + n;
	return true;
}

static int stat_parse_window(struct out *o, const char *s, struct stat_args *a)
{
	int r = parse_u64(s, &a->window_ms);

	if (r == -EINVAL) {
		out_printf(o, "stat: window must be a number of ms (got %s)\n", s);
		return r;
	}
	if (r < 0 || a->window_ms < STAT_WINDOW_MIN_MS || a->window_ms > STAT_WINDOW_MAX_MS) {
		out_printf(o, "stat: window must be %d-%d ms (got %s)\n",
			   STAT_WINDOW_MIN_MS, STAT_WINDOW_MAX_MS, s);
		return -ERANGE;
	}
	return 0;
}

static int stat_parse_cpu(struct out *o, const char *s, struct stat_args *a)
{
	uint64_t v;

	a->cpu_given = true;
	if (kstreq(s, "all"))
		return 0;
	if (parse_u64(s, &v) < 0 || v >= hal_cpu_count()) {
		out_printf(o, "stat: cpu must be all or 0-%u (got %s)\n", hal_cpu_count() - 1, s);
		return -EINVAL;
	}
	a->cpu = (int)v;
	return 0;
}

static int stat_parse_pid(struct out *o, const char *s, struct stat_args *a)
{
	uint64_t v;

	if (parse_u64(s, &v) < 0 || v == 0 || v > 0x7fffffff) {
		out_printf(o, "stat: pid= must be a task's pid, 1 or more (got %s)\n", s);
		return -EINVAL;
	}
	a->pid = (int)v;
	return 0;
}

/* The keyed options, then at most two positionals: the window, then
 * all, a cpu or nothing. */
static int stat_parse_one(struct out *o, const char *arg, unsigned *pos, struct stat_args *a)
{
	const char *v;

	if (stat_key(arg, "events=", &v)) {
		if (a->events) {
			out_puts(o, "stat: events= given twice\n");
			return -EINVAL;
		}
		a->events = v;
		return 0;
	}
	if (stat_key(arg, "pid=", &v)) {
		if (a->pid) {
			out_puts(o, "stat: pid= given twice\n");
			return -EINVAL;
		}
		return stat_parse_pid(o, v, a);
	}
	if (*pos == 0 && !a->events && !a->pid) {
		(*pos)++;
		return stat_parse_window(o, arg, a);
	}
	if (*pos <= 1 && !a->cpu_given && !a->events && !a->pid) {
		*pos = 2;
		return stat_parse_cpu(o, arg, a);
	}
	out_printf(o, "stat: unexpected %s (usage: " CMD_STAT_USAGE ")\n", arg);
	return -EINVAL;
}

static int stat_parse(struct out *o, int argc, char **argv, struct stat_args *a)
{
	unsigned pos = 0;
	int r;

	a->window_ms = STAT_WINDOW_DEFAULT_MS;
	a->cpu = STAT_CPU_ALL;
	a->pid = 0;
	a->events = NULL;
	a->cpu_given = false;
	if (argc > 5) {
		out_puts(o, "stat: too many arguments (usage: " CMD_STAT_USAGE ")\n");
		return -E2BIG;
	}
	for (int i = 1; i < argc; i++) {
		r = stat_parse_one(o, argv[i], &pos, a);
		if (r < 0)
			return r;
	}
	if (a->pid && a->cpu != STAT_CPU_ALL) {
		out_puts(o, "stat: a cpu or pid=, not both (a task's counts come with its own cpu's)\n");
		return -EINVAL;
	}
	return 0;
}

int cmd_stat(struct shell_ctx *sh, int argc, char **argv)
{
	struct stat_args a;
	int r;

	if (stat_parse(sh->out, argc, argv, &a) < 0)
		return 1;
	r = stat_start_as(sh->out, a.events, a.pid);
	if (r == -EINPROGRESS) {
		stat_print_still_open(sh->out, "stat: the last stat's counter");
		return 1;
	}
	if (r == -EBUSY) {
		out_puts(sh->out, "stat: busy\n");
		return 1;
	}
	if (r < 0)
		return 1;
	stat_wait_open(tick_answer_ns(), sched_pause_tick, NULL);
	sched_sleep_window_ms(a.window_ms);
	stat_stop();
	stat_wait_closed(prof_answer_budget_ns(), sched_pause_tick, NULL);
	stat_report(sh->out, a.cpu);
	stat_end();
	return 0;
}
