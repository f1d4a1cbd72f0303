/* SPDX-License-Identifier: BSD-2-Clause */
/* `work` on the simulator: start, stop and start again, so that tasks
 * exit, are reaped, and their stacks and task structures come back from
 * the heap for the next start; `ps` of a task that never switches out.  The sanitizer build (--enable-sanitizers)
 * runs this too: a dead task's fiber stack went back to the heap with
 * its frames' redzones still poisoned, and the next start's paint of a
 * new stack aborted with a stack-buffer-underflow. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_fixture.h"
#include "check_main.h"

static struct ksim_config cfg;

static void run_expect(const char *line, const char *want)
{
	char *out = simfx_run(line, 10000);

	ck_assert_msg(out != NULL, "no prompt after %s", line);
	ck_assert_msg(strstr(out, want), "%s said: %s", line, out);
	free(out);
}

CHECK_TEST("restart", test_work_restarts_on_reused_stacks)
{
	char *out;

	ksim_config_defaults(&cfg);
	cfg.cpus = 2;
	cfg.source = KSIM_SOURCE_TICK;
	simfx_start(&cfg);
	for (int round = 0; round < 3; round++) {
		run_expect("work start split 2", "work: started split, 2 tasks, pids ");
		run_expect("work stop", "work: stopped split (2 tasks)\n");
	}
	/* The stopped tasks are gone from the task list. */
	out = simfx_run("ps", 10000);
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, " shell\n") && !strstr(out, " split/"), "ps said: %s", out);
	free(out);
}
END_TEST

/* TIME of the task named @name in `ps`, or -1. */
static long ps_time(const char *name)
{
	char *out = simfx_run("ps", 10000), *line;
	long ms = -1;

	ck_assert_ptr_nonnull(out);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		int pid;
		unsigned cpu;
		char state[16], tname[32];
		long t;

		if (sscanf(line, "%d %u %15s %ld %31s", &pid, &cpu, state, &t, tname) == 5 &&
		    strcmp(tname, name) == 0)
			ms = t;
	}
	free(out);
	return ms;
}

/* A task alone on its CPU never switches out: its time is all in the
 * slice it is running, which ps must count. */
CHECK_TEST("restart", test_ps_shows_time_of_task_that_never_switches_out)
{
	long ms = 0;

	ksim_config_defaults(&cfg);
	cfg.cpus = 2;
	cfg.source = KSIM_SOURCE_TICK;
	simfx_start(&cfg);
	run_expect("work start spin 2", "work: started spin, 2 tasks, pids ");
	for (int i = 0; i < 100 && ms <= 0; i++) {
		struct timespec ts = { 0, 50000000 };

		nanosleep(&ts, NULL);
		ms = ps_time("spin/1");
	}
	ck_assert_msg(ms > 0, "spin/1 shows %ld ms in ps", ms);
	run_expect("work stop", "work: stopped spin (2 tasks)\n");
}
END_TEST

int main(void)
{
	return check_run_forked(check_suite("work", NULL, 60));
}
