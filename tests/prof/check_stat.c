/* SPDX-License-Identifier: BSD-2-Clause */
/* Counting mode: `stat`'s grammar and errors, the arithmetic (counter
 * wrap, IPC, totals, events that never moved), and its exclusion with
 * the profiler, driven through kernel_tick() on the fake platform. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "fake_pmu.h"
#include "prof_testlib.h"
#include "testlib.h"
#include "hal/entry.h"
#include "prof/profiler.h"
#include "prof/profiler_test.h"
#include "kernel/sched.h"
#include "prof/stat.h"
#include "prof/stat_test.h"
#include "prof/sampler.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "check_main.h"

#define W48 (1ull << 48)

static struct tl_cmd tc;

static void setup(void)
{
	pt_boot_cpus(2);
	tl_cmd_init(&tc);
}

static int run(const char *line)
{
	return tl_cmd_run(&tc, cmd_stat, line);
}

static void expect_error(const char *line, const char *message)
{
	ck_assert_int_ne(run(line), 0);
	ck_assert_str_eq(tc.text, message);
	ck_assert_uint_eq(fake_count_opens, 0);
}

/* A session on 2 CPUs: open on their ticks with the values set now, let
 * @ms pass, set the end values with @set_end, close, report. */
/* Stop the open session, the first @ncpus CPUs ticking to close it,
 * and report @cpu (or STAT_CPU_ALL) into tc.text. */
static const char *stop_and_report(unsigned ncpus, int cpu)
{
	stat_stop();
	pt_tick_all(ncpus, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_closed(0, NULL, NULL), 0);
	tl_cmd_clear(&tc);
	stat_report(&tc.ob.out, cpu);
	stat_end();
	return tc.text;
}

static const char *session(unsigned ms, void (*set_end)(void), int cpu)
{
	ck_assert_int_eq(stat_start(), 0);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_open(0, NULL, NULL), 0);
	fake_now_ns += (uint64_t)ms * 1000000u;
	set_end();
	return stop_and_report(2, cpu);
}

CHECK_TEST("stat", test_stat_delta_wraps_at_counter_width)
{
	ck_assert_uint_eq(stat_delta(W48 - 10, 5, 48), 15);
	ck_assert_uint_eq(stat_delta(100, 250, 48), 150);
	ck_assert_uint_eq(stat_delta(~0ull - 1, 3, 64), 5);
	ck_assert_uint_eq(stat_delta(7, 7, 48), 0);
}
END_TEST

static void end_counts(void)
{
	/* cpu 0: 2.5 G cycles (across a wrap), 5 G instructions: IPC 2.00.
	 * cpu 1: 1 G cycles, 500 M instructions: IPC 0.50. */
	fake_count_value[0][0] = (W48 - 500000000ull + 2500000000ull) % W48;
	fake_count_value[0][1] = 5000000000ull;
	fake_count_value[1][0] = 1000000000ull;
	fake_count_value[1][1] = 500000000ull;
}

CHECK_TEST("stat", test_stat_report_wrap_ipc_and_total)
{
	fake_count_value[0][0] = W48 - 500000000ull;	/* wraps in the window */
	fake_count_value[0][1] = 0;
	fake_count_value[1][0] = 0;
	fake_count_value[1][1] = 0;
	ck_assert_str_eq(session(1000, end_counts, STAT_CPU_ALL),
		"counted 1000 ms\n"
		"cpu           cycles   instructions    ipc    idle\n"
		"0         2500000000     5000000000   2.00   100.0%\n"
		"1         1000000000      500000000   0.50   100.0%\n"
		"all       3500000000     5500000000   1.57   100.0%\n");
	ck_assert(!fake_count_is_open[0] && !fake_count_is_open[1]);
}
END_TEST

static void end_cpu1_only(void)
{
	fake_count_value[1][0] = 300;
	fake_count_value[1][1] = 0;	/* instructions never moved */
}

CHECK_TEST("stat", test_stat_never_moved_is_not_counted_never_zero)
{
	memset(fake_count_value, 0, sizeof(fake_count_value));
	ck_assert_str_eq(session(10, end_cpu1_only, STAT_CPU_ALL),
		"counted 10 ms\n"
		"cpu           cycles   instructions    ipc    idle\n"
		"0        not counted    not counted      -   100.0%\n"
		"1                300    not counted      -   100.0%\n"
		"all      not counted    not counted      -   100.0%\n"
		"not counted on any cpu: instructions (this machine does not count them, or they never moved)\n");
}
END_TEST

static void end_nothing(void)
{
}

CHECK_TEST("stat", test_stat_absent_events_say_so_plainly)
{
	fake_count_can_open[0] = fake_count_can_open[1] = false;
	ck_assert_str_eq(session(10, end_nothing, 1),
		"counted 10 ms\n"
		"cpu           cycles   instructions    ipc    idle\n"
		"1        not counted    not counted      -   100.0%\n"
		"not counted on any cpu: cycles, instructions (this machine does not count them, or they never moved)\n");
}
END_TEST

CHECK_TEST("stat", test_stat_zero_cycles_ipc_is_a_dash)
{
	fake_count_n = 2;
	memset(fake_count_value, 0, sizeof(fake_count_value));
	ck_assert_int_eq(stat_start(), 0);
	pt_tick_all(2, PT_CPU_IDLE);
	stat_wait_open(0, NULL, NULL);
	fake_count_value[0][1] = 42;	/* instructions, and no cycles */
	stat_stop();
	pt_tick_all(2, PT_CPU_IDLE);
	stat_wait_closed(0, NULL, NULL);
	tl_cmd_clear(&tc);
	stat_report(&tc.ob.out, 0);
	stat_end();
	ck_assert_ptr_nonnull(strstr(tc.text, "0        not counted             42      -"));
}
END_TEST

/* Ten milliseconds pass; only cpu 0 ticks. */
static void pause_cpu1_silent(void *ctx)
{
	(void)ctx;
	fake_now_ns += 10000000;
	pt_tick(0, PT_CPU_IDLE);
}

CHECK_TEST("stat", test_stat_cpu_that_never_opens_is_left_out)
{
	ck_assert_int_eq(stat_start(), 0);
	ck_assert_uint_eq(stat_wait_open(20000000, pause_cpu1_silent, NULL), 1u << 1);
	/* Only CPU 0 ticks: CPU 1 never opened. */
	stop_and_report(1, STAT_CPU_ALL);
	ck_assert_ptr_null(strstr(tc.text, "\n1 "));
	ck_assert_ptr_nonnull(strstr(tc.text, "cpus 1 did not open their counters within 20 ms; left out\n"));
}
END_TEST

/* Each CPU counts from its own tick's open to its own tick's close: cpu
 * 1 opens 5 ms after cpu 0, the window opens once it has, and after the
 * stop cpu 0 closes at once and cpu 1 7 ms later.  "counted" covers
 * every count: from cpu 0's open to cpu 1's close. */
CHECK_TEST("stat", test_stat_counted_covers_each_cpus_window)
{
	memset(fake_count_value, 0, sizeof(fake_count_value));
	ck_assert_int_eq(stat_start(), 0);
	pt_tick(0, PT_CPU_IDLE);
	fake_now_ns += 5000000;
	pt_tick(1, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_open(0, NULL, NULL), 0);
	fake_now_ns += 100000000;
	end_counts();
	stat_stop();
	pt_tick(0, PT_CPU_IDLE);
	fake_now_ns += 7000000;
	pt_tick(1, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_closed(0, NULL, NULL), 0);
	tl_cmd_clear(&tc);
	stat_report(&tc.ob.out, STAT_CPU_ALL);
	ck_assert(pt_golden_equal("stat_cpu_windows.txt", tc.text));
	/* One CPU: its own window. */
	tl_cmd_clear(&tc);
	stat_report(&tc.ob.out, 1);
	ck_assert_ptr_nonnull(strstr(tc.text, "counted 107 ms\ncpu "));
	stat_end();
}
END_TEST

CHECK_TEST("stat", test_stat_and_profile_exclude_each_other)
{
	ck_assert_int_eq(prof_start(), 0);
	ck_assert_int_eq(stat_start(), -EBUSY);
	ck_assert_int_ne(run("stat 10"), 0);
	ck_assert_str_eq(tc.text, "stat: busy\n");
	prof_end();
	ck_assert_int_eq(stat_start(), 0);
	ck_assert_int_eq(prof_start(), -EBUSY);
	stat_end();
	ck_assert_int_eq(prof_start(), 0);
	prof_end();
}
END_TEST

/* A profile started now arms both CPUs on their ticks (cpu 1's stale
 * count closed first), and ends. */
static void profile_arms_both_cpus(void)
{
	ck_assert_int_eq(prof_start(), 0);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 0);
	ck_assert(!fake_count_is_open[1]);
	ck_assert_msg(prof_cpu_armed(1) && fake_pmu_running[1],
		      "cpu 1 after its tick: armed %d, counter running %d",
		      prof_cpu_armed(1), fake_pmu_running[1]);
	prof_end();
}

/* A CPU that missed `stat`'s stop still counts when the session gives
 * up on it.  `stat`'s claim on the counters holds until that CPU has
 * closed: a profile (or another stat) right after is refused in one
 * line naming it, changing nothing, and starts once the CPU's tick
 * closed its events -- then arms every CPU. */
static void stat_missing_cpu1s_stop(void)
{
	ck_assert_int_eq(stat_start(), 0);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_open(0, NULL, NULL), 0);
	stat_stop();
	pt_tick(0, PT_CPU_IDLE);		/* cpu 1 misses the stop */
	ck_assert_uint_eq(stat_wait_closed(0, NULL, NULL), 1u << 1);
	stat_end();
	ck_assert(fake_count_is_open[1]);
	ck_assert_uint_eq(stat_cpus_still_open(), 1u << 1);
}

CHECK_TEST("stat", test_stat_missed_stop_then_profile_refused_until_closed)
{
	stat_missing_cpu1s_stop();
	ck_assert_int_eq(prof_start(), -EINPROGRESS);
	ck_assert_int_ne(tl_cmd_run(&tc, cmd_profile, "profile 10"), 0);
	ck_assert_str_eq(tc.text, "profile: stat's counter still open on cpu 1 "
			 "(it missed its stop); try again shortly\n");
	ck_assert_int_ne(run("stat 10"), 0);
	ck_assert_str_eq(tc.text, "stat: the last stat's counter still open on cpu 1 "
			 "(it missed its stop); try again shortly\n");
	/* Nothing changed: no run, nothing armed, cpu 1 still counting. */
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert(!prof_cpu_armed(0) && !prof_cpu_armed(1));
	ck_assert(!fake_pmu_running[0] && !fake_pmu_running[1]);

	/* That tick closed cpu 1's events: the claim went with them. */
	ck_assert(!fake_count_is_open[1]);
	ck_assert_uint_eq(stat_cpus_still_open(), 0);
	profile_arms_both_cpus();
}
END_TEST

/* Two CPUs missed the stop: both named; the claim holds until the last
 * of them closed. */
CHECK_TEST("stat", test_stat_claim_released_by_the_last_close)
{
	fake_ncpus = 3;
	fake_cpu_boot(2);
	ck_assert_int_eq(stat_start(), 0);
	pt_tick_all(3, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_open(0, NULL, NULL), 0);
	stat_stop();
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_closed(0, NULL, NULL), 6);
	stat_end();
	ck_assert_int_eq(prof_start(), -EINPROGRESS);
	ck_assert_int_ne(tl_cmd_run(&tc, cmd_profile, "profile 10"), 0);
	ck_assert_str_eq(tc.text, "profile: stat's counter still open on cpus 1,2 "
			 "(they missed their stop); try again shortly\n");
	pt_tick(2, PT_CPU_IDLE);
	ck_assert_int_eq(prof_start(), -EINPROGRESS);
	ck_assert_int_eq(stat_start(), -EINPROGRESS);
	pt_tick(1, PT_CPU_IDLE);
	ck_assert_int_eq(stat_start(), 0);
	stat_end();
}
END_TEST

/* The tick closes a stale count before the profiler arms, and a counter
 * busy counting refuses to arm (as arm64's does): should a profile
 * start while a CPU still counts (the claim is the first defence, this
 * the second), that CPU arms on its first tick all the same. */
CHECK_TEST("stat", test_stat_stale_count_closed_before_the_arm)
{
	stat_missing_cpu1s_stop();
	/* As if the claim had been let go without cpu 1's close. */
	stat_open_cpus = 0;
	profile_arms_both_cpus();
}
END_TEST

/* And the other way: a CPU still armed for a profile that stopped
 * without it opens `stat`'s counters only after its disarm. */
CHECK_TEST("stat", test_profile_missed_stop_then_stat_counts)
{
	ck_assert_int_eq(prof_start(), 0);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 0);
	prof_stop();
	pt_tick(0, PT_CPU_IDLE);		/* cpu 1 misses the stop */
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 1u << 1);
	prof_end();
	ck_assert(fake_pmu_running[1]);

	ck_assert_int_eq(stat_start(), 0);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_open(0, NULL, NULL), 0);
	ck_assert(!fake_pmu_running[1] && !prof_cpu_armed(1));
	ck_assert(fake_count_is_open[1]);
	stat_end();
}
END_TEST

CHECK_TEST("stat", test_stat_arguments_rejected)
{
	expect_error("stat 0", "stat: window must be 1-10000 ms (got 0)\n");
	expect_error("stat 10001", "stat: window must be 1-10000 ms (got 10001)\n");
	expect_error("stat 99999999999999999999",
		     "stat: window must be 1-10000 ms (got 99999999999999999999)\n");
	expect_error("stat 5x", "stat: window must be a number of ms (got 5x)\n");
	expect_error("stat 100 2", "stat: cpu must be all or 0-1 (got 2)\n");
	expect_error("stat 100 cpu1", "stat: cpu must be all or 0-1 (got cpu1)\n");
	expect_error("stat 100 all x",
		     "stat: unexpected x (usage: stat [ms] [all|cpu|pid=N] [events=LIST])\n");
	expect_error("stat 100 all events=cycles x",
		     "stat: unexpected x (usage: stat [ms] [all|cpu|pid=N] [events=LIST])\n");
	expect_error("stat 1 all events=cycles pid=1 x y",
		     "stat: too many arguments (usage: stat [ms] [all|cpu|pid=N] [events=LIST])\n");
	expect_error("stat 100 events=cycles events=cycles", "stat: events= given twice\n");
	expect_error("stat 100 pid=0", "stat: pid= must be a task's pid, 1 or more (got 0)\n");
	expect_error("stat 100 pid=x", "stat: pid= must be a task's pid, 1 or more (got x)\n");
	expect_error("stat 100 pid=1 pid=1", "stat: pid= given twice\n");
	expect_error("stat 100 1 pid=1",
		     "stat: a cpu or pid=, not both (a task's counts come with its own cpu's)\n");
}
END_TEST

int main(void)
{
	return check_run(check_suite("stat", setup, 0));
}
