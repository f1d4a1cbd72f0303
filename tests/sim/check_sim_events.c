/* SPDX-License-Identifier: BSD-2-Clause */
/* `events` and `stat events=` on ksim: the kernel's own events beside
 * the host's perf events, named as the host's; the host's refusals said
 * with their reason, never a zero; more host events than --pmu-counters
 * multiplexed and scaled; and a task's counts following it across its
 * switches under the real pingpong workload.  The multiplexed and
 * per-task cases need perf_event_open's software events; without them
 * they are not run (the refusal case still is). */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_fixture.h"
#include "check_main.h"

static struct ksim_config cfg;

static void start(unsigned counters, bool refuse)
{
	ksim_config_defaults(&cfg);
	cfg.cpus = 2;
	cfg.hz = 1000;
	cfg.source = KSIM_SOURCE_TICK;
	cfg.pmu_counters = counters;
	cfg.perf_refuse = refuse;
	simfx_start(&cfg);
}

static char *run(const char *line)
{
	char *out = simfx_run(line, 20000);

	ck_assert_msg(out != NULL, "%s: no prompt", line);
	return out;
}

/* The line of @out that starts with @name and a space, newline
 * included, in a buffer of its own until the next call. */
static const char *line_of(const char *out, const char *name)
{
	static char line[512];
	size_t n = strlen(name);

	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) + 1 : strlen(p);

		if (strncmp(p, name, n) != 0 || p[n] != ' ')
			continue;
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = 0;
		return line;
	}
	ck_abort_msg("no line for %s in:\n%s", name, out);
	return NULL;
}

CHECK_TEST("events", test_refused_host_events_say_why_kernel_events_still_count)
{
	char *out;

	start(8, true);
	out = run("events");
	ck_assert_msg(strstr(out, "counters: 8 general, 0 fixed (the kernel's events take none)\n"), "%s", out);
	ck_assert_ptr_nonnull(strstr(line_of(out, "ticks"), "kernel software event"));
	ck_assert_ptr_nonnull(strstr(line_of(out, "task-clock"),
				     "no: perf_event_open refused (KSIM_PERF_REFUSE)\n"));
	ck_assert_ptr_nonnull(strstr(line_of(out, "host-context-switches"), "(the cpu thread's)"));
	free(out);
	out = run("stat 200 events=ticks,task-clock");
	ck_assert_msg(strstr(line_of(out, "task-clock"), " not counted "), "%s", out);
	ck_assert_msg(strstr(out, "task-clock: not counted: perf_event_open refused (KSIM_PERF_REFUSE)\n"),
		      "%s", out);
	/* The kernel counts its ticks without any counter. */
	ck_assert_msg(!strstr(line_of(out, "ticks"), "not counted"), "%s", out);
	free(out);
}
END_TEST

CHECK_TEST("events", test_host_events_multiplexed_on_two_counters)
{
	char *out;

	if (!simfx_perf_available(false))
		return;
	start(2, false);
	out = run("stat 400 events=task-clock,cpu-clock,{page-faults,minor-faults},host-context-switches,ticks");
	ck_assert_msg(strstr(out, "6 events on 2 general + 0 fixed counters: 3 sets rotated on the tick\n"),
		      "%s", out);
	/* Each host event counted a third of the window, said so; the
	 * kernel's ticks all of it, no share. */
	ck_assert_msg(strstr(line_of(out, "task-clock"), "%)"), "%s", out);
	ck_assert_msg(strstr(line_of(out, "page-faults"), "%)"), "%s", out);
	ck_assert_msg(!strstr(line_of(out, "ticks"), "%)"), "%s", out);
	ck_assert_msg(!strstr(out, "not counted"), "%s", out);
	free(out);
	out = run("stat 100 events={task-clock,cpu-clock,page-faults}");
	ck_assert_str_eq(out, "stat: group {task-clock,cpu-clock,page-faults} needs 3 general "
			      "counters at once; this machine has 2 (and 0 fixed)\n");
	free(out);
}
END_TEST

/* The real pingpong on cpu 0: the task's switch-outs and switch-ins
 * alternate, so they differ by at most one; its partner leaves the cpu
 * once per round trip too, so the cpu switches about twice as often
 * (the shell's own wake and sleep at the window's edges besides). */
CHECK_TEST("events", test_pingpong_task_counts_follow_the_task)
{
	unsigned long pid, pid2, cs_task, cs_cpu, came;
	const char *p;
	char *out, cmd[128];

	if (!simfx_perf_available(false))
		return;
	start(8, false);
	out = run("work start pingpong");
	ck_assert_msg(sscanf(strstr(out, "pids "), "pids %lu %lu", &pid, &pid2) == 2, "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "stat 300 pid=%lu events=context-switches,task-clock", pid);
	out = run(cmd);
	p = strstr(out, "came on ");
	ck_assert_msg(p && sscanf(p, "came on %lu times", &came) == 1, "%s", out);
	ck_assert_msg(sscanf(line_of(out, "context-switches"), "context-switches %lu %lu",
			     &cs_task, &cs_cpu) == 2, "%s", out);
	ck_assert_msg(cs_task > 100, "%s", out);
	ck_assert_msg(cs_task + 1 >= came && came + 1 >= cs_task, "%s", out);
	ck_assert_msg(cs_cpu + 2 >= 2 * cs_task && cs_cpu <= 2 * cs_task + 8, "%s", out);
	free(out);
	free(run("work stop"));
}
END_TEST

CHECK_CASE("events", NULL, NULL, 60);

int main(void)
{
	return check_run_forked(check_suite("sim_events", NULL, 0));
}
