/* SPDX-License-Identifier: BSD-2-Clause */
/* `trace` on the simulator, its CPUs writing their rings while the
 * shell's task reads them: the ping-pong truth (each yield of its two
 * tasks is one sched_switch on their CPU, as the workload counted them),
 * exact lost counts in both modes with the newest events intact when
 * overwriting, an empty trace of a CPU nothing runs on and one that
 * names the task put there, the bad input, and a trace beside a wall
 * profile. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_fixture.h"
#include "check_main.h"

static struct ksim_config cfg;

static void boot(unsigned cpus)
{
	ksim_config_defaults(&cfg);
	cfg.cpus = cpus;
	cfg.source = KSIM_SOURCE_TICK;
	simfx_start(&cfg);
}

static char *run(const char *line)
{
	char *out = simfx_run(line, 30000);

	ck_assert_msg(out != NULL, "no prompt after %s", line);
	return out;
}

static void run_expect(const char *line, const char *want)
{
	char *out = run(line);

	ck_assert_msg(strstr(out, want), "%s said: %s", line, out);
	free(out);
}

/* The header's "N events, L lost". */
static void header(const char *out, unsigned long *events, unsigned long *lost)
{
	const char *p = strstr(out, "; ");

	ck_assert_msg(p && sscanf(p, "; %lu events, %lu lost", events, lost) == 2,
		      "no header in: %s", out);
}

/* The pid inside "name[pid]". */
static int pid_of(const char *tok)
{
	const char *b = strrchr(tok, '[');

	return b ? atoi(b + 1) : -1;
}

struct sw {
	int prev, next;
	unsigned cpu;
	char state[16];
};

/* Every sched_switch line of a `trace show text`, in order. */
static size_t switches(char *text, struct sw *v, size_t max)
{
	size_t n = 0;

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char task[64], ev[32], st[16], nx[64];
		unsigned cpu;

		if (sscanf(line, " %*u.%*u cpu%u %63s %31s prev_state=%15s next=%63s", &cpu, task,
			   ev, st, nx) != 5 || strcmp(ev, "sched_switch") != 0)
			continue;
		ck_assert_uint_lt(n, max);
		v[n].prev = pid_of(task);
		v[n].next = pid_of(nx);
		v[n].cpu = cpu;
		memcpy(v[n].state, st, sizeof(v[n].state));
		n++;
	}
	return n;
}

#define MAX_SW 400000
static struct sw sw[MAX_SW];

/* N round trips of the two tasks are 2N yields (one more when one of
 * them yielded once more before it saw the stop): each yield that found
 * the other task runnable is one switch out of it in state R, never R+
 * (that is the tick's preemption).  A yield after the other task ended
 * switches nowhere: at most one per task. */
CHECK_TEST("truth", test_pingpong_round_trips_are_switches)
{
	unsigned long rounds, yields, events, lost;
	int a, b;
	size_t n, mine = 0, other = 0;
	char *out;

	boot(2);
	run_expect("trace start sched cpu=0 buffer=16384 mode=stop", "trace: started\n");
	out = run("work start pingpong");
	ck_assert_msg(sscanf(out, "work: started pingpong, 2 tasks, pids %d %d", &a, &b) == 2,
		      "%s", out);
	free(out);
	out = run("work stop");
	ck_assert_msg(strstr(out, "pingpong truth: ") &&
		      sscanf(strstr(out, "pingpong truth: "),
			     "pingpong truth: %lu round trips, %lu switches", &rounds, &yields) == 2,
		      "%s", out);
	free(out);
	out = run("trace stop");
	header(out, &events, &lost);
	free(out);
	ck_assert_msg(lost == 0, "a 16 MB ring lost %lu of %lu events", lost, events);
	out = run("trace show text");
	n = switches(out, sw, MAX_SW);
	free(out);
	for (size_t i = 0; i < n; i++) {
		bool pp = sw[i].prev == a || sw[i].prev == b;

		ck_assert_uint_eq(sw[i].cpu, 0);
		if (pp && strcmp(sw[i].state, "R") == 0)
			mine++;
		else
			other++;
	}
	ck_assert_uint_ge(yields, 2 * rounds);
	ck_assert_msg(mine <= yields && mine + 2 >= yields,
		      "%lu round trips, %lu yields; %zu yield switches in the trace "
		      "(%zu other switches)", rounds, yields, mine, other);
}
END_TEST

/* Sum of the fired counts of `trace list`. */
static unsigned long fired_total(void)
{
	char *out = run("trace list"), *line;
	unsigned long sum = 0;

	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char name[32], group[16], fields[64];
		unsigned long f;

		if (sscanf(line, "%31s %15s %63s %lu", name, group, fields, &f) == 4)
			sum += f;
	}
	free(out);
	return sum;
}

/* A 4 KB ring (128 events) under ping-pong: every event the CPUs
 * offered is kept or counted lost.  Stop mode keeps the first 128;
 * overwrite the newest 128, whole: consecutive switches on a CPU chain
 * (one's next is the following one's prev) with nothing missing. */
CHECK_LOOP_TEST("overflow", test_overflow_counts_exactly, 0, 2)
{
	bool overwrite = _i == 1;
	unsigned long before, after, events, lost;
	char *out;
	size_t n;

	boot(2);
	run_expect("work start pingpong", "work: started pingpong");
	before = fired_total();
	run_expect(overwrite ? "trace start sched buffer=4 mode=overwrite"
			     : "trace start sched buffer=4 mode=stop", "trace: started\n");
	{
		struct timespec ts = { 0, 100000000 };

		nanosleep(&ts, NULL);
	}
	out = run("trace stop");
	header(out, &events, &lost);
	free(out);
	after = fired_total();
	ck_assert_uint_gt(lost, 0);
	ck_assert_uint_eq(events + lost, after - before);
	/* Two CPUs' rings of 128; ping-pong fills CPU 0's. */
	ck_assert_uint_le(events, 256);
	ck_assert_uint_ge(events, 128);
	out = run("trace show text");
	n = switches(out, sw, MAX_SW);
	free(out);
	ck_assert_uint_ge(n, 100);
	for (size_t i = 0, last = SIZE_MAX; i < n; i++) {
		if (sw[i].cpu != 0)
			continue;
		if (last != SIZE_MAX)
			ck_assert_msg(sw[last].next == sw[i].prev,
				      "switch %zu goes to %d, the next leaves %d", last,
				      sw[last].next, sw[i].prev);
		last = i;
	}
	run_expect("work stop", "work: stopped pingpong");
}
END_TEST

/* Nothing runs on CPU 3 of 4 but its idle task: a trace of it is
 * empty.  Put a task there and the same trace names it. */
CHECK_TEST("quiet", test_quiet_cpu_is_empty_then_names_intruder)
{
	char *out;
	unsigned long events, lost;

	boot(4);
	out = run("trace 300 sched cpu=3");
	header(out, &events, &lost);
	ck_assert_msg(events == 0 && lost == 0, "%s", out);
	free(out);
	run_expect("work start spin 4", "work: started spin, 4 tasks");
	out = run("trace 300 sched,irq cpu=3");
	ck_assert_msg(strstr(out, "task spin/3["), "%s", out);
	ck_assert_msg(!strstr(out, "spin/0[") && !strstr(out, "cpu0 "), "%s", out);
	free(out);
	out = run("trace show irqs");
	/* The tick runs on every CPU, traced or not: SIGPROF here. */
	ck_assert_msg(strstr(out, "cpu3") && strstr(out, "\n    27 "), "%s", out);
	free(out);
	run_expect("work stop", "work: stopped spin");
}
END_TEST

/* Each bad word: one line saying what is allowed, and nothing armed. */
CHECK_TEST("input", test_bad_input_refused_in_one_line)
{
	static const struct { const char *cmd, *want; } bad[] = {
		{ "trace 100 bogus", "trace: unknown event 'bogus' (trace list names every event" },
		{ "trace 100 sched,nope", "trace: unknown event 'nope'" },
		{ "trace 100", "trace: which events?" },
		{ "trace 100 sched pid=x", "trace: pid= must be a pid" },
		{ "trace 100 sched buffer=2", "trace: buffer= must be 4-65536 KB (got 2)" },
		{ "trace 100 sched mode=fast", "trace: mode= must be overwrite or stop (got fast)" },
		{ "trace 100 sched color=red", "trace: unknown option color=red" },
		{ "trace 0 sched", "trace: window must be 1-60000 ms (got 0)" },
		{ "trace show pie", "trace: unknown view pie" },
		/* 64 MB on each of 16 CPUs, and its store: past 1 GB of RAM. */
		{ "trace 100 sched buffer=65536", "needs " },
	};

	ksim_config_defaults(&cfg);
	cfg.cpus = 16;
	cfg.source = KSIM_SOURCE_TICK;
	simfx_start(&cfg);
	run_expect("trace stop", "trace: none running (trace start EVENTS)\n");
	run_expect("trace show", "trace: nothing to show");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *out = run(bad[i].cmd);
		char *nl = strchr(out, '\n');
		char want[64];

		ck_assert_msg(strstr(out, bad[i].want), "%s said: %s", bad[i].cmd, out);
		ck_assert_msg(nl && nl[1] == '\0', "%s: more than one line: %s", bad[i].cmd, out);
		free(out);
		/* Nothing was armed: a trace can start at once. */
		snprintf(want, sizeof(want), "trace: started\n");
		run_expect("trace start tick", want);
		run_expect("trace stop", "events: tick\n");
	}
	/* cpu= past this machine's 16 is refused too. */
	run_expect("trace 100 sched cpu=16", "trace: cpu= must be 0-15 (got 16)");
}
END_TEST

/* A trace beside a wall profile: both see the switches, neither
 * replaces the other (the wall profile has the switch hook; the trace
 * its own tracepoint). */
CHECK_TEST("beside", test_trace_beside_wall_profile)
{
	unsigned long events, lost;
	char *out;

	boot(2);
	run_expect("work start pingpong", "work: started pingpong");
	run_expect("trace start sched cpu=0", "trace: started\n");
	out = run("profile 300 wall");
	ck_assert_msg(strstr(out, "profiled ") && strstr(out, ", wall\n") &&
		      strstr(out, " switches"), "profile said: %s", out);
	free(out);
	out = run("trace stop");
	header(out, &events, &lost);
	ck_assert_msg(events > 0 && strstr(out, "task pingpong/"), "%s", out);
	free(out);
	out = run("profile show tasks");
	ck_assert_msg(strstr(out, "pingpong"), "%s", out);
	free(out);
	run_expect("work stop", "work: stopped pingpong");
}
END_TEST

int main(void)
{
	return check_run_forked(check_suite("trace", NULL, 60));
}
