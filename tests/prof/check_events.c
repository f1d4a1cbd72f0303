/* SPDX-License-Identifier: BSD-2-Clause */
/* Any event, counted honestly, on the fake platform: the event table and
 * `events`, `stat events=`'s list and its errors, packing groups into
 * rotation sets, rotation on the tick and the enabled / running scaling,
 * events that cannot count, the kernel's own events against their exact
 * truths, and per-task counts saved and restored at the task's
 * switches (`stat pid=`: two tasks sharing a CPU counted apart). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "fake_pmu.h"
#include "prof_testlib.h"
#include "testlib.h"
#include "hal/entry.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "prof/events.h"
#include "prof/profiler.h"
#include "prof/stat.h"
#include "prof/stat_plan.h"
#include "prof/stat_test.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "check_main.h"

#define MS 1000000ull

static struct tl_cmd tc;
static struct event_table table;

/* A part of eight general events e0..e7 and one fixed, fx, that a plain
 * stat does not count, on @general counters; e7 claimed but dead. */
static void eight_events(unsigned general)
{
	static const char *names[] = { "e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "fx" };

	fake_count_n = 9;
	for (unsigned i = 0; i < 9; i++) {
		fake_count_names[i] = names[i];
		fake_count_bits[i] = 48;
		fake_count_fixed[i] = i == 8 ? 0 : -1;
		fake_count_counts[i] = i != 7;
		fake_count_standard[i] = false;
		fake_count_can_open[i] = true;
	}
	fake_count_counters = (struct hal_pmu_counters){ general, 1 };
}

static void setup(void)
{
	pt_boot_cpus(2);
	tl_cmd_init(&tc);
	eight_events(4);
	events_load(&table);
}

static int event_id(const char *name)
{
	int e = events_find(&table, name, strlen(name));

	ck_assert_msg(e >= 0, "no event %s", name);
	return e;
}

/* ---- the table and `events` ---- */

CHECK_TEST("table", test_table_kernel_events_first_then_the_platforms)
{
	static const char *kernel[] = { "context-switches", "ticks", "interrupts", "nmis",
					"net-rx-frames", "net-tx-frames" };

	ck_assert_uint_eq(table.n, 6 + 9);
	for (unsigned i = 0; i < 6; i++) {
		ck_assert_str_eq(table.ev[i].name, kernel[i]);
		ck_assert(table.ev[i].kernel && table.ev[i].counts && table.ev[i].exact);
		ck_assert_uint_eq(table.ev[i].bits, 64);
	}
	ck_assert_str_eq(table.ev[6].name, "e0");
	ck_assert(!table.ev[6].kernel);
	ck_assert_uint_eq(table.ev[6].id, 0);
	ck_assert_int_eq(table.ev[14].fixed, 0);
	ck_assert(!table.ev[13].counts);	/* e7: claimed, not proven */
	ck_assert_str_eq(table.ev[13].why_not, "fake: claimed, never moved");
	ck_assert_uint_eq(table.counters.general, 4);
	ck_assert_uint_eq(table.counters.fixed, 1);
	ck_assert_int_eq(events_find(&table, "tick", 4), -1);
	ck_assert_int_eq(events_find(&table, "ticks", 5), 1);
}
END_TEST

CHECK_TEST("table", test_events_command_says_source_and_whether_it_counts)
{
	ck_assert_int_eq(tl_cmd_run(&tc, cmd_events, "events"), 0);
	ck_assert_ptr_nonnull(strstr(tc.text, "counters: 4 general, 1 fixed (the kernel's events take none)\n"));
	ck_assert_ptr_nonnull(strstr(tc.text,
		"context-switches         kernel software event                        yes\n"));
	ck_assert_ptr_nonnull(strstr(tc.text,
		"e7                       fake event 7                                 no: fake: claimed, never moved\n"));
	/* It gave the counters back. */
	ck_assert_int_eq(prof_counters_claim(), 0);
	prof_counters_release();
}
END_TEST

CHECK_TEST("table", test_events_command_refuses_while_stat_counts)
{
	ck_assert_int_eq(stat_start(), 0);
	ck_assert_int_ne(tl_cmd_run(&tc, cmd_events, "events"), 0);
	ck_assert_str_eq(tc.text, "events: busy (a profile or stat holds the counters); try again when it ends\n");
	stat_end();
	ck_assert_int_ne(tl_cmd_run(&tc, cmd_events, "events x"), 0);
	ck_assert_str_eq(tc.text, "events: takes no arguments (got x)\n");
}
END_TEST

/* ---- the list ---- */

static const char *parse_error(const char *list)
{
	struct stat_plan p;

	tl_cmd_clear(&tc);
	ck_assert_int_lt(stat_plan_parse(&table, list, &p, &tc.ob.out), 0);
	return tc.text;
}

CHECK_TEST("list", test_list_names_and_groups)
{
	struct stat_plan p;

	ck_assert_int_eq(stat_plan_parse(&table, "ticks,{e0,e1},e2,{fx}", &p, &tc.ob.out), 0);
	ck_assert_uint_eq(p.n, 5);
	ck_assert_uint_eq(p.ngroups, 4);
	ck_assert_uint_eq(p.ev[0], (unsigned)event_id("ticks"));
	ck_assert_uint_eq(p.ev[2], (unsigned)event_id("e1"));
	ck_assert_uint_eq(p.group[1], 1);
	ck_assert_uint_eq(p.group[2], 1);
	ck_assert_uint_eq(p.group[3], 2);
	ck_assert_uint_eq(p.group[4], 3);
}
END_TEST

CHECK_TEST("list", test_list_errors_one_line_each)
{
	ck_assert_str_eq(parse_error("e0,bogus"),
			 "stat: no event named bogus (`events` lists this machine's)\n");
	ck_assert_str_eq(parse_error("e0,{e1,e0}"), "stat: event e0 listed twice\n");
	ck_assert_str_eq(parse_error(""),
		"stat: bad event list at \"\" (events=a,b,{c,d}: names from `events`, groups in braces)\n");
	ck_assert_str_eq(parse_error("e0,,e1"),
		"stat: bad event list at \",e1\" (events=a,b,{c,d}: names from `events`, groups in braces)\n");
	ck_assert_str_eq(parse_error("e0,"),
		"stat: bad event list at \",\" (events=a,b,{c,d}: names from `events`, groups in braces)\n");
	ck_assert_str_eq(parse_error("{e0,e1"),
		"stat: bad event list at \"{e0,e1\" (events=a,b,{c,d}: names from `events`, groups in braces)\n");
	ck_assert_str_eq(parse_error("{}"),
		"stat: bad event list at \"}\" (events=a,b,{c,d}: names from `events`, groups in braces)\n");
	ck_assert_str_eq(parse_error("{e0,{e1}}"),
		"stat: bad event list at \"{e1}}\" (events=a,b,{c,d}: names from `events`, groups in braces)\n");
	ck_assert_str_eq(parse_error("e0}"),
		"stat: bad event list at \"}\" (events=a,b,{c,d}: names from `events`, groups in braces)\n");
	ck_assert_str_eq(parse_error("context-switches,ticks,interrupts,nmis,net-rx-frames,"
				     "net-tx-frames,e0,e1,e2,e3,e4,e5,e6,e7,fx,ticks"),
			 "stat: event ticks listed twice\n");
}
END_TEST

CHECK_TEST("list", test_list_of_more_than_sixteen_refused)
{
	char list[512] = "";

	/* 15 platform and kernel events, then the 17th would be one too
	 * many: a part with more events. */
	fake_count_n = 12;
	for (unsigned i = 9; i < 12; i++) {
		static const char *more[] = { "e9", "e10", "e11" };

		fake_count_names[i] = more[i - 9];
		fake_count_counts[i] = true;
		fake_count_fixed[i] = -1;
	}
	events_load(&table);
	for (unsigned i = 0; i < table.n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? "," : "", table.ev[i].name);
	ck_assert_str_eq(parse_error(list), "stat: at most 16 events at once\n");
}
END_TEST

/* ---- packing into sets ---- */

static struct stat_plan sched_ok(const char *list)
{
	struct stat_plan p;

	ck_assert_int_eq(stat_plan_parse(&table, list, &p, &tc.ob.out), 0);
	ck_assert_int_eq(stat_plan_sched(&table, &p, &tc.ob.out), 0);
	return p;
}

CHECK_TEST("sched", test_sched_fits_one_set_no_rotation)
{
	struct stat_plan p = sched_ok("e0,e1,e2,e3,fx,ticks");

	ck_assert_uint_eq(p.nsets, 1);
	for (unsigned i = 0; i < p.n; i++)
		ck_assert_uint_eq(p.in_set[i], 1);
}
END_TEST

CHECK_TEST("sched", test_sched_groups_never_split_each_general_event_in_one_set)
{
	/* 4 counters: {e0,e1,e2} fits set 0, e3 too; {e4,e5} starts set
	 * 1, e6 joins it; the fixed fx counts in every set, the kernel's
	 * in every set, dead e7 in none. */
	struct stat_plan p = sched_ok("{e0,e1,e2},e3,{e4,e5},e6,fx,ticks,e7");

	ck_assert_uint_eq(p.nsets, 2);
	ck_assert_uint_eq(p.in_set[0], 1);
	ck_assert_uint_eq(p.in_set[3], 1);
	ck_assert_uint_eq(p.in_set[4], 2);
	ck_assert_uint_eq(p.in_set[5], 2);
	ck_assert_uint_eq(p.in_set[6], 2);
	ck_assert_uint_eq(p.in_set[7], 3);	/* fx */
	ck_assert_uint_eq(p.in_set[8], 3);	/* ticks */
	ck_assert_uint_eq(p.in_set[9], 0);	/* e7 never counts */
}
END_TEST

CHECK_TEST("sched", test_sched_group_larger_than_the_counters_refused)
{
	struct stat_plan p;

	ck_assert_int_eq(stat_plan_parse(&table, "e0,{e1,e2,e3,e4,e5},fx", &p, &tc.ob.out), 0);
	ck_assert_int_eq(stat_plan_sched(&table, &p, &tc.ob.out), -E2BIG);
	ck_assert_str_eq(tc.text,
		"stat: group {e1,e2,e3,e4,e5} needs 5 general counters at once; this machine has 4 (and 1 fixed)\n");
	/* And through the command, changing nothing. */
	ck_assert_int_ne(tl_cmd_run(&tc, cmd_stat, "stat 10 events={e0,e1,e2,e3,e4}"), 0);
	ck_assert_str_eq(tc.text,
		"stat: group {e0,e1,e2,e3,e4} needs 5 general counters at once; this machine has 4 (and 1 fixed)\n");
	ck_assert_uint_eq(fake_count_opens, 0);
	ck_assert_int_eq(prof_counters_claim(), 0);
	prof_counters_release();
}
END_TEST

CHECK_TEST("sched", test_unknown_event_through_the_command_changes_nothing)
{
	ck_assert_int_ne(tl_cmd_run(&tc, cmd_stat, "stat 10 all events=e0,cyles"), 0);
	ck_assert_str_eq(tc.text, "stat: no event named cyles (`events` lists this machine's)\n");
	ck_assert_uint_eq(fake_count_opens, 0);
	ck_assert_int_ne(tl_cmd_run(&tc, cmd_stat, "stat 10 pid=999 events=ticks"), 0);
	ck_assert_str_eq(tc.text, "stat: no task with pid 999 (`ps` lists them)\n");
	ck_assert_int_eq(prof_counters_claim(), 0);
	prof_counters_release();
}
END_TEST

/* ---- rotation and scaling ---- */

/* Open on both CPUs at the current time, then @segments - 1 ticks 10 ms
 * apart on each (each a rotation when the sets are several), 10 ms more,
 * stop and close; report cpu @show. */
static const char *run_window(const char *list, unsigned segments, int show)
{
	ck_assert_int_eq(stat_start_as(&tc.ob.out, list, 0), 0);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_open(0, NULL, NULL), 0);
	for (unsigned k = 1; k < segments; k++) {
		fake_now_ns += 10 * MS;
		pt_tick_all(2, PT_CPU_IDLE);
	}
	fake_now_ns += 10 * MS;
	stat_stop();
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_closed(0, NULL, NULL), 0);
	tl_cmd_clear(&tc);
	stat_report(&tc.ob.out, show);
	stat_end();
	return tc.text;
}

CHECK_TEST("scale", test_rotation_never_opens_more_than_the_counters)
{
	eight_events(2);
	events_load(&table);
	for (unsigned e = 0; e < 7; e++)
		fake_count_rate[0][e] = 1000000;
	run_window("e0,e1,e2,e3,e4,e5,e6", 8, 0);
	/* 7 events on 2 counters: never more than 2 at once. */
	ck_assert_uint_eq(fake_count_open_max, 2);
	ck_assert(!fake_count_is_open[0] && !fake_count_is_open[1]);
}
END_TEST

/* A steady rate on each event, more events than counters: each scaled
 * count is the rate times the window exactly (the segments are whole
 * ticks), the shares are the sets' turns, and they add up. */
CHECK_TEST("scale", test_scaled_counts_match_steady_rates_and_shares_add_up)
{
	struct stat_cpu_result r;
	uint64_t share_sum = 0;

	eight_events(2);
	events_load(&table);
	for (unsigned e = 0; e < 4; e++)
		fake_count_rate[0][e] = (e + 1) * 1000000ull;	/* 1-4 M/s */
	fake_count_rate[0][8] = 7000000;			/* fx */
	/* 21 segments of 10 ms: set 0 {e0,e1} counts 11, set 1 {e2,e3} 10. */
	ck_assert_str_eq(run_window("e0,e1,e2,e3,fx", 21, 0),
		"counted 210 ms\n"
		"5 events on 2 general + 1 fixed counters: 2 sets rotated on the tick\n"
		"event                           cpu 0\n"
		"e0                             210000 (52.4%)\n"
		"e1                             420000 (52.4%)\n"
		"e2                             630000 (47.6%)\n"
		"e3                             840000 (47.6%)\n"
		"fx                            1470000\n");
	stat_result(0, &r);
	ck_assert_uint_eq(r.rotations, 20);
	ck_assert_uint_eq(r.raw[0], 110000);	/* 110 ms of 1 M/s */
	ck_assert_uint_eq(r.run_ns[0], 110 * MS);
	ck_assert_uint_eq(r.run_ns[2], 100 * MS);
	/* One event of each set: their running shares make the window. */
	share_sum = r.run_ns[0] + r.run_ns[2];
	ck_assert_uint_eq(share_sum, r.window_ns);
}
END_TEST

CHECK_TEST("scale", test_scale_arithmetic)
{
	ck_assert_uint_eq(stat_scale(100, 1000, 1000), 100);
	ck_assert_uint_eq(stat_scale(100, 1000, 250), 400);
	ck_assert_uint_eq(stat_scale(0, 1000, 250), 0);
	ck_assert_uint_eq(stat_scale(100, 1000, 0), 100);	/* never ran: unscaled */
	/* No overflow on a large count scaled by a long window. */
	ck_assert_uint_eq(stat_scale(1ull << 60, 10000 * MS, 5000 * MS), 1ull << 61);
}
END_TEST

CHECK_TEST("scale", test_dead_event_not_counted_with_its_reason_never_zero)
{
	fake_count_rate[0][0] = 1000000;
	ck_assert_str_eq(run_window("e0,e7,e1", 2, 0),
		"counted 20 ms\n"
		"event                           cpu 0\n"
		"e0                              20000\n"
		"e7                        not counted\n"
		"e1                        not counted\n"
		"e7: not counted: fake: claimed, never moved\n"
		"e1: not counted: opened but never moved\n");
}
END_TEST

CHECK_TEST("scale", test_derived_ipc_and_miss_percentages)
{
	static const char *names[] = { "cycles", "instructions", "branches", "branch-misses",
				       "cache-references", "cache-misses" };
	static const uint64_t rates[] = { 2000, 3000, 1000, 25, 400, 100 };

	fake_count_n = 6;
	for (unsigned i = 0; i < 6; i++) {
		fake_count_names[i] = names[i];
		fake_count_fixed[i] = -1;
		fake_count_counts[i] = fake_count_can_open[i] = true;
		fake_count_rate[0][i] = rates[i] * 1000000;
	}
	fake_count_counters = (struct hal_pmu_counters){ 6, 0 };
	ck_assert_str_eq(run_window("cycles,instructions,branches,branch-misses,"
				    "cache-references,cache-misses", 1, 0),
		"counted 10 ms\n"
		"event                           cpu 0\n"
		"cycles                       20000000\n"
		"instructions                 30000000\n"
		"branches                     10000000\n"
		"branch-misses                  250000\n"
		"cache-references              4000000\n"
		"cache-misses                  1000000\n"
		"ipc                              1.50\n"
		"branch-miss                      2.5%\n"
		"cache-miss                      25.0%\n");
}
END_TEST

/* ---- the kernel's own events: exact ---- */

CHECK_TEST("kernel", test_ticks_and_interrupts_exact_per_cpu)
{
	struct stat_cpu_result r0, r1;

	/* The open's tick is counted, the close's is not: 1 + 9 ticks. */
	run_window("ticks,context-switches,nmis", 10, STAT_CPU_ALL);
	stat_result(0, &r0);
	stat_result(1, &r1);
	ck_assert(r0.counted[0] && r1.counted[0]);
	ck_assert_uint_eq(r0.delta[0], 10);
	ck_assert_uint_eq(r1.delta[0], 10);
	ck_assert_uint_eq(r0.run_ns[0], 100 * MS);
	/* Idle CPUs: no switch, no NMI -- zeros that are true zeros. */
	ck_assert(r0.counted[1] && r0.counted[2]);
	ck_assert_uint_eq(r0.delta[1], 0);
	ck_assert_uint_eq(r0.delta[2], 0);
	ck_assert_ptr_nonnull(strstr(tc.text, "ticks                              10                      10                      20\n"));
}
END_TEST

/* Each kernel event where the kernel counts it: an interrupt the
 * platform dispatches, an entry to the NMI path, a frame received. */
CHECK_TEST("kernel", test_interrupts_nmis_and_frames_exact_on_their_cpu)
{
	static const uint8_t runt[10];
	struct trap_frame tf = { .ip = PT_CPU_IDLE };
	struct stat_cpu_result r0, r1;

	ck_assert_int_eq(stat_start_as(&tc.ob.out, "interrupts,nmis,net-rx-frames,net-tx-frames", 0), 0);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_open(0, NULL, NULL), 0);
	fake_cpu = 0;
	for (unsigned i = 0; i < 3; i++)
		kernel_interrupt();
	for (unsigned i = 0; i < 2; i++)
		kernel_nmi(&tf);
	for (unsigned i = 0; i < 4; i++)
		net_rx(runt, sizeof(runt));	/* received, then dropped as a runt */
	fake_now_ns += 10 * MS;
	stat_stop();
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_closed(0, NULL, NULL), 0);
	stat_result(0, &r0);
	stat_result(1, &r1);
	stat_end();
	ck_assert_uint_eq(r0.delta[0], 3);
	ck_assert_uint_eq(r0.delta[1], 2);
	ck_assert_uint_eq(r0.delta[2], 4);
	ck_assert_uint_eq(r0.delta[3], 0);
	for (unsigned i = 0; i < 4; i++) {
		ck_assert(r1.counted[i]);	/* true zeros */
		ck_assert_uint_eq(r1.delta[i], 0);
	}
}
END_TEST

/* ---- per task: pingpong on one CPU ---- */

static void body(void *arg)
{
	(void)arg;
}

/* Tasks a and b on CPU 0, a running.  Returns a. */
static struct task *two_tasks(void)
{
	struct task *a = task_create("a", body, NULL, 0);
	struct task *b = task_create("b", body, NULL, 0);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	pt_tick(0, PT_CPU_IDLE);		/* idle -> a */
	ck_assert_ptr_eq(task_current(), a);
	return a;
}

/* N round trips: a runs @a_ms, yields to b, b runs @b_ms, yields back. */
static void pingpong(unsigned n, unsigned a_ms, unsigned b_ms)
{
	for (unsigned i = 0; i < n; i++) {
		fake_now_ns += a_ms * MS;
		fake_cpu = 0;
		sched_yield_cpu();		/* a -> b */
		fake_now_ns += b_ms * MS;
		fake_cpu = 0;
		sched_yield_cpu();		/* b -> a */
	}
}

static void task_session(const char *list, int pid, unsigned n, unsigned a_ms, unsigned b_ms)
{
	ck_assert_int_eq(stat_start_as(&tc.ob.out, list, pid), 0);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_open(0, NULL, NULL), 0);
	pingpong(n, a_ms, b_ms);
	stat_stop();
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(stat_wait_closed(0, NULL, NULL), 0);
}

CHECK_TEST("task", test_pingpong_switches_n_per_task_2n_per_cpu)
{
	enum { N = 500 };
	struct task *a = two_tasks();
	struct stat_cpu_result t, c;

	fake_count_rate[0][0] = 3000000000ull;	/* e0: 3 per ns */
	task_session("context-switches,e0", a->pid, N, 1, 3);
	ck_assert(stat_task_result(&t));
	stat_result(0, &c);
	/* a leaves its CPU once a round trip; the CPU switches twice. */
	ck_assert_uint_eq(t.delta[0], N);
	ck_assert_uint_eq(c.delta[0], 2 * N);
	ck_assert_uint_eq(t.switches_in, N);
	/* a ran 1 ms of each 4: its e0 is its own time's, saved and
	 * restored across every switch, 64 bits (past 2^32 here). */
	ck_assert_uint_eq(t.window_ns, N * MS);
	ck_assert_uint_eq(t.delta[1], 3 * N * MS);
	ck_assert_uint_eq(c.delta[1], 12 * N * MS);
	ck_assert_uint_gt(c.delta[1], 1ull << 32);
	tl_cmd_clear(&tc);
	stat_report(&tc.ob.out, STAT_CPU_ALL);
	stat_end();
	ck_assert_str_eq(tc.text,
		"counted 2000 ms\n"
		"pid 3 (a) on cpu 0: on its cpu 500 ms of the window, came on 500 times\n"
		"event                           pid 3                   cpu 0\n"
		"context-switches                  500                    1000\n"
		"e0                         1500000000              6000000000\n");
}
END_TEST

/* Two sessions, one per task, over the same play: a's and b's counts
 * are each their own, and add up to the CPU's. */
CHECK_TEST("task", test_two_tasks_sharing_a_cpu_counted_apart)
{
	enum { N = 100 };
	struct task *a = two_tasks();
	struct stat_cpu_result ta, tb, c;

	fake_count_rate[0][0] = 1000000;
	task_session("e0,ticks", a->pid, N, 2, 5);
	ck_assert(stat_task_result(&ta));
	stat_result(0, &c);
	stat_end();
	/* b is a's partner: pid a + 1.  The ticks since gave a's slice
	 * out; a fresh one for a, so that the play starts with a again. */
	pt_tick(0, PT_CPU_IDLE);
	if (task_current() != a)
		sched_yield_cpu();
	ck_assert_ptr_eq(task_current(), a);
	task_session("e0,ticks", a->pid + 1, N, 2, 5);
	ck_assert(stat_task_result(&tb));
	stat_end();
	ck_assert_uint_eq(ta.delta[0], N * 2000);	/* 2 ms each at 1 M/s */
	ck_assert_uint_eq(tb.delta[0], N * 5000);
	ck_assert_uint_eq(ta.delta[0] + tb.delta[0], c.delta[0]);
}
END_TEST

/* More events than counters for a task: its counts scale by its own
 * running over its own time on the CPU. */
CHECK_TEST("task", test_task_counts_multiplexed_scale_to_its_time)
{
	struct task *a = two_tasks();
	struct stat_cpu_result t;

	eight_events(1);
	events_load(&table);
	fake_count_rate[0][0] = 1000000;
	fake_count_rate[0][1] = 2000000;
	ck_assert_int_eq(stat_start_as(&tc.ob.out, "e0,e1", a->pid), 0);
	pt_tick_all(2, PT_CPU_IDLE);			/* open: set {e0} */
	stat_wait_open(0, NULL, NULL);
	for (unsigned k = 0; k < 10; k++) {
		pingpong(1, 3, 7);			/* a runs 3 of 10 ms */
		pt_tick_all(2, PT_CPU_IDLE);		/* rotate */
	}
	stat_stop();
	pt_tick_all(2, PT_CPU_IDLE);
	stat_wait_closed(0, NULL, NULL);
	ck_assert(stat_task_result(&t));
	stat_end();
	ck_assert_uint_eq(t.window_ns, 30 * MS);
	ck_assert_uint_eq(t.run_ns[0], 15 * MS);
	ck_assert_uint_eq(t.run_ns[1], 15 * MS);
	ck_assert_uint_eq(t.delta[0], 30000);		/* 1 M/s over its 30 ms */
	ck_assert_uint_eq(t.delta[1], 60000);
}
END_TEST

/* stat holds the counters: profile refuses while it counts, and the
 * other way round -- neither ever disables the other. */
CHECK_TEST("share", test_stat_and_profile_never_disable_each_other)
{
	ck_assert_int_eq(stat_start_as(&tc.ob.out, "e0,e1,e2,e3,e4,e5", 0), 0);
	ck_assert_int_lt(prof_counters_claim(), 0);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert(fake_count_is_open[0]);
	stat_end();
	pt_tick_all(2, PT_CPU_IDLE);		/* each CPU closes */
	ck_assert(!fake_count_is_open[0] && !fake_count_is_open[1]);
	ck_assert_int_eq(prof_counters_claim(), 0);
	ck_assert_int_eq(stat_start_as(&tc.ob.out, "e0", 0), -EBUSY);
	prof_counters_release();
}
END_TEST

int main(void)
{
	return check_run(check_suite("events", setup, 0));
}
