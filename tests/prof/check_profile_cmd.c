/* SPDX-License-Identifier: BSD-2-Clause */
/* The shell's `profile` and `lscpu`: every argument error, busy, and a
 * whole profile played on the fake platform through the real sleep. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "fake_pmu.h"
#include "prof_testlib.h"
#include "testlib.h"
#include "kernel/build_id.h"
#include "prof/profiler.h"
#include "prof/profiler_test.h"
#include "prof/report.h"
#include "kernel/sched.h"
#include "prof/session.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "check_main.h"

static struct tl_cmd tc;

static void setup(void)
{
	pt_boot_cpus(1);		/* pid 1 is cpu 0's idle task */
	pt_use_symbols();
	tl_cmd_init(&tc);
}

/* Run @cmd with the words of @line (space-separated) into tc.text. */
static int run(int (*cmd)(struct shell_ctx *, int, char **), const char *line)
{
	return tl_cmd_run(&tc, cmd, line);
}

static void expect_error(const char *line, const char *message)
{
	ck_assert_int_ne(run(cmd_profile, line), 0);
	ck_assert_str_eq(tc.text, message);
	/* An error never starts a run. */
	ck_assert_uint_eq(fake_pmu_probes, 0);
}

CHECK_TEST("profile", test_profile_window_out_of_range_rejected)
{
	expect_error("profile 0", "profile: window must be 1-2000 ms (got 0)\n");
	expect_error("profile 2001", "profile: window must be 1-2000 ms (got 2001)\n");
	expect_error("profile 5000 all 3", "profile: window must be 1-2000 ms (got 5000)\n");
}
END_TEST

CHECK_TEST("profile", test_profile_window_overflow_rejected)
{
	expect_error("profile 99999999999999999999999",
		     "profile: window must be 1-2000 ms (got 99999999999999999999999)\n");
}
END_TEST

CHECK_TEST("profile", test_profile_window_junk_rejected)
{
	expect_error("profile abc", "profile: window must be a number of ms (got abc)\n");
	expect_error("profile -5", "profile: window must be a number of ms (got -5)\n");
	expect_error("profile 10ms", "profile: window must be a number of ms (got 10ms)\n");
	expect_error("profile all", "profile: window must be a number of ms (got all)\n");
}
END_TEST

CHECK_TEST("profile", test_profile_pid_unknown_rejected)
{
	expect_error("profile 10 99", "profile: no task with pid 99\n");
	expect_error("profile 10 0", "profile: no task with pid 0\n");
	expect_error("profile 10 4294967297", "profile: no task with pid 4294967297\n");
}
END_TEST

CHECK_TEST("profile", test_profile_pid_overflow_rejected)
{
	expect_error("profile 10 99999999999999999999999",
		     "profile: no task with pid 99999999999999999999999\n");
}
END_TEST

CHECK_TEST("profile", test_profile_pid_junk_rejected)
{
	expect_error("profile 10 x12", "profile: pid must be a number or all (got x12)\n");
	expect_error("profile 10 ALL", "profile: pid must be a number or all (got ALL)\n");
}
END_TEST

CHECK_TEST("profile", test_profile_chains_out_of_range_rejected)
{
	expect_error("profile 10 all 0", "profile: chains must be 1-128 (got 0)\n");
	expect_error("profile 10 1 129", "profile: chains must be 1-128 (got 129)\n");
	expect_error("profile 10 all 18446744073709551616",
		     "profile: chains must be 1-128 (got 18446744073709551616)\n");
}
END_TEST

CHECK_TEST("profile", test_profile_chains_junk_rejected)
{
	expect_error("profile 10 all 8x", "profile: chains must be a number (got 8x)\n");
}
END_TEST

CHECK_TEST("profile", test_profile_trailing_words_rejected)
{
	expect_error("profile 10 all 8 extra",
		     "profile: too many arguments (usage: profile [ms] [pid|all] [chains] [depth=N] [hz=N] [source=tick|pmu] [folded [addr|weight] [cpus]] [wall [services]])\n");
}
END_TEST

CHECK_TEST("profile", test_profile_busy_while_another_runs)
{
	ck_assert_int_eq(prof_start(), 0);
	ck_assert_int_ne(run(cmd_profile, "profile 10"), 0);
	ck_assert_str_eq(tc.text, "profile: busy\n");
	ck_assert_int_ne(run(cmd_profile, "profile"), 0);
	ck_assert_str_eq(tc.text, "profile: busy\n");
	/* Argument errors still come first. */
	ck_assert_int_ne(run(cmd_profile, "profile 0"), 0);
	ck_assert_str_eq(tc.text, "profile: window must be 1-2000 ms (got 0)\n");
}
END_TEST

/* A whole profile, played: the shell task sleeps through the real
 * scheduler; each time it switches away, ticks arrive every 10 ms until
 * the scheduler has switched back to it. */
static struct task *shell_task;
static uintptr_t tick_ip = PT_CPU_IDLE + 4;

static void play_until_shell_runs(void)
{
	static bool playing;

	if (playing)
		return;
	playing = true;
	for (int i = 0; i < 100000 && cpus[0].current != shell_task; i++) {
		fake_now_ns += 10000000;
		fake_cpu_time[0] += 10000000;
		pt_tick(0, tick_ip);
	}
	playing = false;
}

static void shell_body(void *arg)
{
	(void)arg;
}

static void become_shell_task(void)
{
	shell_task = task_create("shell", shell_body, NULL, 0);
	ck_assert_ptr_nonnull(shell_task);
	pt_tick(0, tick_ip);		/* switches to it */
	ck_assert_ptr_eq(cpus[0].current, shell_task);
	fake_switch_hook = play_until_shell_runs;
}

CHECK_TEST("profile", test_profile_runs_whole_window_and_reports)
{
	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	become_shell_task();
	ck_assert_int_eq(run(cmd_profile, "profile 1000 all 3"), 0);
	ck_assert(pt_golden_equal("cmd_profile_tick.txt", tc.text));
	/* The session ended: another may start. */
	ck_assert_int_eq(prof_start(), 0);
}
END_TEST

CHECK_TEST("profile", test_profile_pid_that_slept_whole_window)
{
	char line[64];

	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	become_shell_task();
	/* The shell itself sleeps the whole window: nothing of it is seen. */
	snprintf(line, sizeof(line), "profile 20 %d", shell_task->pid);
	ck_assert_int_eq(run(cmd_profile, line), 0);
	ck_assert(pt_golden_equal("cmd_profile_slept.txt", tc.text));
}
END_TEST

/* While the shell is switched away: the first @wakes_left times a
 * datagram for it arrives 5 ms in and wakes it early, as the UDP shell's
 * receive path does; after that, ticks every 10 ms until it runs. */
static unsigned wakes_left;

static void play_with_wakes(void)
{
	static bool playing;

	if (playing || shell_task->state == TASK_RUNNING)
		return;
	playing = true;
	if (wakes_left > 0) {
		wakes_left--;
		fake_now_ns += 5000000;
		fake_cpu_time[0] += 5000000;
		sched_wake(shell_task);
		pt_tick(0, tick_ip);
	}
	for (int i = 0; i < 100000 && shell_task->state != TASK_RUNNING; i++) {
		fake_now_ns += 10000000;
		fake_cpu_time[0] += 10000000;
		pt_tick(0, tick_ip);
	}
	playing = false;
}

CHECK_TEST("profile", test_profile_window_outlasts_wakes)
{
	unsigned long long ms = 0;

	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	become_shell_task();
	fake_switch_hook = play_with_wakes;
	wakes_left = 20;
	ck_assert_int_eq(run(cmd_profile, "profile 1000 all 3"), 0);
	ck_assert_int_eq(sscanf(tc.text, "profiled %llu ms", &ms), 1);
	ck_assert_uint_ge(ms, 1000);
	ck_assert_uint_eq(wakes_left, 0);
}
END_TEST


CHECK_TEST("profile", test_profile_options_out_of_range_rejected)
{
	expect_error("profile 10 depth=0", "profile: depth must be 1-32 (got 0)\n");
	expect_error("profile 10 all 3 depth=33", "profile: depth must be 1-32 (got 33)\n");
	expect_error("profile depth=x", "profile: depth must be a number (got depth=x)\n");
	expect_error("profile 10 hz=9", "profile: hz must be 10-10000 (got 9)\n");
	expect_error("profile 10 hz=10001", "profile: hz must be 10-10000 (got 10001)\n");
	expect_error("profile start depth=40", "profile: depth must be 1-32 (got 40)\n");
	expect_error("profile start all hz=0", "profile: hz must be 10-10000 (got 0)\n");
}
END_TEST

CHECK_TEST("profile", test_profile_options_junk_rejected)
{
	expect_error("profile 10 speed=3",
		     "profile: unknown option 'speed=3' (options: depth=N, hz=N, source=tick|pmu, folded [addr|weight] [cpus], wall [services])\n");
	expect_error("profile 10 depth=8 all",
		     "profile: options come last (got all after them; usage: profile [ms] [pid|all] [chains] [depth=N] [hz=N] [source=tick|pmu] [folded [addr|weight] [cpus]] [wall [services]])\n");
	expect_error("profile start folded",
		     "profile: folded goes with a window (profile MS ... folded); after profile stop use profile show folded\n");
	expect_error("profile start all 3",
		     "profile: start takes [pid|all] then options (got 3; options: depth=N, hz=N, source=tick|pmu, folded [addr|weight] [cpus], wall [services])\n");
	expect_error("profile stop now", "profile: stop takes no arguments\n");
}
END_TEST

/* The tick samples at its own rate only: another hz= is refused, its
 * own is accepted. */
CHECK_TEST("profile", test_profile_tick_refuses_other_rate)
{
	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	ck_assert_int_ne(run(cmd_profile, "profile 10 hz=1000"), 0);
	ck_assert_str_eq(tc.text, "profile: the source is the tick (tick 100hz), which samples at 100 Hz only (got hz=1000; tick.hz=100-1000 at boot sets it)\n");
	ck_assert_int_ne(run(cmd_profile, "profile start hz=50"), 0);
	ck_assert_str_eq(tc.text, "profile: the source is the tick (tick 100hz), which samples at 100 Hz only (got hz=50; tick.hz=100-1000 at boot sets it)\n");
}
END_TEST

/* source= chooses this run's source: pmu where the counter does not
 * count is one line, and nothing starts. */
CHECK_TEST("profile", test_profile_source_pmu_without_counter_refused)
{
	struct prof_options opt = { 8, 1000, PROF_PID_ALL, PROF_RUN_PMU, false };

	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	ck_assert_int_ne(run(cmd_profile, "profile 10 all 3 source=pmu"), 0);
	ck_assert_str_eq(tc.text, "profile: source=pmu, but the counter does not count (counter did not move in 10 us)\n");
	ck_assert_int_ne(run(cmd_profile, "profile start source=pmu"), 0);
	ck_assert_str_eq(tc.text, "profile: source=pmu, but the counter does not count (counter did not move in 10 us)\n");
	ck_assert(!prof_session_running());
	/* The profiler itself refuses it too, and stays free. */
	ck_assert_int_eq(prof_start_with(&opt), -ENODEV);
	ck_assert_int_eq(prof_start(), 0);
}
END_TEST

CHECK_TEST("profile", test_profile_source_junk_rejected)
{
	expect_error("profile 10 source=nmi",
		     "profile: source must be tick or pmu (got source=nmi)\n");
	expect_error("profile start all source=",
		     "profile: source must be tick or pmu (got source=)\n");
	expect_error("profile 10 source=auto",
		     "profile: source must be tick or pmu (got source=auto)\n");
}
END_TEST

/* The counter counts and the boot left the choice to it: source=tick
 * samples on the tick (no counter armed), the next run on the counter
 * again. */
CHECK_TEST("profile", test_profile_source_tick_beside_a_counter)
{
	fake_pmu_set_counting(2000000000ull, "pmu/fake cycles");
	become_shell_task();
	ck_assert_int_eq(run(cmd_profile, "profile 100 all 1 source=tick"), 0);
	ck_assert_ptr_nonnull(strstr(tc.text, " samples on 1 cpus, 0 dropped, source tick 100hz\n"));
	ck_assert_ptr_nonnull(strstr(tc.text, "% 10 cpu_idle+0x4\n"));
	ck_assert_uint_eq(fake_pmu_period[0], 0);
	ck_assert_int_eq(run(cmd_profile, "profile 100 all 1"), 0);
	ck_assert_ptr_nonnull(strstr(tc.text, ", source pmu/fake cycles\n"));
	ck_assert_uint_eq(fake_pmu_period[0], 2000000);
}
END_TEST

/* Booted with profile.source=tick: source=pmu takes the counter for
 * one run, at the counter's rate; without it the tick's. */
CHECK_TEST("profile", test_profile_source_pmu_beside_boot_tick)
{
	ck_assert_int_eq(prof_set_source("tick"), 0);
	fake_pmu_set_counting(2000000000ull, "pmu/fake cycles");
	become_shell_task();
	ck_assert_int_eq(run(cmd_profile, "profile start source=pmu hz=500"), 0);
	ck_assert_str_eq(tc.text, "profile: started (depth 8, 500 Hz per cpu); profile stop ends it\n");
	sched_sleep_ms(50);
	ck_assert_uint_eq(fake_pmu_period[0], 4000000);
	ck_assert_int_eq(run(cmd_profile, "profile stop"), 0);
	ck_assert_str_eq(prof_last()->source, "pmu/fake cycles");
	ck_assert_int_eq(run(cmd_profile, "profile start"), 0);
	ck_assert_str_eq(tc.text, "profile: started (depth 8, 100 Hz per cpu); profile stop ends it\n");
	sched_sleep_ms(50);
	ck_assert_int_eq(run(cmd_profile, "profile stop"), 0);
	ck_assert_str_eq(prof_last()->source, "tick 100hz");
}
END_TEST

/* A session runs until stopped: an unauthenticated UDP shell may not
 * start one (the window form ends by itself and stays allowed). */
CHECK_TEST("profile", test_profile_start_refused_unauthenticated)
{
	struct shell_ctx remote = { .out = &tc.ob.out, .remote = true };
	char *argv[] = { "profile", "start", NULL };

	tl_cmd_clear(&tc);
	ck_assert_int_ne(cmd_profile(&remote, 2, argv), 0);
	ck_assert_str_eq(tc.text, "profile start: serial console only on an unauthenticated UDP shell (set udpsh.key)\n");
	ck_assert(!prof_session_running());
	ck_assert_uint_eq(fake_pmu_probes, 0);
}
END_TEST

/* Run @line as a UDP shell without a key would. */
static int run_keyless(const char *line)
{
	struct shell_ctx serial = tc.sh;
	int r;

	tc.sh.remote = true;
	tc.sh.authenticated = false;
	r = run(cmd_profile, line);
	tc.sh = serial;
	return r;
}

/* One forged keyless `profile 1` replaced the operator's
 * stopped session.  A keyless window may not replace a session kept by
 * anyone else (refused in one line, the session as it was); it may
 * profile when nothing is kept, and replace its own kind. */
CHECK_TEST("profile", test_profile_keyless_window_keeps_last_session)
{
	static char before[8192];
	uint64_t samples;

	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	become_shell_task();
	/* Nothing kept: a keyless window runs, and another may replace it. */
	ck_assert_int_eq(run_keyless("profile 20"), 0);
	ck_assert_ptr_nonnull(strstr(tc.text, "profiled "));
	ck_assert_int_eq(run_keyless("profile 20"), 0);
	/* The operator's session. */
	ck_assert_int_eq(run(cmd_profile, "profile start all depth=4"), 0);
	sched_sleep_ms(200);
	ck_assert_int_eq(run(cmd_profile, "profile stop"), 0);
	samples = prof_last()->samples;
	ck_assert_uint_gt(samples, 0);
	ck_assert_int_eq(run(cmd_profile, "profile show folded"), 0);
	strcpy(before, tc.text);
	ck_assert_int_ne(run_keyless("profile 1"), 0);
	ck_assert_str_eq(tc.text, "profile: a window would replace the kept session, which a UDP shell without a key may not do (profile show reads it)\n");
	ck_assert_int_ne(run_keyless("profile 50 all 3 folded"), 0);
	ck_assert_uint_eq(prof_last()->samples, samples);
	ck_assert_uint_eq(prof_last()->depth, 4);
	/* Reading it stays allowed, and gives the same bytes. */
	ck_assert_int_eq(run_keyless("profile show folded"), 0);
	ck_assert_str_eq(tc.text, before);
	/* The serial console (or a key) replaces it as before. */
	ck_assert_int_eq(run(cmd_profile, "profile 20"), 0);
	ck_assert_uint_eq(prof_last()->depth, 8);
	ck_assert_int_ne(run_keyless("profile 20"), 0);
	/* The profiler is free again after a refusal. */
	ck_assert_int_eq(prof_start(), 0);
}
END_TEST

CHECK_TEST("profile", test_profile_show_and_stop_without_session)
{
	ck_assert_int_ne(run(cmd_profile, "profile show"), 0);
	ck_assert_str_eq(tc.text, "profile: no session to show yet (profile MS or profile start/stop first)\n");
	ck_assert_int_ne(run(cmd_profile, "profile stop"), 0);
	ck_assert_str_eq(tc.text, "profile: no session is running (profile start begins one)\n");
}
END_TEST

static unsigned count_lines(const char *t, const char *prefix)
{
	unsigned n = 0;
	size_t len = strlen(prefix);

	for (const char *p = t; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += strncmp(p, prefix, len) == 0;
	return n;
}

/* start, a second start, show while running, stop, every view, stop
 * again: each answer exact where it is an error. */
CHECK_TEST("profile", test_profile_session_start_stop_show)
{
	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	become_shell_task();
	ck_assert_int_eq(run(cmd_profile, "profile start all depth=4"), 0);
	ck_assert_str_eq(tc.text, "profile: started (depth 4, 100 Hz per cpu); profile stop ends it\n");
	ck_assert_int_ne(run(cmd_profile, "profile start"), 0);
	ck_assert_str_eq(tc.text, "profile: busy\n");
	ck_assert_int_ne(run(cmd_profile, "profile 10"), 0);
	ck_assert_str_eq(tc.text, "profile: busy\n");
	ck_assert_int_ne(run(cmd_profile, "profile show folded"), 0);
	ck_assert_str_eq(tc.text, "profile: a session is running; profile stop ends it first\n");
	/* Time passes: the shell sleeps 200 ms while ticks sample it away. */
	sched_sleep_ms(200);
	ck_assert_int_eq(run(cmd_profile, "profile stop"), 0);
	ck_assert_ptr_nonnull(strstr(tc.text, "profile: stopped after "));
	ck_assert_int_ne(run(cmd_profile, "profile stop"), 0);
	ck_assert_str_eq(tc.text, "profile: no session is running (profile start begins one)\n");

	ck_assert_int_eq(run(cmd_profile, "profile show folded"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# kprof folded begin\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# depth=4\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# hz=100\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# kprof folded end lines="), 1);
	ck_assert_int_eq(run(cmd_profile, "profile show"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "profiled "), 1);
	ck_assert_int_eq(run(cmd_profile, "profile show text 1"), 0);
	ck_assert_int_eq(run(cmd_profile, "profile show cpus"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "cpu 0: "), 1);
	ck_assert_int_eq(run(cmd_profile, "profile show tasks"), 0);
	ck_assert_int_eq(run(cmd_profile, "profile show top 3"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "self "), 1);
	ck_assert_int_ne(run(cmd_profile, "profile show flame"), 0);
	ck_assert_str_eq(tc.text, "profile: show takes text [chains], folded [addr|weight] [cpus], cpus, tasks or top [n] (got flame)\n");
	ck_assert_int_ne(run(cmd_profile, "profile show top 0"), 0);
	ck_assert_str_eq(tc.text, "profile: chains must be 1-128 (got 0)\n");
	ck_assert_int_ne(run(cmd_profile, "profile show folded 3"), 0);
	ck_assert_str_eq(tc.text, "profile: show takes text [chains], folded [addr|weight] [cpus], cpus, tasks or top [n] (got 3)\n");
	/* The session ended: another may start. */
	ck_assert_int_eq(prof_start(), 0);
}
END_TEST

/* The samples `profile rotate` printed (its end line's count). */
static unsigned long long rotated_samples(void)
{
	const char *p = strstr(tc.text, "# kprof folded end lines=");
	unsigned long long lines, samples;

	ck_assert_msg(p && sscanf(p, "# kprof folded end lines=%llu samples=%llu",
				  &lines, &samples) == 2, "got: %s", tc.text);
	return samples;
}

/* Rotations of a session on the fake tick (100 Hz, one CPU): each
 * interval's samples as the time it spans, the same bytes asked again,
 * an older one refused, the stop's last interval, and every error in
 * one exact line. */
CHECK_TEST("profile", test_profile_rotate_intervals_and_errors)
{
	struct shell_ctx remote = { .out = &tc.ob.out, .remote = true };
	char *argv[] = { "profile", "rotate", "1", NULL };
	unsigned long long total = 0;
	static char first[8192];

	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	become_shell_task();
	expect_error("profile rotate 1", "profile: no session to rotate (profile start begins one)\n");
	expect_error("profile rotate", "profile: rotate takes an interval number, then folded, addr or weight (profile rotate SEQ [folded|addr|weight])\n");
	expect_error("profile rotate 0", "profile: rotate's interval must be a number from 1 (got 0)\n");
	expect_error("profile rotate x1", "profile: rotate's interval must be a number from 1 (got x1)\n");
	expect_error("profile rotate 1 text", "profile: rotate prints folded, addr or weight (got text)\n");
	expect_error("profile rotate 1 folded 2", "profile: rotate takes an interval number, then folded, addr or weight (profile rotate SEQ [folded|addr|weight])\n");
	tl_cmd_clear(&tc);
	ck_assert_int_ne(cmd_profile(&remote, 3, argv), 0);
	ck_assert_str_eq(tc.text, "profile rotate: serial console only on an unauthenticated UDP shell (set udpsh.key)\n");

	ck_assert_int_eq(run(cmd_profile, "profile start"), 0);
	ck_assert_int_ne(run(cmd_profile, "profile rotate 2"), 0);
	ck_assert_str_eq(tc.text, "profile: interval 2 is not open yet (the open one is 1)\n");
	sched_sleep_ms(100);
	ck_assert_int_eq(run(cmd_profile, "profile rotate 1"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# kprof folded begin\n# seq=1\n# start_ns="), 1);
	total += rotated_samples();
	strcpy(first, tc.text);
	ck_assert_int_eq(run(cmd_profile, "profile rotate 1"), 0);
	ck_assert_str_eq(tc.text, first);
	ck_assert_int_eq(run(cmd_profile, "profile rotate 1 addr"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# frames=addr\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# seq=1\n"), 1);
	/* The by-name view with its weights (kprof-collect's request). */
	ck_assert_int_eq(run(cmd_profile, "profile rotate 1 weight"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# weight=ns\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# frames=addr\n"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# seq=1\n"), 1);
	sched_sleep_ms(200);
	ck_assert_int_eq(run(cmd_profile, "profile rotate 2"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# seq=2\n"), 1);
	total += rotated_samples();
	ck_assert_int_ne(run(cmd_profile, "profile rotate 1"), 0);
	ck_assert_str_eq(tc.text, "profile: interval 1 is no longer kept (the oldest kept is 2)\n");
	ck_assert_int_ne(run(cmd_profile, "profile rotate 4"), 0);
	ck_assert_str_eq(tc.text, "profile: interval 4 is not open yet (the open one is 3)\n");
	sched_sleep_ms(100);
	ck_assert_int_eq(run(cmd_profile, "profile stop"), 0);
	ck_assert_msg(strstr(tc.text, "\nprofile: last interval 3, "), "got: %s", tc.text);
	ck_assert_int_eq(run(cmd_profile, "profile rotate 3"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# seq=3\n"), 1);
	total += rotated_samples();
	ck_assert_uint_eq(total, prof_last()->samples);
	ck_assert_uint_ge(total, 35);
	ck_assert_int_ne(run(cmd_profile, "profile rotate 4"), 0);
	ck_assert_str_eq(tc.text, "profile: the session stopped; its last interval is 3\n");
	/* A window since: the session's intervals are gone. */
	ck_assert_int_eq(run(cmd_profile, "profile 10"), 0);
	ck_assert_int_ne(run(cmd_profile, "profile rotate 3"), 0);
	ck_assert_str_eq(tc.text, "profile: no session to rotate (profile start begins one)\n");
}
END_TEST

/* The first form with `folded` prints the folded view of its window,
 * and show text afterwards is the same session. */
CHECK_TEST("profile", test_profile_window_folded)
{
	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	become_shell_task();
	ck_assert_int_eq(run(cmd_profile, "profile 100 all folded"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# kprof folded begin\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# window_ms=100\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# kprof folded end lines=1 samples=10\n"), 1);
	ck_assert_int_eq(run(cmd_profile, "profile show"), 0);
	ck_assert_ptr_nonnull(strstr(tc.text, "profiled 100 ms\n10 samples on 1 cpus"));
}
END_TEST

CHECK_TEST("lscpu", test_lscpu_counter_that_counts)
{
	fake_pmu_set_counting(2000000000ull, "pmu/nmi intel fixed-ctr1");
	snprintf(fake_pmu_info.claim, sizeof(fake_pmu_info.claim), "intel arch perfmon v4");
	fake_ncpus = 4;
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	ck_assert_str_eq(tc.text,
			 "cpus: 4\n"
			 "pmu claims: intel arch perfmon v4\n"
			 "pmu counts: yes\n"
			 "profile source: pmu/nmi intel fixed-ctr1, 1000 samples/s per cpu\n"
			 "tick: 100 Hz per cpu; ticks by 1.000 s: cpu 0 0, cpu 1 0, cpu 2 0, cpu 3 0\n");
}
END_TEST

/* Booted with profile.source=tick, the counter still counts: lscpu says
 * so, and what a run may ask for. */
CHECK_TEST("lscpu", test_lscpu_counter_that_counts_under_boot_tick)
{
	ck_assert_int_eq(prof_set_source("tick"), 0);
	fake_pmu_set_counting(2000000000ull, "pmu/nmi intel fixed-ctr1");
	snprintf(fake_pmu_info.claim, sizeof(fake_pmu_info.claim), "intel arch perfmon v4");
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	ck_assert_str_eq(tc.text,
			 "cpus: 1\n"
			 "pmu claims: intel arch perfmon v4\n"
			 "pmu counts: yes\n"
			 "profile source: tick 100hz (profile.source=tick; source=pmu takes pmu/nmi intel fixed-ctr1 for one run)\n"
			 "tick: 100 Hz per cpu; ticks by 1.000 s: cpu 0 0\n");
}
END_TEST

/* A CPU whose counter no run armed: on the tick none will, so lscpu
 * does not say "yet"; with the counter the source, its first run
 * probes it. */
CHECK_TEST("lscpu", test_lscpu_not_probed_on_the_tick)
{
	ck_assert_int_eq(prof_set_source("tick"), 0);
	fake_pmu_set_counting(2000000000ull, "pmu/nmi intel fixed-ctr1");
	fake_pmu_facts.cpus = true;
	fake_pmu_cpu_facts[0].verdict = HAL_PMU_NOT_PROBED;
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	ck_assert_ptr_nonnull(strstr(tc.text, "cpu 0: counter not probed (runs sample on the tick; a run with source=pmu probes it)\n"));
	ck_assert_ptr_null(strstr(tc.text, "yet"));
	ck_assert_int_eq(prof_set_source("pmu"), 0);
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	ck_assert_ptr_nonnull(strstr(tc.text, "cpu 0: counter not probed yet (the first run probes it)\n"));
}
END_TEST

CHECK_TEST("lscpu", test_lscpu_counter_claimed_but_dead)
{
	fake_pmu_set_dead("amd core-ext counters", "counter did not move in 10 us");
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	ck_assert_str_eq(tc.text,
			 "cpus: 1\n"
			 "pmu claims: amd core-ext counters\n"
			 "pmu counts: no (counter did not move in 10 us)\n"
			 "profile source: tick 100hz\n"
			 "tick: 100 Hz per cpu; ticks by 1.000 s: cpu 0 0\n");
}
END_TEST

CHECK_TEST("lscpu", test_lscpu_nothing_claimed)
{
	fake_pmu_set_dead("", "");
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	ck_assert_str_eq(tc.text,
			 "cpus: 1\n"
			 "pmu claims: nothing\n"
			 "pmu counts: no (nothing claimed)\n"
			 "profile source: tick 100hz\n"
			 "tick: 100 Hz per cpu; ticks by 1.000 s: cpu 0 0\n");
}
END_TEST

/* The platform's facts, printed by the portable lscpu as the x86
 * backend printed them itself: a line per CPU, then the NMIs. */
CHECK_TEST("lscpu", test_lscpu_platform_lines_as_x86)
{
	fake_pmu_set_dead("intel arch perfmon v2", "fixed counter 1 in use by firmware");
	fake_ncpus = 3;
	fake_pmu_facts.cpus = true;
	fake_pmu_facts.nmis = true;
	fake_pmu_facts.unknown_nmis = 2;
	fake_pmu_facts.late_nmis = 1;
	fake_pmu_cpu_facts[0].verdict = HAL_PMU_PROVEN;
	fake_pmu_cpu_facts[0].used = true;
	fake_pmu_cpu_facts[1].verdict = HAL_PMU_NOT_PROVEN;
	snprintf(fake_pmu_cpu_facts[1].why, sizeof(fake_pmu_cpu_facts[1].why),
		 "fixed counter 1 in use by firmware");
	fake_pmu_cpu_facts[2].verdict = HAL_PMU_NOT_CLAIMED;
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	ck_assert_ptr_nonnull(strstr(tc.text,
			 "profile source: tick 100hz\n"
			 "cpu 0: counter claimed, proven, used\n"
			 "cpu 1: counter claimed, not proven (fixed counter 1 in use by firmware)\n"
			 "cpu 2: counter not claimed\n"
			 "nmis: 2 unknown, 1 late overflows claimed\n"));
}
END_TEST

/* Fill @f's platform line @i, as a backend does. */
static void fake_fact(struct hal_pmu_facts *f, const char *label, const char *text)
{
	f->lines[f->nlines].label = label;
	snprintf(f->lines[f->nlines].text, sizeof(f->lines[0].text), "%s", text);
	f->nlines++;
}

/* ... and as the arm64 backend does: its own lines (the GIC) first, as
 * label and text the shell prints without knowing them, then the
 * counter's rate, stat's width, each CPU with its interrupt's books and
 * its last run. */
CHECK_TEST("lscpu", test_lscpu_platform_lines_as_arm64)
{
	struct hal_pmu_facts *f = &fake_pmu_facts;
	struct hal_pmu_cpu_facts *c = &fake_pmu_cpu_facts[0];

	fake_pmu_set_dead("midr 0x410fd083, pmuv3", "");
	fake_ncpus = 2;
	f->cpus = true;
	fake_fact(f, "gic", "gicv3, interrupts off by priority (icc_pmr_el1 off 0x60, on 0xe0), pmhe 0");
	fake_fact(f, "gic priorities", "pseudo-nmi 0x20 (pmu intid 23, panic stop sgi 1), irq 0xa0");
	fake_fact(f, "pmu interrupt", "level-triggered by the device tree; this cpu's gic: level");
	f->counter = "pmccntr_el0";
	f->clock = "cntvct_el0";
	f->counter_hz = 1000000000;
	f->insn_counter = "pmevcntr0_el0";
	f->insn_bits = 32;
	f->insn_wide_by = "pmuv3p5, pmcr_el0.lp";
	c->verdict = HAL_PMU_PROVEN;
	c->irqs = true;
	c->used = true;
	c->claimed = 10;
	c->claimed_run = 4;
	c->no_overflow = 1;
	c->spurious = 2;
	c->cycles_per_sample = 12900;
	fake_pmu_cpu_facts[1].verdict = HAL_PMU_NOT_CLAIMED;
	snprintf(fake_pmu_cpu_facts[1].why, sizeof(fake_pmu_cpu_facts[1].why), "no pmuv3");
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	ck_assert_ptr_nonnull(strstr(tc.text,
			 "profile source: tick 100hz\n"
			 "gic: gicv3, interrupts off by priority (icc_pmr_el1 off 0x60, on 0xe0), pmhe 0\n"
			 "gic priorities: pseudo-nmi 0x20 (pmu intid 23, panic stop sgi 1), irq 0xa0\n"
			 "pmu interrupt: level-triggered by the device tree; this cpu's gic: level\n"
			 "pmu: pmccntr_el0 at 1000000000 cycles/s (against cntvct_el0), period 1000000 at 1000 samples/s\n"
			 "stat: instructions on pmevcntr0_el0, 32 bits, its overflows counted\n"
			 "cpu 0: counter claimed, proven, used; pmu irqs: 10 claimed, 1 without overflow, 0 unarmed; 2 spurious acks; handler 12900 cycles/sample\n"
			 "cpu 0 last run: counter not armed for it; 0 stored, 0 dropped, 0 late; 0 disarm waits timed out\n"
			 "cpu 1: counter not claimed (no pmuv3)\n"));
	/* Fewer platform lines, a 64-bit count: the shell says what it is
	 * given, nothing of its own. */
	f->nlines = 1;
	snprintf(f->lines[0].text, sizeof(f->lines[0].text), "%s",
		 "gicv2, interrupts off by daif.i (the pmu overflow is a plain irq)");
	f->insn_bits = 64;
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	ck_assert_ptr_nonnull(strstr(tc.text,
			 "profile source: tick 100hz\n"
			 "gic: gicv2, interrupts off by daif.i (the pmu overflow is a plain irq)\n"
			 "pmu: pmccntr_el0"));
	ck_assert_ptr_null(strstr(tc.text, "gic priorities"));
	ck_assert_ptr_nonnull(strstr(tc.text,
			 "stat: instructions on pmevcntr0_el0, 64 bits (pmuv3p5, pmcr_el0.lp)\n"));
}
END_TEST

/* A CPU whose counter did not arm for the last run (its vCPU came back
 * only to answer the stop: tests/qemu/test_arm64_pmu's storm on a
 * loaded host) has no claims of that run to show: the backend's count
 * since its last arm is an older run's, never paired with this run's
 * books ("4 claimed; 0 stored" was the old line). */
CHECK_TEST("lscpu", test_lscpu_last_run_of_a_cpu_that_did_not_arm)
{
	fake_pmu_set_counting(2000000000ull, "pmu/nmi arm64 pmccntr");
	fake_ncpus = 2;
	fake_cpu_boot(1);
	/* Run 1: both arm. */
	ck_assert_int_eq(prof_start(), 0);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 0);
	prof_stop();
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 0);
	prof_end();
	/* Run 2: cpu 1 ticks only after the stop. */
	ck_assert_int_eq(prof_start(), 0);
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 1u << 1);
	prof_stop();
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 0);
	prof_end();

	fake_pmu_facts.cpus = true;
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		fake_pmu_cpu_facts[cpu].verdict = HAL_PMU_PROVEN;
		fake_pmu_cpu_facts[cpu].irqs = true;
		fake_pmu_cpu_facts[cpu].used = true;
		fake_pmu_cpu_facts[cpu].claimed_run = 4;
	}
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	ck_assert_msg(strstr(tc.text, "cpu 0 last run: 4 claimed; 0 stored, 0 dropped, 0 late; "
			     "0 disarm waits timed out\n") &&
		      strstr(tc.text, "cpu 1 last run: counter not armed for it; 0 stored, "
			     "0 dropped, 0 late; 0 disarm waits timed out\n"),
		      "%s", tc.text);
}
END_TEST

CHECK_TEST("lscpu", test_lscpu_rejects_arguments)
{
	ck_assert_int_ne(run(cmd_lscpu, "lscpu -a"), 0);
	ck_assert_str_eq(tc.text, "lscpu: takes no arguments (got -a)\n");
}
END_TEST

/* The image's build-id, where it carries one, is lscpu's last line. */
CHECK_TEST("lscpu", test_lscpu_prints_build_id)
{
	static const unsigned char note[] = {
		4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
		0x01, 0x23, 0xab, 0xcd,
	};

	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	fake_build_id_note = note;
	fake_build_id_note_len = sizeof(note);
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	/* After what the platform found, before the tick's line. */
	ck_assert_ptr_nonnull(strstr(tc.text, "\nbuild id: 0123abcd\ntick: "));
}
END_TEST

/* A note that is not a GNU build-id, or runs past its bytes, is none. */
CHECK_TEST("lscpu", test_build_id_parse_refuses_malformed_notes)
{
	unsigned char note[] = {
		4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
		0x01, 0x23, 0xab, 0xcd,
	};
	const uint8_t *id;

	ck_assert_uint_eq(build_id_parse(note, sizeof(note), &id), 4);
	ck_assert_uint_eq(id[3], 0xcd);
	ck_assert_uint_eq(build_id_parse(note, sizeof(note) - 1, &id), 0);
	ck_assert_ptr_null(id);
	ck_assert_uint_eq(build_id_parse(note, 11, &id), 0);
	ck_assert_uint_eq(build_id_parse(NULL, 0, &id), 0);
	note[8] = 1;			/* NT_GNU_ABI_TAG, not a build-id */
	ck_assert_uint_eq(build_id_parse(note, sizeof(note), &id), 0);
	note[8] = 3;
	note[12] = 'X';			/* not "GNU" */
	ck_assert_uint_eq(build_id_parse(note, sizeof(note), &id), 0);
	note[12] = 'G';
	note[4] = 200;			/* an id longer than its note */
	ck_assert_uint_eq(build_id_parse(note, sizeof(note), &id), 0);
}
END_TEST

/* addr goes with folded, in both forms; alone it is an error. */
CHECK_TEST("lscpu", test_profile_folded_addr_forms)
{
	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	become_shell_task();
	ck_assert_int_ne(run(cmd_profile, "profile 10 all addr"), 0);
	ck_assert_str_eq(tc.text, "profile: addr follows folded (profile MS ... folded addr, or profile show folded addr)\n");
	ck_assert_int_eq(run(cmd_profile, "profile 100 all folded addr"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# frames=addr\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# weight=ns\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# kprof folded end lines=1 samples=10\n"), 1);
	ck_assert_int_eq(run(cmd_profile, "profile show folded addr"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# frames=addr\n"), 1);
	ck_assert_int_ne(run(cmd_profile, "profile show folded addr 3"), 0);
	ck_assert_str_eq(tc.text, "profile: show takes text [chains], folded [addr|weight] [cpus], cpus, tasks or top [n] (got 3)\n");
}
END_TEST

/* weight goes with folded, in the window's form, show's and rotate's:
 * the by-name view with `# weight=ns` and each line's ns after its
 * count; alone, or with a wall session, an error.  The plain view has
 * no weight column. */
CHECK_TEST("lscpu", test_profile_folded_weight_forms)
{
	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	become_shell_task();
	ck_assert_int_ne(run(cmd_profile, "profile 10 all weight"), 0);
	ck_assert_str_eq(tc.text, "profile: weight follows folded (profile MS ... folded weight, or profile show folded weight)\n");
	ck_assert_int_eq(run(cmd_profile, "profile 100 all folded weight"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# weight=ns\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# busy_ns="), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# frames=addr\n"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# kprof folded end lines=1 samples=10\n"), 1);
	ck_assert_int_eq(run(cmd_profile, "profile show folded weight cpus"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# weight=ns\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# root=cpu\n"), 1);
	ck_assert_int_eq(run(cmd_profile, "profile show folded"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# weight=ns\n"), 0);
	ck_assert_int_ne(run(cmd_profile, "profile show folded weight weight"), 0);
	ck_assert_str_eq(tc.text, "profile: show takes text [chains], folded [addr|weight] [cpus], cpus, tasks or top [n] (got weight)\n");
	ck_assert_int_ne(run(cmd_profile, "profile 100 all wall folded weight"), 0);
	ck_assert_str_eq(tc.text, "profile: folded weight has no wall form (a wall view's counts are its time already: use wall with folded)\n");
}
END_TEST

/* cpus goes with folded too, by name or by address: each line's root
 * frame its CPU, under `# root=cpu`; show takes addr and cpus in either
 * order, each once.  Alone it is an error that names the table of cpus
 * apart. */
CHECK_TEST("lscpu", test_profile_folded_cpus_forms)
{
	static const char *const show_err =
		"profile: show takes text [chains], folded [addr|weight] [cpus], cpus, tasks or top [n] (got %s)\n";
	char want[256];

	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	become_shell_task();
	ck_assert_int_ne(run(cmd_profile, "profile 10 all cpus"), 0);
	ck_assert_str_eq(tc.text, "profile: cpus follows folded (profile MS ... folded [addr] cpus, or profile show folded [addr] cpus; profile show cpus is the table of cpus)\n");
	ck_assert_int_eq(run(cmd_profile, "profile 100 all folded addr cpus"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# root=cpu\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# frames=addr\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# cpu_busy_ns=0:"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "cpu0;"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# kprof folded end lines=1 samples=10\n"), 1);
	ck_assert_int_eq(run(cmd_profile, "profile show folded cpus"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# root=cpu\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# frames=addr\n"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "cpu0;"), 1);
	ck_assert_int_eq(run(cmd_profile, "profile show folded cpus addr"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# root=cpu\n"), 1);
	ck_assert_uint_eq(count_lines(tc.text, "# frames=addr\n"), 1);
	ck_assert_int_eq(run(cmd_profile, "profile show folded"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "# root=cpu\n"), 0);
	ck_assert_uint_eq(count_lines(tc.text, "cpu0;"), 0);
	ck_assert_int_ne(run(cmd_profile, "profile show folded cpus cpus"), 0);
	snprintf(want, sizeof(want), show_err, "cpus");
	ck_assert_str_eq(tc.text, want);
	ck_assert_int_ne(run(cmd_profile, "profile show folded addr cpus 3"), 0);
	snprintf(want, sizeof(want), show_err, "3");
	ck_assert_str_eq(tc.text, want);
}
END_TEST

CHECK_TEST("lscpu", test_lscpu_and_profile_probe_once)
{
	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	become_shell_task();
	ck_assert_int_eq(run(cmd_profile, "profile 10"), 0);
	ck_assert_int_eq(run(cmd_lscpu, "lscpu"), 0);
	ck_assert_uint_eq(fake_pmu_probes, 1);
}
END_TEST

int main(void)
{
	return check_run(check_suite("profile_cmd", setup, 0));
}
