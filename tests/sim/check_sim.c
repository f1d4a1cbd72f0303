/* SPDX-License-Identifier: BSD-2-Clause */
/* ksim, the simulated platform: ticks, context switches and signal
 * masks, sleeping and waking across CPUs, idling, foreign signals, the
 * tick fallback when perf_event_open is refused, the console script and
 * the UDP shell.  Nothing here needs a working perf_event_open (those
 * tests are check_sim_perf).  Each test starts its own machine in Check's
 * forked child. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hal/cpu.h"
#include "hal/timer.h"
#include "prof/profiler.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "shell/udpsh/udpsh.h"
#include "sim_fixture.h"
#include "check_main.h"

static struct ksim_config cfg;

static void cfg_tick(unsigned cpus, unsigned hz)
{
	ksim_config_defaults(&cfg);
	cfg.cpus = cpus;
	cfg.hz = hz;
	cfg.source = KSIM_SOURCE_TICK;
}

/* ---- ticks ---- */

static bool every_cpu_ticked(void *ctx)
{
	uint64_t want = *(uint64_t *)ctx;

	for (unsigned i = 0; i < ksim_cpu_count(); i++) {
		struct ksim_cpu_stats st;
		ksim_cpu_stats(i, &st);
		if (st.ticks < want || cpus[i].ticks < want)
			return false;
	}
	return true;
}

CHECK_TEST("platform", test_tick_reaches_every_cpu_thread)
{
	uint64_t want = 50;
	struct ksim_cpu_stats sum;

	cfg_tick(4, 1000);
	simfx_start(&cfg);
	ck_assert_msg(simfx_poll(every_cpu_ticked, &want, 10000),
		      "some CPU got fewer than 50 ticks");
	simfx_stats_total(&sum);
	/* Every SIGPROF came from the CPU's own timer, named by si_value. */
	ck_assert_uint_eq(sum.foreign, 0);
}
END_TEST

/* ---- context switches in the tick keep SIGPROF open for tasks ---- */

#define SPINNERS 2
static volatile uint64_t spin_iters[SPINNERS];
static volatile uint64_t spin_masked[SPINNERS];
static volatile bool spin_stop;

static void spinner(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;
	int rt = SIGRTMIN + 2;

	while (!spin_stop) {
		sigset_t cur;

		pthread_sigmask(SIG_BLOCK, NULL, &cur);
		/* In task context neither the tick nor the NMI is masked. */
		if (sigismember(&cur, SIGPROF) || sigismember(&cur, rt))
			spin_masked[me]++;
		spin_iters[me]++;
	}
}

static void start_spinners(void)
{
	for (unsigned i = 0; i < SPINNERS; i++)
		ck_assert_ptr_nonnull(task_create("spin", spinner,
						  (void *)(uintptr_t)i, 1));
}

static bool cpu1_switched_enough(void *ctx)
{
	return __atomic_load_n(&cpus[1].switches, __ATOMIC_RELAXED) >= 60;
}

static bool cpu1_ticks_past(void *ctx)
{
	struct ksim_cpu_stats st;

	ksim_cpu_stats(1, &st);
	return st.ticks >= *(uint64_t *)ctx;
}

CHECK_TEST("platform", test_preempting_switch_leaves_tick_unmasked)
{
	struct ksim_cpu_stats st;
	uint64_t later;

	cfg_tick(2, 1000);
	cfg.late_init = start_spinners;
	simfx_start(&cfg);
	/* The two spinners never yield: only the tick's preemption switches
	 * between them, from inside the SIGPROF handler.  The tick counts the
	 * process's CPU time, which a starved host hands out slowly (54
	 * switches in 10 s seen at load 60): the waits are long bounds, not
	 * rates. */
	ck_assert_msg(simfx_poll(cpu1_switched_enough, NULL, 45000),
		      "cpu 1 switched only %llu times",
		      (unsigned long long)cpus[1].switches);
	ksim_cpu_stats(1, &st);
	later = st.ticks + 20;
	ck_assert_msg(simfx_poll(cpu1_ticks_past, &later, 20000),
		      "cpu 1 stopped ticking after its switches");
	spin_stop = true;
	for (unsigned i = 0; i < SPINNERS; i++) {
		ck_assert_uint_gt(spin_iters[i], 0);
		ck_assert_uint_eq(spin_masked[i], 0);
	}
}
END_TEST

/* ---- sleeping and waking across CPUs ---- */

#define PINGPONG_ROUNDS 100
static struct task *volatile ping_task, *volatile pong_task;
static volatile int ball;		/* 0: ping's turn, 1: pong's */
static volatile unsigned rounds_done;
static volatile unsigned slept_ok;

static void ping(void *arg)
{
	ping_task = task_current();
	while (!pong_task)
		sched_sleep_ms(1);
	for (unsigned i = 0; i < PINGPONG_ROUNDS; i++) {
		while (__atomic_load_n(&ball, __ATOMIC_ACQUIRE) != 0)
			sched_block();
		__atomic_store_n(&ball, 1, __ATOMIC_RELEASE);
		sched_wake(pong_task);
	}
}

static void pong(void *arg)
{
	pong_task = task_current();
	while (!ping_task)
		sched_sleep_ms(1);
	for (unsigned i = 0; i < PINGPONG_ROUNDS; i++) {
		uint64_t t0;

		while (__atomic_load_n(&ball, __ATOMIC_ACQUIRE) != 1)
			sched_block();
		/* Sleep now and then: the tick must wake a sleeper too. */
		if (i % 10 == 0) {
			t0 = hal_clock_ns();
			sched_sleep_ms(2);
			if (hal_clock_ns() - t0 >= 2000000)
				slept_ok++;
		}
		__atomic_store_n(&ball, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&rounds_done, i + 1, __ATOMIC_RELEASE);
		sched_wake(ping_task);
	}
}

static void start_pingpong(void)
{
	ck_assert_ptr_nonnull(task_create("ping", ping, NULL, 1));
	ck_assert_ptr_nonnull(task_create("pong", pong, NULL, 2));
}

static bool pingpong_done(void *ctx)
{
	return __atomic_load_n(&rounds_done, __ATOMIC_ACQUIRE) == PINGPONG_ROUNDS;
}

CHECK_TEST("platform", test_tasks_block_and_wake_across_cpus)
{
	cfg_tick(3, 1000);
	cfg.late_init = start_pingpong;
	simfx_start(&cfg);
	ck_assert_msg(simfx_poll(pingpong_done, NULL, 10000),
		      "ping-pong stopped after %u rounds", rounds_done);
	ck_assert_uint_eq(slept_ok, PINGPONG_ROUNDS / 10);
}
END_TEST

/* ---- idle ---- */

CHECK_TEST("platform", test_idle_cpu_ticks_land_in_hal_cpu_idle)
{
	struct ksim_cpu_stats a, b;
	uint64_t want = 50;

	cfg_tick(2, 1000);
	simfx_start(&cfg);
	/* The resume label is inside hal_cpu_idle(), just past its syscall. */
	ck_assert((uintptr_t)ksim_idle_resume > (uintptr_t)hal_cpu_idle);
	ck_assert((uintptr_t)ksim_idle_resume < (uintptr_t)hal_cpu_idle + 512);
	ck_assert(simfx_poll(every_cpu_ticked, &want, 10000));
	ksim_cpu_stats(1, &a);
	want = a.ticks + 100;
	ck_assert(simfx_poll(cpu1_ticks_past, &want, 10000));
	ksim_cpu_stats(1, &b);
	/* CPU 1 runs nothing but its idle loop, which keeps the tick masked
	 * except inside the wait: every tick lands there. */
	ck_assert_uint_eq(b.ticks - a.ticks, b.idle_ticks - a.idle_ticks);
}
END_TEST

/* ---- signals that are not ticks or overflows ---- */

static bool foreign_reached(void *ctx)
{
	struct ksim_cpu_stats sum;

	simfx_stats_total(&sum);
	return sum.foreign >= *(uint64_t *)ctx;
}

static int last_code_on(unsigned cpu)
{
	struct ksim_cpu_stats st;

	ksim_cpu_stats(cpu, &st);
	return st.last_foreign_code;
}

static uint64_t foreign_total(void)
{
	struct ksim_cpu_stats sum;

	simfx_stats_total(&sum);
	return sum.foreign;
}

enum foreign_kind { TGKILL_CPU1_PROF, KILL_PROF, QUEUE_PROF, QUEUE_RT, TGKILL_CPU0_RT };

static void send_foreign(enum foreign_kind k)
{
	union sigval v = { .sival_int = 0 };
	int rt = SIGRTMIN + 2, r = -1;

	switch (k) {
	case TGKILL_CPU1_PROF:
		r = (int)syscall(SYS_tgkill, getpid(), ksim_cpu_tid(1), SIGPROF);
		break;
	case KILL_PROF:
		r = kill(getpid(), SIGPROF);
		break;
	case QUEUE_PROF:
		r = sigqueue(getpid(), SIGPROF, v);
		break;
	case QUEUE_RT:
		r = sigqueue(getpid(), rt, v);
		break;
	case TGKILL_CPU0_RT:
		r = (int)syscall(SYS_tgkill, getpid(), ksim_cpu_tid(0), rt);
		break;
	}
	ck_assert_int_eq(r, 0);
}

/* A standard signal sent while the same one is pending is merged into
 * it by the host (a CPU with the tick masked may hold its timer's
 * SIGPROF): send again until one arrives. */
static void deliver_foreign(enum foreign_kind k)
{
	uint64_t want = foreign_total() + 1;

	for (int tries = 0; tries < 20; tries++) {
		send_foreign(k);
		if (simfx_poll(foreign_reached, &want, 250))
			return;
	}
	ck_abort_msg("foreign signal %d never arrived", (int)k);
}

CHECK_TEST("platform", test_foreign_signals_are_not_samples)
{
	struct ksim_cpu_stats before, after;

	cfg_tick(2, 100);
	simfx_start(&cfg);
	simfx_stats_total(&before);
	deliver_foreign(TGKILL_CPU1_PROF);
	ck_assert_int_eq(last_code_on(1), SI_TKILL);
	deliver_foreign(KILL_PROF);
	deliver_foreign(QUEUE_PROF);
	/* The overflow signal, but from sigqueue/tgkill: no counter sent it. */
	deliver_foreign(QUEUE_RT);
	deliver_foreign(TGKILL_CPU0_RT);
	ck_assert_int_eq(last_code_on(0), SI_TKILL);
	simfx_stats_total(&after);
	ck_assert_uint_ge(after.foreign - before.foreign, 5);
	/* Counted as foreign, so none was a tick; none reached kernel_nmi(). */
	ck_assert_uint_eq(after.overflows, 0);
	ck_assert_uint_eq(after.unclaimed, 0);
}
END_TEST

/* ---- perf_event_open refused: the tick, said in lscpu and the report ---- */

static void check_tick_fallback(void)
{
	char *out;

	out = simfx_run("lscpu", 5000);
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, "pmu counts: no (perf_event_open refused: "
				  "Permission denied)\n"), "lscpu said: %s", out);
	ck_assert_msg(strstr(out, "profile source: tick/sigprof 100hz\n"), "lscpu said: %s", out);
	free(out);
	out = simfx_run("profile 100", 5000);
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, ", source tick/sigprof 100hz\n"), "profile said: %s", out);
	free(out);
}

CHECK_TEST("platform", test_perf_refused_by_config_falls_back_to_tick)
{
	ksim_config_defaults(&cfg);
	cfg.cpus = 2;
	cfg.perf_refuse = true;
	simfx_start(&cfg);
	ck_assert_ptr_null(ksim_pmu_event_name());
	check_tick_fallback();
}
END_TEST

CHECK_TEST("platform", test_perf_refused_by_environment_falls_back_to_tick)
{
	setenv("KSIM_PERF_REFUSE", "1", 1);
	ksim_config_defaults(&cfg);
	cfg.cpus = 2;
	simfx_start(&cfg);
	ck_assert_ptr_null(ksim_pmu_event_name());
	check_tick_fallback();
}
END_TEST

CHECK_TEST("platform", test_source_tick_says_so_and_idle_shows_in_report)
{
	char *out;

	cfg_tick(2, 100);
	simfx_start(&cfg);
	out = simfx_run("lscpu", 5000);
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, "pmu counts: no (ksim --source tick)\n"),
		      "lscpu said: %s", out);
	ck_assert_msg(strstr(out, "profile source: tick/sigprof 100hz\n"), "lscpu said: %s", out);
	free(out);
	/* Ticked idle CPUs show where they wait, as `hlt` would. */
	out = simfx_run("profile 300 all 1", 10000);
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, " hal_cpu_idle+0x"),
		      "profile said: %s", out);
	ck_assert_msg(strstr(out, "<- sched_idle_loop+0x"), "profile said: %s", out);
	free(out);
}
END_TEST

/* ---- the console: scripts, end of input, power off ---- */

CHECK_TEST("console", test_script_runs_in_order_and_ends_by_itself)
{
	static const char *const cmds[] = { "uptime", "ps" };
	const char *out;

	cfg_tick(2, 100);
	cfg.commands = cmds;
	cfg.ncommands = 2;
	simfx_start(&cfg);
	ck_assert_int_eq(ksim_wait(10000), 0);
	/* Written before the end; the collector may still be reading. */
	ck_assert(simfx_wait_for(0, "> ps\n", 2000) >= 0);
	ck_assert(simfx_wait_prompt(2000));
	out = simfx_output();
	ck_assert_msg(strncmp(out, "> uptime\nup ", 12) == 0, "got: %s", out);
	ck_assert_ptr_nonnull(strstr(out, "\n> ps\n  PID CPU"));
	ck_assert_ptr_nonnull(strstr(out, " shell\n"));
	ck_assert_str_eq(out + strlen(out) - 2, "> ");
}
END_TEST

CHECK_TEST("console", test_end_of_input_ends_the_machine)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	cfg_tick(1, 100);
	cfg.in_fd = p[0];
	cfg.exit_on_eof = true;
	simfx_start(&cfg);
	ck_assert_int_eq(write(p[1], "uptime\n", 7), 7);
	close(p[1]);
	ck_assert_int_eq(ksim_wait(10000), 0);
	ck_assert(simfx_wait_for(0, "up ", 1000) >= 0);
}
END_TEST

CHECK_TEST("console", test_poweroff_ends_with_its_status)
{
	cfg_tick(2, 100);
	simfx_start(&cfg);
	ksim_console_feed("poweroff 7\n", 11);
	ck_assert_int_eq(ksim_wait(10000), 7);
}
END_TEST

CHECK_TEST("console", test_panic_halts_the_machine_with_its_status)
{
	cfg_tick(2, 100);
	simfx_start(&cfg);
	ksim_console_feed("test panic\n", 11);
	ck_assert_int_eq(ksim_wait(10000), KSIM_EXIT_PANIC);
	ck_assert(simfx_wait_for(0, "\npanic on cpu 0: ", 2000) >= 0);
}
END_TEST

CHECK_TEST("console", test_fault_on_a_cpu_panics_with_a_backtrace)
{
	cfg_tick(2, 100);
	simfx_start(&cfg);
	ksim_console_feed("test fault\n", 11);
	ck_assert_int_eq(ksim_wait(10000), KSIM_EXIT_PANIC);
	ck_assert(simfx_wait_for(0, "\npanic on cpu 0: page fault (SIGSEGV), "
				 "address 0x10\nbacktrace:\nat test_fault_read+0x", 2000) >= 0);
	ck_assert_msg(simfx_wait_for(0, "        <- cmd_test+0x", 2000) >= 0,
		      "got: %s", simfx_output());
}
END_TEST

/* The program itself, as a script would run it. */
CHECK_TEST("console", test_ksim_program_ends_after_its_commands)
{
	int p[2], status;
	char buf[8192];
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		execl(KSIM_PATH, "ksim", "--cpus", "2", "-c", "uptime", "-c",
		      "help uptime", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (len < sizeof(buf) - 1 &&
	       ((n = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0 ||
		(n < 0 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	buf[len] = '\0';
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_msg(strncmp(buf, "> uptime\nup ", 12) == 0, "got: %s", buf);
	ck_assert_ptr_nonnull(strstr(buf, "> help uptime\n"));
	ck_assert_str_eq(buf + len - 2, "> ");
}
END_TEST

/* ---- the UDP shell ---- */

static int udp_client(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* Send one datagram; gather the reply until a datagram ends with the
 * prompt.  Returns the reply (prompt included) in a static buffer. */
static const char *udp_ask(int fd, const void *msg, size_t len)
{
	static char reply[65536];
	struct sockaddr_in to = { .sin_family = AF_INET };
	size_t got = 0;

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons((uint16_t)ksim_udp_port());
	ck_assert_int_eq(sendto(fd, msg, len, 0, (struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)len);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int r = poll(&p, 1, 5000);

		if (r < 0 && errno == EINTR)
			continue;
		ck_assert_msg(r == 1, "no reply; so far: [%.*s]", (int)got, reply);
		n = recv(fd, reply + got, sizeof(reply) - 1 - got, 0);
		ck_assert_int_gt(n, 0);
		/* Each datagram of a keyless reply starts with the mark. */
		ck_assert_int_eq((unsigned char)reply[got], UDPSH_REPLY_MARK);
		memmove(reply + got, reply + got + 1, (size_t)n - 1);
		got += (size_t)n - 1;
		reply[got] = '\0';
		if (got >= 2 && memcmp(reply + got - 2, "> ", 2) == 0)
			return reply;
	}
}

CHECK_TEST("udp", test_udp_shell_answers_with_and_without_newline)
{
	const char *r;
	int fd;

	cfg_tick(2, 100);
	cfg.udp_port = 0;
	cfg.cmdline = "udpsh.key=none";	/* the plain protocol, by choice */
	simfx_start(&cfg);
	ck_assert_uint_ne(ksim_udp_port(), 0);
	fd = udp_client();
	r = udp_ask(fd, "uptime\n", 7);
	ck_assert_msg(strncmp(r, "up ", 3) == 0, "got: %s", r);
	r = udp_ask(fd, "uptime", 6);
	ck_assert_msg(strncmp(r, "up ", 3) == 0, "got: %s", r);
	r = udp_ask(fd, "help ps\r\n", 9);
	ck_assert_msg(strstr(r, "ps") != NULL, "got: %s", r);
	close(fd);
}
END_TEST

CHECK_TEST("udp", test_udp_shell_survives_junk)
{
	static const char junk[] = "\x00\x01\xff garbage\n\n\x7f";
	char big[2000];
	const char *r;
	int fd;

	cfg_tick(2, 100);
	cfg.udp_port = 0;
	cfg.cmdline = "udpsh.key=none";	/* the plain protocol, by choice */
	simfx_start(&cfg);
	fd = udp_client();
	r = udp_ask(fd, junk, sizeof(junk) - 1);
	/* One line of error, then the prompt. */
	ck_assert_msg(strchr(r, '\n') == r + strlen(r) - 3, "got: %s", r);
	memset(big, 'x', sizeof(big));
	r = udp_ask(fd, big, sizeof(big));
	ck_assert_msg(strchr(r, '\n') == r + strlen(r) - 3, "got: %s", r);
	r = udp_ask(fd, "nosuchcommand", 13);
	ck_assert_msg(strchr(r, '\n') == r + strlen(r) - 3, "got: %s", r);
	r = udp_ask(fd, "", 0);
	ck_assert_str_eq(r, "> ");
	/* Serial-only commands are refused over the network. */
	r = udp_ask(fd, "poweroff", 8);
	ck_assert_msg(strchr(r, '\n') == r + strlen(r) - 3, "got: %s", r);
	r = udp_ask(fd, "uptime", 6);
	ck_assert_msg(strncmp(r, "up ", 3) == 0, "got: %s", r);
	close(fd);
}
END_TEST

/* ---- end to end, the tick as the source ---- */

CHECK_TEST("profile", test_split_profile_with_tick_matches_truth)
{
	struct simfx_split sp;
	struct ksim_cpu_stats sum;

	/* 1 kHz: a loaded host delays ticks it cannot deliver, and merges
	 * them; a faster tick pools enough samples in a few profiles. */
	cfg_tick(4, 1000);
	simfx_start(&cfg);
	simfx_profile_split("tick/sigprof 1000hz", 3000, 12, 5.0, &sp);
	simfx_stats_total(&sum);
	ck_assert_uint_eq(sum.overflows, 0);
}
END_TEST

CHECK_TEST("profile", test_irqsoff_spin_hidden_from_tick)
{
	cfg_tick(4, 100);
	simfx_start(&cfg);
	ck_assert_double_le(simfx_irqsoff_share("tick/sigprof 100hz"), 1.0);
}
END_TEST

/* The key names of doc/boot.md's table ("| `KEY=` |" rows), sorted by
 * the caller's comparison; returns how many. */
static size_t doc_boot_keys(char names[][32], size_t max)
{
	char path[512], line[512];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/doc/boot.md", KP_TEST_SRCDIR);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (fgets(line, sizeof(line), f) && n < max)
		if (sscanf(line, "| `%31[^=`]=` |", names[n]) == 1)
			n++;
	fclose(f);
	return n;
}

static bool name_in(const char *name, char names[][32], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Every key documented is registered in ksim, and every key registered
 * is documented: `test keys` lists what the image holds. */
CHECK_TEST("console", test_boot_keys_match_doc)
{
	char doc[32][32], img[32][32];
	size_t ndoc, nimg = 0;
	char *out, *line, *save = NULL;

	cfg_tick(1, 100);
	simfx_start(&cfg);
	ndoc = doc_boot_keys(doc, 32);
	ck_assert_uint_ge(ndoc, 8);
	out = simfx_run("test keys", 5000);
	ck_assert_ptr_nonnull(out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		ck_assert_uint_lt(nimg, 32);
		ck_assert_int_eq(sscanf(line, "%31[^=]=", img[nimg]), 1);
		nimg++;
	}
	free(out);
	for (size_t i = 0; i < nimg; i++)
		ck_assert_msg(name_in(img[i], doc, ndoc), "key %s= is not in doc/boot.md", img[i]);
	for (size_t i = 0; i < ndoc; i++)
		ck_assert_msg(name_in(doc[i], img, nimg), "doc/boot.md's %s= is not a key of ksim", doc[i]);
}
END_TEST

CHECK_TEST("profile", test_irqsoff_rejects_bad_arguments)
{
	static const char *const bad[][2] = {
		{ "test irqsoff", "test: usage: test irqsoff CPU MS [DELAY_MS]\n" },
		{ "test irqsoff 9 100", "test: cpu must be 0-1 (got 9)\n" },
		{ "test irqsoff x 100", "test: cpu must be 0-1 (got x)\n" },
		{ "test irqsoff 1 0", "test: irqsoff time must be 1-10000 ms (got 0)\n" },
		{ "test irqsoff 1 10001", "test: irqsoff time must be 1-10000 ms (got 10001)\n" },
		{ "test irqsoff 1 5 x", "test: irqsoff delay must be 0-10000 ms (got x)\n" },
		{ "test irqsoff 1 5 6 7", "test: usage: test irqsoff CPU MS [DELAY_MS]\n" },
	};
	char *out;

	cfg_tick(2, 100);
	simfx_start(&cfg);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		out = simfx_run(bad[i][0], 5000);
		ck_assert_ptr_nonnull(out);
		ck_assert_str_eq(out, bad[i][1]);
		free(out);
	}
	out = simfx_run("ps", 5000);
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_null(strstr(out, "irqsoff"));
	free(out);
}
END_TEST


/* ---- sessions that last ---- */

/* What a folded block says about itself, checked against its lines. */
struct folded_counts {
	unsigned long long samples, dropped, other, stored, lines;
	unsigned long long end_lines, end_samples;
	unsigned cpus;
	bool begin, end;
};

static void folded_parse(const char *out, struct folded_counts *fc)
{
	char *copy = strdup(out), *save, *line;

	memset(fc, 0, sizeof(*fc));
	ck_assert_ptr_nonnull(copy);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long n;

		if (strcmp(line, "# kprof folded begin") == 0)
			fc->begin = true;
		else if (sscanf(line, "# kprof folded end lines=%llu samples=%llu",
				&fc->end_lines, &fc->end_samples) == 2)
			fc->end = true;
		else if (sscanf(line, "# samples=%llu", &n) == 1)
			fc->samples = n;
		else if (sscanf(line, "# dropped=%llu", &n) == 1)
			fc->dropped = n;
		else if (sscanf(line, "# cpus=%u", &fc->cpus) == 1)
			;
		else if (line[0] != '#' && fc->begin && !fc->end) {
			const char *sp = strrchr(line, ' ');

			ck_assert_msg(sp && sp != line, "not a folded line: %s", line);
			n = strtoull(sp + 1, NULL, 10);
			if (strncmp(line, "other ", 6) == 0)
				fc->other += n;
			else
				fc->stored += n;
			fc->lines++;
		}
	}
	free(copy);
}

/* Busy ticks (samples of a busy CPU) on every CPU since boot. */
static uint64_t busy_ticks(void)
{
	struct ksim_cpu_stats sum;

	simfx_stats_total(&sum);
	return sum.ticks - sum.idle_ticks;
}

/* A session that outlasts its rings: at least a minute, and on until the
 * CPUs took twice what all their rings hold, so that the drains must have
 * emptied them (on a quiet host a minute is 15 rings' worth per CPU; a
 * host at load 17 gave 14159 samples in that minute, less than the
 * rings hold).  Bounded: a host that starves it longer fails it. */
#define MINUTE_MIN_S 60
#define MINUTE_MAX_S 300
#define MINUTE_BUSY_TICKS (2ull * 4 * 4096)

static void session_outlast_rings(void)
{
	uint64_t t0 = busy_ticks();
	unsigned waited = 0;

	do {
		sleep(5);
		waited += 5;
	} while (waited < MINUTE_MAX_S &&
		 (waited < MINUTE_MIN_S || busy_ticks() - t0 < MINUTE_BUSY_TICKS));
	ck_assert_msg(busy_ticks() - t0 >= MINUTE_BUSY_TICKS,
		      "the host gave the CPUs %llu busy ticks in %u s",
		      (unsigned long long)(busy_ticks() - t0), waited);
}

/* 1 kHz on each of 4 busy CPUs for longer than the rings hold: the
 * drains keep every ring from filling, and every sample is in the table
 * or in other.  One test, the only one this long. */
CHECK_TEST("lasting", test_session_minute_no_drops)
{
	struct folded_counts fc;
	char *out;

	cfg_tick(4, 1000);
	simfx_start(&cfg);
	free(simfx_run("work start split 4", 5000));
	out = simfx_run("profile start", 10000);
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, "profile: started (depth 8, 1000 Hz per cpu)"), "got: %s", out);
	free(out);
	out = simfx_run("profile start", 5000);
	ck_assert_str_eq(out, "profile: busy\n");
	free(out);
	session_outlast_rings();
	out = simfx_run("profile stop", 20000);
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, "profile: stopped after "), "got: %s", out);
	free(out);
	out = simfx_run("profile show folded", 20000);
	ck_assert_ptr_nonnull(out);
	folded_parse(out, &fc);
	ck_assert_msg(fc.begin && fc.end, "got: %s", out);
	ck_assert_uint_eq(fc.cpus, 4);
	ck_assert_uint_eq(fc.dropped, 0);
	/* More than the rings hold: they were drained while it ran. */
	ck_assert_uint_gt(fc.samples, 4 * 4096);
	ck_assert_uint_eq(fc.samples, fc.stored + fc.other);
	ck_assert_uint_eq(fc.end_samples, fc.samples);
	ck_assert_uint_eq(fc.end_lines, fc.lines);
	free(out);
	out = simfx_run("profile show cpus", 20000);
	ck_assert_ptr_nonnull(out);
	for (unsigned cpu = 0; cpu < 4; cpu++) {
		char want[16];

		snprintf(want, sizeof(want), "\ncpu %u: ", cpu);
		ck_assert_msg(strstr(out, want), "got: %s", out);
	}
	free(out);
	free(simfx_run("work stop", 10000));
}
END_TEST

/* One interval as `profile rotate` printed it. */
struct rotated {
	unsigned long long seq, start_ns, end_ns, samples, dropped;
};

static void rotated_parse(const char *out, struct rotated *rv)
{
	struct folded_counts fc;
	const char *p;

	memset(rv, 0, sizeof(*rv));
	folded_parse(out, &fc);
	ck_assert_msg(fc.begin && fc.end, "not a folded block: %s", out);
	ck_assert_uint_eq(fc.end_samples, fc.samples);
	ck_assert_uint_eq(fc.samples, fc.stored + fc.other);
	ck_assert_uint_eq(fc.cpus, 4);
	ck_assert_msg((p = strstr(out, "\n# seq=")) && sscanf(p, "\n# seq=%llu", &rv->seq) == 1,
		      "no seq in: %s", out);
	ck_assert_msg((p = strstr(out, "\n# start_ns=")) &&
		      sscanf(p, "\n# start_ns=%llu", &rv->start_ns) == 1, "no start in: %s", out);
	ck_assert_msg((p = strstr(out, "\n# end_ns=")) &&
		      sscanf(p, "\n# end_ns=%llu", &rv->end_ns) == 1, "no end in: %s", out);
	rv->samples = fc.samples;
	rv->dropped = fc.dropped;
}

static char *rotate(unsigned long long seq)
{
	char cmd[64];
	char *out;

	snprintf(cmd, sizeof(cmd), "profile rotate %llu", seq);
	out = simfx_run(cmd, 20000);
	ck_assert_msg(out, "no answer to %s", cmd);
	return out;
}

/* 30 s of a session on 4 busy CPUs rotated every 500 ms: the intervals
 * are numbered without a gap, each starts where the last ended, none
 * dropped a sample, and their samples add up to the session's exactly;
 * the kept interval asked for again is the same bytes, the one before
 * it is refused naming the oldest kept. */
CHECK_TEST("rotate", test_session_rotated_every_500ms_adds_up)
{
	unsigned long long seq = 1, total = 0, last_end = 0, ms, samples, dropped;
	struct rotated rv;
	char *out, *again, want[96];
	const char *p;

	cfg_tick(4, 1000);
	simfx_start(&cfg);
	free(simfx_run("work start split 4", 5000));
	out = simfx_run("profile start", 10000);
	ck_assert_msg(out && strstr(out, "profile: started"), "got: %s", out);
	free(out);
	/* A count, not a clock: a loaded host makes each rotate slower. */
	do {
		usleep(500000);
		out = rotate(seq);
		rotated_parse(out, &rv);
		ck_assert_uint_eq(rv.seq, seq);
		ck_assert_uint_eq(rv.dropped, 0);
		ck_assert_uint_gt(rv.end_ns, rv.start_ns);
		if (seq > 1)
			ck_assert_uint_eq(rv.start_ns, last_end);
		last_end = rv.end_ns;
		total += rv.samples;
		again = rotate(seq);
		ck_assert_str_eq(again, out);
		free(again);
		free(out);
		seq++;
	} while (seq <= 60);
	out = rotate(seq - 2);
	snprintf(want, sizeof(want),
		 "profile: interval %llu is no longer kept (the oldest kept is %llu)\n",
		 seq - 2, seq - 1);
	ck_assert_str_eq(out, want);
	free(out);
	out = simfx_run("profile stop", 20000);
	ck_assert_msg(out && sscanf(out, "profile: stopped after %llu ms, %llu samples, %llu dropped",
				    &ms, &samples, &dropped) == 3, "got: %s", out);
	ck_assert_msg((p = strstr(out, "\nprofile: last interval ")), "got: %s", out);
	ck_assert_uint_eq(strtoull(p + 24, NULL, 10), seq);
	free(out);
	out = rotate(seq);
	rotated_parse(out, &rv);
	ck_assert_uint_eq(rv.start_ns, last_end);
	ck_assert_uint_eq(rv.dropped, 0);
	total += rv.samples;
	free(out);
	ck_assert_uint_eq(dropped, 0);
	ck_assert_uint_gt(samples, 0);
	ck_assert_uint_eq(total, samples);
	free(simfx_run("work stop", 10000));
}
END_TEST

/* The deep task's hottest folded line: how many frames below its root.
 * Its chain is deeper than the session's depth, so the line carries the
 * cut's mark, [truncated], after the root: that is not a frame. */
static unsigned deep_frames(const char *out)
{
	const char *p = strstr(out, "-deep/0;");
	unsigned frames = 1;

	ck_assert_msg(p, "no deep/0 line in: %s", out);
	p = strchr(p, ';');
	ck_assert_msg(strncmp(p, ";[truncated];", 13) == 0,
		      "the cut is not marked: %s", out);
	for (p += 12; *p && *p != ' '; p++)
		frames += *p == ';';
	return frames - 1;
}

/* `work start deep 40` spins under 40 frames: depth=32 keeps 32 of
 * them, the default 8. */
CHECK_TEST("lasting", test_deep_chain_cut_at_depth)
{
	char *out;

	cfg_tick(2, 1000);
	simfx_start(&cfg);
	out = simfx_run("work start deep 40", 5000);
	ck_assert_str_eq(out, "work: started deep, 1 task, pid 4\n");
	free(out);
	out = simfx_run("profile 500 all depth=32 folded", 20000);
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(deep_frames(out), 32);
	ck_assert_msg(strstr(out, ";deep_down;deep_leaf "), "got: %s", out);
	free(out);
	out = simfx_run("profile 500 all folded", 20000);
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(deep_frames(out), 8);
	free(out);
	out = simfx_run("work start deep 65", 5000);
	ck_assert_str_eq(out, "work: deep takes frames 2-64 (got 65)\n");
	free(out);
	free(simfx_run("work stop", 10000));
}
END_TEST

CHECK_CASE("platform", NULL, NULL, 90);
CHECK_CASE("console", NULL, NULL, 20);
CHECK_CASE("profile", NULL, NULL, 60);
/* The session's MINUTE_MAX_S and its commands' own bounds. */
CHECK_CASE("lasting", NULL, NULL, MINUTE_MAX_S + 120);
/* 30 s of rotations, the only test this long besides the minute's. */
CHECK_CASE("rotate", NULL, NULL, 150);
CHECK_CASE("udp", NULL, NULL, 20);

int main(void)
{
	return check_run_forked(check_suite("sim", NULL, 0));
}
