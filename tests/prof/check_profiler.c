/* SPDX-License-Identifier: BSD-2-Clause */
/* The sampler, arming and disarming, claiming overflows and the report's
 * wait, driven through kernel_tick()/kernel_nmi() on the fake platform. */
#include <check.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "fake_pmu.h"
#include "prof_testlib.h"
#include "hal/entry.h"
#include "prof/profiler.h"
#include "prof/profiler_test.h"
#include "prof/fold.h"
#include "prof/report.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "prof/throttle.h"
#include "prof/wall.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "lib/race_point.h"
#include "check_main.h"

static char report[65536];

static void use_tick(void)
{
	fake_pmu_set_dead("fake part, no counter", "counter did not move in 10 us");
}

static size_t stored(unsigned cpu)
{
	struct prof_cpu_stats st;

	prof_cpu_stats(cpu, &st);
	return st.stored;
}

/* The records @cpu wrote in the run, unpacked from its ring. */
static const struct prof_record *records(unsigned cpu, size_t *n)
{
	static struct prof_record recs[PROF_BUF];
	size_t i = 0;

	while (i < PROF_BUF && prof_cpu_record(cpu, i, &recs[i]))
		i++;
	*n = i;
	return recs;
}

/* Start a run and let every CPU of @n arm on its next tick (interrupting
 * idle), then open the window: the run samples from here on. */
static void start_open(unsigned n)
{
	ck_assert_int_eq(prof_start(), 0);
	pt_tick_all(n, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 0);
}

/* Stop and let every CPU of @n answer on its next tick. */
static void stop_and_settle(unsigned n)
{
	prof_stop();
	pt_tick_all(n, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 0);
}

static const char *print_report(int pid, unsigned chains)
{
	struct out_buf ob;

	out_buf_init(&ob, report, sizeof(report));
	ck_assert_int_eq(prof_report(&ob.out, pid, chains), 0);
	return report;
}

/* ---- the sampler ---- */

CHECK_TEST("sampler", test_sample_frame0_is_interrupted_ip)
{
	const struct prof_record *r;
	size_t n;

	use_tick();
	pt_boot_cpus(1);
	start_open(1);
	pt_tick(0, PT_MEMCPY + 0x1b);
	r = records(0, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(r[0].nframes, 1);
	ck_assert_uint_eq(r[0].frames[0], PT_MEMCPY + 0x1b);
}
END_TEST

CHECK_TEST("sampler", test_sample_depth_default_eight_frames)
{
	static uintptr_t stack[256] __attribute__((aligned(16)));
	struct trap_frame tf = { .ip = PT_MEMCPY + 4 };
	const struct prof_record *r;
	struct task *idle;
	size_t n;

	use_tick();
	pt_boot_cpus(1);
	idle = cpus[0].current;
	idle->stack_lo = (uintptr_t)stack;
	idle->stack_hi = (uintptr_t)(stack + 256);
	/* Twelve frame records, each {caller's fp, return address}. */
	for (unsigned i = 0; i < 12; i++) {
		uintptr_t *rec = &stack[16 + 8 * i];

		rec[0] = (uintptr_t)&stack[16 + 8 * (i + 1)];
		rec[1] = PT_VIRTIO_NET_RX + 0x10 + i;
	}
	stack[16 + 8 * 12] = 0;
	stack[16 + 8 * 12 + 1] = 0;
	tf.sp = (uintptr_t)&stack[8];
	tf.fp = (uintptr_t)&stack[16];

	start_open(1);
	fake_cpu = 0;
	kernel_tick(&tf);
	r = records(0, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(r[0].nframes, PROF_DEPTH_DEFAULT);
	ck_assert_uint_eq(r[0].frames[0], PT_MEMCPY + 4);
	for (unsigned i = 1; i < PROF_DEPTH_DEFAULT; i++)
		ck_assert_uint_eq(r[0].frames[i], PT_VIRTIO_NET_RX + 0x10 + i - 1);
}
END_TEST

static void task_body(void *arg)
{
	(void)arg;
}

CHECK_TEST("sampler", test_sample_charged_to_interrupted_task)
{
	const struct prof_record *r;
	struct task *t;
	int idle_pid;
	size_t n;

	use_tick();
	pt_boot_cpus(1);
	idle_pid = cpus[0].current->pid;
	ck_assert_int_eq(prof_start(), 0);
	pt_tick(0, PT_CPU_IDLE);		/* arms, on idle */
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 0);
	t = task_create("busy", task_body, NULL, 0);
	ck_assert_ptr_nonnull(t);
	/* The next tick interrupts idle, then switches to the new task. */
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_ptr_eq(cpus[0].current, t);
	pt_tick(0, PT_MEMCPY);
	r = records(0, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(r[0].pid, idle_pid);
	ck_assert_int_eq(r[1].pid, t->pid);
	ck_assert_int_ne(idle_pid, t->pid);
}
END_TEST

CHECK_TEST("sampler", test_sample_tick_full_buffer_accounting_exact)
{
	struct prof_cpu_stats st;
	const unsigned taken = PROF_BUF + 904;

	use_tick();
	pt_boot_cpus(1);
	start_open(1);
	for (unsigned i = 0; i < taken; i++)
		pt_tick(0, PT_MEMCPY + (i & 0x7f));
	prof_cpu_stats(0, &st);
	ck_assert_uint_eq(st.stored, PROF_BUF);
	ck_assert_uint_eq(st.dropped, 904);
	ck_assert_uint_eq(st.stored + st.dropped, taken);
}
END_TEST

CHECK_TEST("sampler", test_sample_counter_full_buffer_accounting_exact)
{
	struct trap_frame tf = { .ip = PT_SPIN_LOCK + 8 };
	struct prof_cpu_stats st;
	const unsigned taken = PROF_BUF + 37;

	pt_boot_cpus(1);
	start_open(1);
	for (unsigned i = 0; i < taken; i++)
		ck_assert(fake_pmu_overflow(0, &tf, true));
	prof_cpu_stats(0, &st);
	ck_assert_uint_eq(st.stored, PROF_BUF);
	ck_assert_uint_eq(st.dropped, 37);
	ck_assert_uint_eq(st.stored + st.dropped, taken);
}
END_TEST

/* A counter's sample weighs the events it stood for -- several periods
 * when its interrupt came late (hal_pmu_sample_events()) -- and the
 * session's chain sums them, in the counter's events per second. */
CHECK_TEST("sampler", test_sample_weight_is_what_the_counter_counted)
{
	struct trap_frame tf = { .ip = PT_SPIN_LOCK + 8 };
	const struct prof_data *d;
	struct prof_record r;
	uint64_t period;

	pt_boot_cpus(1);
	pt_use_symbols();
	start_open(1);
	period = fake_pmu_period[0];
	ck_assert_uint_gt(period, 0);
	ck_assert(fake_pmu_overflow(0, &tf, true));
	fake_pmu_events[0] = 3 * period;
	ck_assert(fake_pmu_overflow(0, &tf, true));
	stop_and_settle(1);
	ck_assert(prof_cpu_record(0, 0, &r));
	ck_assert_uint_eq(r.weight, period);
	ck_assert(prof_cpu_record(0, 1, &r));
	ck_assert_uint_eq(r.weight, 3 * period);
	prof_collect();
	d = prof_last();
	ck_assert_uint_eq(d->fold.nchains, 1);
	ck_assert_uint_eq(d->fold.chains[0].count, 2);
	ck_assert_uint_eq(d->fold.chains[0].weight, 4 * period);
	ck_assert_uint_eq(d->weight_per_sec, prof_pmu_info()->events_per_sec);
}
END_TEST

/* A tick's sample weighs the time since that CPU's last tick: a late
 * tick stands for more than the nominal period. */
CHECK_TEST("sampler", test_tick_weight_is_time_since_last_tick)
{
	const struct prof_data *d;
	struct prof_record r;

	use_tick();
	pt_boot_cpus(1);
	pt_use_symbols();
	start_open(1);
	fake_now_ns += 10000000;
	pt_tick(0, PT_SPIN_LOCK + 8);
	fake_now_ns += 25000000;
	pt_tick(0, PT_SPIN_LOCK + 8);
	stop_and_settle(1);
	ck_assert(prof_cpu_record(0, 0, &r));
	ck_assert_uint_eq(r.weight, 10000000);
	ck_assert(prof_cpu_record(0, 1, &r));
	ck_assert_uint_eq(r.weight, 25000000);
	prof_collect();
	d = prof_last();
	ck_assert_uint_eq(d->fold.chains[0].weight, 35000000);
	ck_assert_uint_eq(d->weight_per_sec, 1000000000);
}
END_TEST

static void note_pid(int pid)
{
	(void)pid;
}

/* In a wall run a tick's sample weighs only the time its task has been
 * running: a task switched in 7 ms after a tick and sampled 3 ms later
 * weighs 3 ms, not 10 -- the 7 ms were idle's, and the run splits the
 * task's own running time by its samples' weights. */
CHECK_TEST("sampler", test_wall_tick_weight_only_since_switch_in)
{
	struct prof_wall *w;
	struct prof_record r;
	struct task *t;

	use_tick();
	pt_boot_cpus(1);
	start_open(1);
	w = wall_begin(1, PROF_DEPTH_DEFAULT, 1);
	ck_assert_ptr_nonnull(w);
	wall_open(w);
	t = task_create("busy", task_body, NULL, 0);
	ck_assert_ptr_nonnull(t);
	fake_now_ns += 10000000;
	pt_tick(0, PT_CPU_IDLE);		/* samples idle, switches to busy */
	ck_assert_ptr_eq(cpus[0].current, t);
	fake_now_ns += 10000000;
	pt_tick(0, PT_MEMCPY);			/* busy ran the whole period */
	fake_now_ns += 1000000;
	sched_block();				/* busy -> idle, 1 ms in */
	ck_assert(cpus[0].current->is_idle);
	fake_now_ns += 6000000;
	sched_wake(t);
	sched_yield_cpu();			/* idle -> busy, 7 ms in */
	ck_assert_ptr_eq(cpus[0].current, t);
	fake_now_ns += 3000000;
	pt_tick(0, PT_MEMCPY);
	ck_assert(prof_cpu_record(0, 1, &r));
	ck_assert_int_eq(r.pid, t->pid);
	ck_assert_uint_eq(r.weight, 10000000);
	ck_assert(prof_cpu_record(0, 2, &r));
	ck_assert_int_eq(r.pid, t->pid);
	ck_assert_uint_eq(r.weight, 3000000);
	stop_and_settle(1);
	wall_close(w);
	prof_collect();
	ck_assert_int_eq(wall_collect(w, prof_last(), note_pid), 0);
	wall_free(w);
}
END_TEST

/* A session's table keys each leaf by its exact address; the text
 * report still merges them into one chain with its span of offsets. */
CHECK_TEST("sampler", test_session_leaves_by_exact_address)
{
	const struct prof_data *d;

	use_tick();
	pt_boot_cpus(1);
	pt_use_symbols();
	start_open(1);
	pt_tick(0, PT_MEMCPY + 4);
	pt_tick(0, PT_MEMCPY + 0x10);
	pt_tick(0, PT_MEMCPY + 4);
	stop_and_settle(1);
	ck_assert_ptr_nonnull(strstr(print_report(PROF_PID_ALL, 8),
				     "100.0% 3 memcpy+0x4..0x10\n"));
	d = prof_last();
	ck_assert(d->fold.exact_leaf);
	ck_assert_uint_eq(d->fold.nchains, 2);
	ck_assert_uint_eq(d->fold.chains[0].leaf, PT_MEMCPY + 4);
	ck_assert_uint_eq(d->fold.chains[0].count, 2);
	ck_assert_uint_eq(d->fold.chains[1].leaf, PT_MEMCPY + 0x10);
}
END_TEST

CHECK_TEST("sampler", test_straggler_tick_previous_run_never_lands)
{
	const struct prof_record *r;
	size_t n;

	use_tick();
	pt_boot_cpus(2);
	start_open(2);
	pt_tick(0, PT_MEMCPY);
	pt_tick(1, PT_MEMCPY);
	pt_tick(1, PT_MEMCPY);
	prof_stop();
	pt_tick(0, PT_CPU_IDLE);	/* cpu 1 never answers this stop */
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 1u << 1);
	prof_end();

	ck_assert_int_eq(prof_start(), 0);
	pt_tick(1, PT_CPU_IDLE);	/* the straggler sees the new run */
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 0);
	pt_tick(1, PT_UDP_INPUT);
	pt_tick(0, PT_UDP_INPUT);
	stop_and_settle(2);
	r = records(1, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(r[0].frames[0], PT_UDP_INPUT);
	pt_use_symbols();
	ck_assert_ptr_null(strstr(print_report(PROF_PID_ALL, 8), "memcpy"));
	ck_assert_ptr_nonnull(strstr(report, "2 samples on 2 cpus"));
}
END_TEST

CHECK_TEST("sampler", test_straggler_silent_cpu_contributes_nothing_stale)
{
	size_t n;

	use_tick();
	pt_boot_cpus(2);
	start_open(2);
	pt_tick(1, PT_MEMCPY);
	stop_and_settle(2);
	prof_end();
	/* A run cpu 1 never ticks in: its stop still empties its buffer. */
	ck_assert_int_eq(prof_start(), 0);
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 1u << 1);
	pt_tick(0, PT_UDP_INPUT);
	stop_and_settle(2);
	records(1, &n);
	ck_assert_uint_eq(n, 0);
	pt_use_symbols();
	ck_assert_ptr_null(strstr(print_report(PROF_PID_ALL, 8), "memcpy"));
}
END_TEST

CHECK_TEST("sampler", test_straggler_overflow_before_new_run_seen_dropped)
{
	struct trap_frame tf = { .ip = PT_MEMCPY };
	struct prof_cpu_stats st;

	pt_boot_cpus(2);
	start_open(2);				/* both armed */
	ck_assert(fake_pmu_overflow(1, &tf, true));
	prof_stop();
	pt_tick(0, PT_CPU_IDLE);		/* cpu 1 stays armed */
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 1u << 1);
	prof_end();

	ck_assert_int_eq(prof_start(), 0);
	/* Still armed from the last run, before its tick saw this one. */
	tf.ip = PT_SPIN_LOCK;
	ck_assert(fake_pmu_overflow(1, &tf, true));
	prof_cpu_stats(1, &st);
	ck_assert_uint_eq(st.late, 1);
	pt_tick(1, PT_CPU_IDLE);
	pt_tick(0, PT_CPU_IDLE);
	/* Armed on its tick (which emptied its buffer and counts for this
	 * run), but the window is not open yet: late too. */
	ck_assert(fake_pmu_overflow(1, &tf, true));
	prof_cpu_stats(1, &st);
	ck_assert_uint_eq(st.late, 1);
	ck_assert_uint_eq(st.stored, 0);
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 0);
	ck_assert(fake_pmu_overflow(1, &tf, true));
	prof_cpu_stats(1, &st);
	ck_assert_uint_eq(st.stored, 1);
	ck_assert_uint_eq(records(1, &(size_t){0})[0].frames[0], PT_SPIN_LOCK);
}
END_TEST

/* ---- arming, disarming, claiming ---- */

CHECK_TEST("arming", test_arm_sets_armed_before_counter)
{
	pt_boot_cpus(2);
	ck_assert_int_eq(prof_start(), 0);
	fake_pmu_log_clear();
	ck_assert(!prof_cpu_armed(0));
	pt_tick(0, PT_CPU_IDLE);
	pt_tick(1, PT_CPU_IDLE);
	pt_tick(0, PT_CPU_IDLE);		/* already armed: nothing */
	ck_assert_str_eq(fake_pmu_log,
			 "cpu0 arm period=1000000 armed=1\n"
			 "cpu1 arm period=1000000 armed=1\n");
	ck_assert(prof_cpu_armed(0));
	ck_assert(fake_pmu_running[0]);
}
END_TEST

CHECK_TEST("arming", test_arm_period_from_events_per_sec)
{
	fake_pmu_set_counting(3000000000ull, "pmu/fake cycles");
	pt_boot_cpus(1);
	ck_assert_int_eq(prof_start(), 0);
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_uint_eq(fake_pmu_period[0], 3000000);
}
END_TEST

CHECK_TEST("arming", test_counter_tick_never_samples)
{
	struct trap_frame tf = { .ip = PT_MEMCPY };

	pt_boot_cpus(1);
	start_open(1);
	for (int i = 0; i < 5; i++)
		pt_tick(0, PT_CPU_IDLE);
	ck_assert_uint_eq(stored(0), 0);
	for (int i = 0; i < 3; i++)
		ck_assert(fake_pmu_overflow(0, &tf, true));
	for (int i = 0; i < 5; i++)
		pt_tick(0, PT_CPU_IDLE);
	ck_assert_uint_eq(stored(0), 3);
}
END_TEST

CHECK_TEST("arming", test_stop_disarms_then_clears_armed_then_acks)
{
	pt_boot_cpus(1);
	ck_assert_int_eq(prof_start(), 0);
	pt_tick(0, PT_CPU_IDLE);
	prof_stop();
	fake_pmu_log_clear();
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 1);
	ck_assert(prof_cpu_armed(0));
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_str_eq(fake_pmu_log, "cpu0 disarm armed=1\n");
	ck_assert(!prof_cpu_armed(0));
	ck_assert(!fake_pmu_running[0]);
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 0);
	/* Stopped stays stopped: no second disarm. */
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_str_eq(fake_pmu_log, "cpu0 disarm armed=1\n");
}
END_TEST

CHECK_TEST("arming", test_overflow_between_stop_and_disarm_acked_and_dropped)
{
	struct trap_frame tf = { .ip = PT_MEMCPY };
	struct prof_cpu_stats st;

	pt_boot_cpus(1);
	start_open(1);
	ck_assert(fake_pmu_overflow(0, &tf, true));
	prof_stop();
	fake_pmu_log_clear();
	ck_assert(fake_pmu_overflow(0, &tf, true));
	ck_assert(fake_pmu_overflow(0, &tf, true));
	ck_assert_str_eq(fake_pmu_log,
			 "cpu0 ack yes armed=1\n"
			 "cpu0 ack yes armed=1\n");
	prof_cpu_stats(0, &st);
	ck_assert_uint_eq(st.stored, 1);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert_uint_eq(st.late, 2);
	ck_assert_uint_eq(fake_pmu_unclaimed, 0);
}
END_TEST

static bool late_claimed;
static bool late_armed_during_wait;
static bool late_acked_during_wait;

static void deliver_late_overflow(unsigned cpu)
{
	struct trap_frame tf = { .ip = PT_MEMCPY + 2 };

	late_armed_during_wait = prof_cpu_armed(cpu);
	/* The stop is acknowledged only once disarm is over. */
	late_acked_during_wait = !(prof_wait_stopped(0, NULL, NULL) & (1u << cpu));
	late_claimed = fake_pmu_overflow(cpu, &tf, true);
}

CHECK_TEST("arming", test_late_overflow_while_disarm_waits_claimed)
{
	struct prof_cpu_stats st;

	pt_boot_cpus(1);
	ck_assert_int_eq(prof_start(), 0);
	pt_tick(0, PT_CPU_IDLE);
	prof_stop();
	fake_pmu_disarm_hook = deliver_late_overflow;
	fake_pmu_log_clear();
	pt_tick(0, PT_CPU_IDLE);
	ck_assert(late_claimed);
	ck_assert(late_armed_during_wait);
	ck_assert(!late_acked_during_wait);
	ck_assert_str_eq(fake_pmu_log,
			 "cpu0 disarm armed=1\n"
			 "cpu0 ack yes armed=1\n");
	ck_assert_uint_eq(fake_pmu_unclaimed, 0);
	prof_cpu_stats(0, &st);
	ck_assert_uint_eq(st.stored, 0);
	ck_assert_uint_eq(st.late, 1);
	ck_assert(!prof_cpu_armed(0));
}
END_TEST

CHECK_TEST("arming", test_overflow_not_ours_goes_to_genuine_path)
{
	struct trap_frame tf = { .ip = PT_MEMCPY };

	pt_boot_cpus(1);
	ck_assert_int_eq(prof_start(), 0);
	pt_tick(0, PT_CPU_IDLE);
	fake_pmu_log_clear();
	ck_assert(!fake_pmu_overflow(0, &tf, false));
	ck_assert_str_eq(fake_pmu_log, "cpu0 ack no armed=1\n");
	ck_assert_uint_eq(fake_pmu_unclaimed, 1);
	ck_assert_uint_eq(stored(0), 0);
}
END_TEST

CHECK_TEST("arming", test_overflow_when_not_armed_goes_to_genuine_path)
{
	struct trap_frame tf = { .ip = PT_MEMCPY };

	pt_boot_cpus(1);
	/* No run at all: not even the PMU is asked. */
	ck_assert(!fake_pmu_overflow(0, &tf, true));
	/* After a run's disarm: the same. */
	ck_assert_int_eq(prof_start(), 0);
	pt_tick(0, PT_CPU_IDLE);
	stop_and_settle(1);
	fake_pmu_log_clear();
	ck_assert(!fake_pmu_overflow(0, &tf, true));
	ck_assert_str_eq(fake_pmu_log, "");
	ck_assert_uint_eq(fake_pmu_unclaimed, 2);
}
END_TEST

CHECK_TEST("arming", test_tick_source_never_arms)
{
	use_tick();
	pt_boot_cpus(1);
	fake_pmu_log_clear();
	start_open(1);
	pt_tick(0, PT_MEMCPY);
	stop_and_settle(1);
	ck_assert_str_eq(fake_pmu_log, "cpu0 probe\n");
	ck_assert_uint_eq(stored(0), 1);
}
END_TEST

CHECK_TEST("arming", test_counter_without_rate_falls_back_to_tick)
{
	fake_pmu_set_counting(0, "pmu/fake cycles");
	pt_boot_cpus(1);
	start_open(1);
	pt_tick(0, PT_MEMCPY);
	ck_assert_uint_eq(stored(0), 1);
	ck_assert(!prof_cpu_armed(0));
}
END_TEST

/* ---- the probe and the session ---- */

CHECK_TEST("session", test_probe_runs_once)
{
	pt_boot_cpus(1);
	ck_assert_uint_eq(fake_pmu_probes, 0);
	ck_assert_str_eq(prof_pmu_info()->source, "pmu/fake cycles");
	ck_assert_uint_eq(fake_pmu_probes, 1);
	prof_pmu_info();
	ck_assert_int_eq(prof_start(), 0);
	stop_and_settle(1);
	prof_end();
	ck_assert_int_eq(prof_start(), 0);
	prof_end();
	ck_assert_uint_eq(fake_pmu_probes, 1);
}
END_TEST

CHECK_TEST("session", test_probe_runs_on_first_start)
{
	pt_boot_cpus(1);
	ck_assert_int_eq(prof_start(), 0);
	ck_assert_uint_eq(fake_pmu_probes, 1);
	ck_assert_str_eq(fake_pmu_log, "cpu0 probe\n");
}
END_TEST

CHECK_TEST("session", test_start_while_session_busy)
{
	pt_boot_cpus(1);
	ck_assert_int_eq(prof_start(), 0);
	ck_assert_int_eq(prof_start(), -EBUSY);
	prof_stop();
	ck_assert_int_eq(prof_start(), -EBUSY);
	prof_end();
	ck_assert_int_eq(prof_start(), 0);
}
END_TEST

/* ---- the report's wait ---- */

static unsigned pauses;

/* Ten milliseconds pass; cpus 0 and 1 tick, cpu 2 is wedged. */
static void pause_cpu2_wedged(void *ctx)
{
	(void)ctx;
	pauses++;
	fake_now_ns += 10000000;
	pt_tick(0, PT_CPU_IDLE);
	pt_tick(1, PT_CPU_IDLE);
}

static void pause_all_tick(void *ctx)
{
	pauses++;
	fake_now_ns += 10000000;
	pt_tick_all(*(unsigned *)ctx, PT_CPU_IDLE);
}

CHECK_TEST("session", test_wait_returns_once_every_cpu_answers)
{
	unsigned n = 3;

	use_tick();
	pt_boot_cpus(n);
	ck_assert_int_eq(prof_start(), 0);
	pt_tick_all(n, PT_MEMCPY);
	prof_stop();
	ck_assert_uint_eq(prof_wait_stopped(200000000, pause_all_tick, &n), 0);
	ck_assert_uint_eq(pauses, 1);
}
END_TEST

CHECK_TEST("session", test_wait_names_cpu_that_never_answers)
{
	use_tick();
	pt_boot_cpus(3);
	pt_use_symbols();
	start_open(3);
	fake_now_ns += 100000000;
	pt_tick(0, PT_MEMCPY + 0x10);
	pt_tick(1, PT_MEMCPY + 0x20);
	pt_tick(2, PT_SPIN_LOCK);
	pt_tick(2, PT_SPIN_LOCK);
	prof_stop();
	ck_assert_uint_eq(prof_wait_stopped(50000000, pause_cpu2_wedged, NULL), 1u << 2);
	ck_assert_uint_eq(pauses, 5);
	ck_assert(pt_golden_equal("missing_cpu.txt", print_report(PROF_PID_ALL, 8)));
}
END_TEST

CHECK_TEST("session", test_report_empty_on_counter_idle)
{
	pt_boot_cpus(2);
	pt_use_symbols();
	start_open(2);
	fake_now_ns += 1000000000;
	pt_tick_all(2, PT_CPU_IDLE);
	stop_and_settle(2);
	ck_assert(pt_golden_equal("empty_counter.txt", print_report(PROF_PID_ALL, 8)));
}
END_TEST

CHECK_TEST("session", test_report_window_is_measured)
{
	use_tick();
	pt_boot_cpus(1);
	pt_use_symbols();
	start_open(1);
	fake_now_ns += 1234567890;
	pt_tick(0, PT_MEMCPY);
	stop_and_settle(1);
	ck_assert(pt_golden_equal("one_sample_tick.txt", print_report(PROF_PID_ALL, 8)));
}
END_TEST


/* ---- the stop's store order, the window, the switch, errors ---- */

static void tick_cpu1_in_udp_input(void)
{
	pt_tick(1, PT_UDP_INPUT);
}

CHECK_TEST("review", test_stop_tick_between_stores_keeps_run)
{
	size_t n;

	use_tick();
	pt_boot_cpus(2);
	pt_use_symbols();
	/* Run N: cpu 1 misses the stop, and is named missing. */
	start_open(2);
	prof_stop();
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 1u << 1);
	prof_end();
	/* Run N+1: cpu 1 samples, and ticks again in the middle of the
	 * stop (prof_stop() reads the clock between its two stores). */
	start_open(2);
	pt_tick(1, PT_MEMCPY);
	pt_tick(1, PT_MEMCPY);
	fake_clock_hook = tick_cpu1_in_udp_input;
	prof_stop();
	ck_assert_ptr_null(fake_clock_hook);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 0);
	records(1, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_ptr_nonnull(strstr(print_report(PROF_PID_ALL, 8),
				     "3 samples on 1 cpus, 0 dropped"));
}
END_TEST

CHECK_TEST("review", test_window_opens_when_every_cpu_armed)
{
	struct trap_frame tf = { .ip = PT_MEMCPY };
	struct prof_cpu_stats st;

	pt_boot_cpus(2);
	pt_use_symbols();
	ck_assert_int_eq(prof_start(), 0);
	pt_tick(0, PT_CPU_IDLE);
	ck_assert(prof_cpu_armed(0));
	/* Armed, but cpu 1 is not yet: the window is not open. */
	ck_assert(fake_pmu_overflow(0, &tf, true));
	fake_now_ns += 7000000;
	pt_tick(1, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 0);
	prof_cpu_stats(0, &st);
	ck_assert_uint_eq(st.stored, 0);
	ck_assert_uint_eq(st.late, 1);
	fake_now_ns += 100000000;
	ck_assert(fake_pmu_overflow(0, &tf, true));
	stop_and_settle(2);
	print_report(PROF_PID_ALL, 8);
	ck_assert_ptr_nonnull(strstr(report, "profiled 100 ms\n1 samples on 1 cpus"));
}
END_TEST

/* Ten milliseconds pass and cpu 0 ticks; cpu 1 never does. */
static void pause_cpu1_silent(void *ctx)
{
	(void)ctx;
	fake_now_ns += 10000000;
	pt_tick(0, PT_CPU_IDLE);
}

CHECK_TEST("review", test_window_names_cpu_that_never_arms)
{
	use_tick();
	pt_boot_cpus(2);
	pt_use_symbols();
	ck_assert_int_eq(prof_start(), 0);
	ck_assert_uint_eq(prof_wait_armed(20000000, pause_cpu1_silent, NULL), 1u << 1);
	pt_tick(0, PT_MEMCPY);
	/* cpu 1 arms late and samples: still nothing of it is reported. */
	pt_tick(1, PT_CPU_IDLE);
	pt_tick(1, PT_SPIN_LOCK);
	stop_and_settle(2);
	print_report(PROF_PID_ALL, 8);
	ck_assert_ptr_nonnull(strstr(report,
		"1 samples on 1 cpus, 0 dropped, source tick 100hz\n"
		"cpu 1 did not arm within 20 ms; it contributes nothing\n"));
	ck_assert_ptr_null(strstr(report, "spin_lock"));
}
END_TEST

static const struct trap_frame midway_tf = { .ip = PT_MEMCPY + 3 };

static void overflow_midway(void)
{
	struct trap_frame tf = midway_tf;

	ck_assert(fake_pmu_overflow(fake_cpu, &tf, true));
}

CHECK_TEST("review", test_sample_mid_switch_charged_to_outgoing_task)
{
	const struct prof_record *r;
	struct task *t;
	int idle_pid;
	size_t n;

	pt_boot_cpus(1);
	idle_pid = cpus[0].current->pid;
	start_open(1);
	t = task_create("busy", task_body, NULL, 0);
	ck_assert_ptr_nonnull(t);
	fake_switch_midway_hook = overflow_midway;
	pt_tick(0, PT_CPU_IDLE);		/* idle -> busy */
	fake_switch_midway_hook = NULL;
	ck_assert_ptr_eq(cpus[0].current, t);
	r = records(0, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(r[0].pid, idle_pid);
}
END_TEST

CHECK_TEST("review", test_counter_errors_counted_in_header)
{
	struct trap_frame tf = { .ip = PT_MEMCPY };
	struct prof_cpu_stats st;

	pt_boot_cpus(1);
	pt_use_symbols();
	start_open(1);
	ck_assert(fake_pmu_overflow(0, &tf, true));
	/* The arm went through; the disarm fails. */
	fake_pmu_fail_ops = true;
	stop_and_settle(1);
	prof_cpu_stats(0, &st);
	ck_assert_uint_eq(st.errors, 1);
	ck_assert_ptr_nonnull(strstr(print_report(PROF_PID_ALL, 8),
		"1 samples on 1 cpus, 0 dropped, source pmu/fake cycles\n"
		"1 counter arm/disarm error: the counter may have missed samples\n"));
}
END_TEST

/* A counter that refuses to arm (arm64 while `stat` counts, a CPU whose
 * counter never proved itself) leaves its CPU unarmed -- not armed over
 * a counter that does not run -- so that an NMI is not taken for its
 * own, the next tick tries again (one error a run, however many tries),
 * and the report names the CPU. */
CHECK_TEST("review", test_counter_refused_arm_named_and_retried)
{
	struct trap_frame tf = { .ip = PT_MEMCPY };
	struct prof_cpu_stats st;

	pt_boot_cpus(2);
	pt_use_symbols();
	fake_count_is_open[1] = true;	/* refuses as arm64 does */
	start_open(2);
	ck_assert(prof_cpu_armed(0));
	ck_assert(!prof_cpu_armed(1));
	ck_assert(!fake_pmu_overflow(1, &tf, true));
	pt_tick(1, PT_CPU_IDLE);
	ck_assert(!prof_cpu_armed(1));
	ck_assert(fake_pmu_overflow(0, &tf, true));
	stop_and_settle(2);
	prof_cpu_stats(1, &st);
	ck_assert_uint_eq(st.errors, 1);
	print_report(PROF_PID_ALL, 8);
	ck_assert_msg(strstr(report,
		"1 samples on 1 cpus, 0 dropped, source pmu/fake cycles\n"
		"cpu 1 could not arm its counter (busy or not proven); it contributes nothing\n"
		"1 counter arm/disarm error: the counter may have missed samples\n"),
		"got: %s", report);

	/* Once the counters are free, the next tick arms it. */
	prof_end();
	fake_count_is_open[1] = false;
	start_open(2);
	pt_tick(1, PT_CPU_IDLE);
	ck_assert(prof_cpu_armed(1));
	ck_assert(fake_pmu_overflow(1, &tf, true));
	stop_and_settle(2);
	ck_assert_ptr_null(strstr(print_report(PROF_PID_ALL, 8), "could not arm"));
}
END_TEST

/* Fill @cpu's ring and drop @extra more (the counter's overflows). */
static void overflow_past_full(unsigned cpu, unsigned extra)
{
	struct trap_frame tf = { .ip = PT_SPIN_LOCK + 8 };

	for (unsigned i = 0; i < PROF_BUF + extra; i++)
		ck_assert(fake_pmu_overflow(cpu, &tf, true));
}

/* cpus 0 and 1 tick; cpu 2 is silent. */
static void pause_cpu2_silent(void *ctx)
{
	(void)ctx;
	fake_now_ns += 10000000;
	pt_tick(0, PT_CPU_IDLE);
	pt_tick(1, PT_CPU_IDLE);
}

/* A rotating session's intervals count drops over the same CPUs as the
 * session's total: cpu 2 arms too late to count, cpu 1 misses the stop,
 * and every one of the three drops samples in both intervals. */
CHECK_TEST("review", test_interval_drops_add_up_to_total)
{
	static struct prof_data iv1, iv2;
	uint64_t at;

	pt_boot_cpus(3);
	ck_assert_int_eq(prof_start(), 0);
	ck_assert_uint_eq(prof_wait_armed(20000000, pause_cpu2_silent, NULL), 1u << 2);
	ck_assert_int_eq(prof_interval_prepare(&iv1, 64), 0);
	ck_assert_int_eq(prof_interval_cut(NULL, &iv1, &at), 0);
	pt_tick(2, PT_CPU_IDLE);		/* arms late */
	ck_assert(prof_cpu_armed(2));
	for (unsigned cpu = 0; cpu < 3; cpu++)
		overflow_past_full(cpu, 10 + cpu);
	ck_assert_int_eq(prof_interval_prepare(&iv2, 64), 0);
	ck_assert_int_eq(prof_interval_cut(&iv1, &iv2, &at), 0);
	for (unsigned cpu = 0; cpu < 3; cpu++)
		overflow_past_full(cpu, 20 + cpu);
	prof_stop();
	pt_tick(0, PT_CPU_IDLE);
	pt_tick(2, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 1u << 1);
	prof_collect();
	ck_assert_int_eq(prof_interval_cut(&iv2, NULL, &at), 0);
	/* cpu 0 and cpu 1 (which missed the stop, but whose samples the
	 * intervals took): 10 + 11 in the first, 20 + 21 in the second. */
	ck_assert_uint_eq(iv1.dropped, 21);
	ck_assert_uint_eq(iv2.dropped, 41);
	ck_assert_uint_eq(prof_last()->dropped, iv1.dropped + iv2.dropped);
	fold_free(&iv1.fold);
	fold_free(&iv2.fold);
}
END_TEST

CHECK_TEST("review", test_cpu_state_never_shares_a_cache_line)
{
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		uintptr_t at = (uintptr_t)prof_cpu_state(cpu);

		ck_assert_uint_eq(at % HAL_CACHELINE, 0);
		if (cpu)
			ck_assert_uint_ge(at - (uintptr_t)prof_cpu_state(cpu - 1),
					  HAL_CACHELINE);
	}
}
END_TEST

CHECK_TEST("review", test_pid_filter_dropped_labelled_all_tasks)
{
	struct task *t;

	use_tick();
	pt_boot_cpus(1);
	pt_use_symbols();
	t = task_create("busy", task_body, NULL, 0);
	ck_assert_ptr_nonnull(t);
	start_open(1);			/* switches to busy */
	for (unsigned i = 0; i < PROF_BUF + 5; i++)
		pt_tick(0, PT_MEMCPY);
	stop_and_settle(1);
	print_report(t->pid, 8);
	ck_assert_ptr_nonnull(strstr(report, " dropped (all tasks), source tick 100hz\n"));
}
END_TEST


/* ---- sessions that last: drained rings, the fold table, depth, rate ---- */

/* A stack of @n frame records under tf, each returning into
 * virtio_net_rx + 0x10 + i. */
static void deep_stack(struct trap_frame *tf, unsigned n)
{
	static uintptr_t stack[512] __attribute__((aligned(16)));
	struct task *idle = cpus[0].current;

	idle->stack_lo = (uintptr_t)stack;
	idle->stack_hi = (uintptr_t)(stack + 512);
	for (unsigned i = 0; i < n; i++) {
		uintptr_t *rec = &stack[16 + 8 * i];

		rec[0] = (uintptr_t)&stack[16 + 8 * (i + 1)];
		rec[1] = PT_VIRTIO_NET_RX + 0x10 + i;
	}
	stack[16 + 8 * n] = 0;
	stack[16 + 8 * n + 1] = 0;
	tf->ip = PT_MEMCPY + 4;
	tf->sp = (uintptr_t)&stack[8];
	tf->fp = (uintptr_t)&stack[16];
}

CHECK_TEST("lasting", test_depth_sizes_records)
{
	static const unsigned depths[] = { 1, 8, 32 };
	struct trap_frame tf;
	const struct prof_record *r;
	size_t n;

	use_tick();
	pt_boot_cpus(1);
	for (unsigned k = 0; k < 3; k++) {
		struct prof_options opt = { depths[k], 100, PROF_PID_ALL, PROF_RUN_BOOT, false };
		const struct prof_data *d;

		deep_stack(&tf, 40);
		ck_assert_int_eq(prof_start_with(&opt), 0);
		pt_tick(0, PT_CPU_IDLE);
		ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 0);
		fake_cpu = 0;
		kernel_tick(&tf);
		r = records(0, &n);
		ck_assert_uint_eq(n, 1);
		ck_assert_uint_eq(r[0].nframes, depths[k]);
		for (unsigned i = 1; i < depths[k]; i++)
			ck_assert_uint_eq(r[0].frames[i], PT_VIRTIO_NET_RX + 0x10 + i - 1);
		stop_and_settle(1);
		prof_collect();
		d = prof_last();
		ck_assert_ptr_nonnull(d);
		ck_assert_uint_eq(d->depth, depths[k]);
		ck_assert_uint_eq(d->fold.nchains, 1);
		ck_assert_uint_eq(d->fold.chains[0].ncallers, depths[k] - 1);
		prof_end();
	}
}
END_TEST

/* A CPU that never acknowledged the last stop may still be inside a
 * sample at the last depth: the depth (and the ring's layout) stays
 * until it has; the same depth may start. */
CHECK_TEST("lasting", test_depth_cannot_change_under_a_cpu_still_sampling)
{
	struct prof_options deeper = { 16, 100, PROF_PID_ALL, PROF_RUN_BOOT, false };
	struct prof_options same = { PROF_DEPTH_DEFAULT, 100, PROF_PID_ALL, PROF_RUN_BOOT, false };

	use_tick();
	pt_boot_cpus(2);
	start_open(2);
	prof_stop();
	pt_tick(0, PT_CPU_IDLE);	/* cpu 1 never answers this stop */
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 1u << 1);
	prof_end();

	ck_assert_int_eq(prof_start_with(&deeper), -EAGAIN);
	ck_assert_int_eq(prof_start_with(&same), 0);
	stop_and_settle(2);
	prof_end();
	/* Every CPU has acknowledged: now it may. */
	ck_assert_int_eq(prof_start_with(&deeper), 0);
	prof_end();
}
END_TEST

/* Five rings' worth of samples, drained as they come: none dropped,
 * every one counted.  Without the drains the ring fills and drops. */
CHECK_TEST("lasting", test_drain_keeps_ring_from_filling)
{
	const unsigned taken = 5 * PROF_BUF;
	const struct prof_data *d;
	struct prof_cpu_stats st;

	use_tick();
	pt_boot_cpus(1);
	start_open(1);
	for (unsigned i = 0; i < taken; i++) {
		pt_tick(0, PT_MEMCPY + (i & 0x7f));
		if (i % 1000 == 999)
			ck_assert_int_eq(prof_drain(), 0);
	}
	stop_and_settle(1);
	prof_collect();
	d = prof_last();
	prof_cpu_stats(0, &st);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert_uint_eq(d->dropped, 0);
	/* The stop's own tick samples nothing: the window closed. */
	ck_assert_uint_eq(d->samples, taken);
	ck_assert_uint_eq(d->fold.samples + d->other, d->samples);
	ck_assert_uint_eq(d->other, 0);
	prof_end();

	start_open(1);
	for (unsigned i = 0; i < taken; i++)
		pt_tick(0, PT_MEMCPY);
	stop_and_settle(1);
	prof_collect();
	ck_assert_uint_eq(prof_last()->dropped, taken - PROF_BUF);
}
END_TEST

/* A table of two chains: the third chain's samples are other, counted
 * in the session's samples, never lost.  A session's leaves fold by
 * their exact address: memcpy+8 is a chain of its own, other too. */
CHECK_TEST("lasting", test_fold_table_full_counts_other)
{
	const struct prof_data *d;

	use_tick();
	pt_boot_cpus(1);
	pt_use_symbols();
	prof_set_fold_chains(2);
	start_open(1);
	for (int i = 0; i < 5; i++)
		pt_tick(0, PT_MEMCPY + 4);
	for (int i = 0; i < 3; i++)
		pt_tick(0, PT_SPIN_LOCK + 4);
	prof_drain();
	for (int i = 0; i < 7; i++)
		pt_tick(0, PT_UDP_INPUT + 4);
	pt_tick(0, PT_MEMCPY + 8);
	stop_and_settle(1);
	prof_set_fold_chains(0);
	prof_collect();
	d = prof_last();
	ck_assert_uint_eq(d->samples, 16);
	ck_assert_uint_eq(d->fold.nchains, 2);
	ck_assert_uint_eq(d->fold.samples, 8);
	ck_assert_uint_eq(d->other, 8);
	ck_assert_uint_eq(d->fold.samples + d->other, d->samples);
}
END_TEST

/* hz= sets the counter's period: events per second / hz. */
CHECK_TEST("lasting", test_hz_sets_counter_period)
{
	struct prof_options opt = { 8, 250, PROF_PID_ALL, PROF_RUN_BOOT, false };

	fake_pmu_set_counting(3000000000ull, "pmu/fake cycles");
	pt_boot_cpus(1);
	ck_assert_int_eq(prof_start_with(&opt), 0);
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_uint_eq(fake_pmu_period[0], 12000000);
}
END_TEST

static void busy_body(void *arg)
{
	(void)arg;
}

/* Each CPU's idle share is the scheduler's idle time over the window,
 * not a count of samples: cpu 0 idles all of it, cpu 1 runs a task for
 * three quarters of it and takes no sample at all. */
CHECK_TEST("lasting", test_idle_share_from_scheduler)
{
	const struct prof_data *d;
	struct task *t;

	use_tick();
	pt_boot_cpus(2);
	pt_use_symbols();
	start_open(2);
	fake_now_ns += 250000000;
	t = task_create("busy", busy_body, NULL, 1);
	ck_assert_ptr_nonnull(t);
	pt_tick(1, PT_CPU_IDLE);	/* switches cpu 1 to the task */
	ck_assert_ptr_eq(cpus[1].current, t);
	fake_now_ns += 750000000;
	prof_stop();
	pt_tick(0, PT_CPU_IDLE);
	fake_cpu = 1;
	{
		struct trap_frame tf = { .ip = PT_MEMCPY };

		kernel_tick(&tf);
	}
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 0);
	prof_collect();
	d = prof_last();
	ck_assert_uint_eq(d->cpu_ns[0], 1000000000);
	ck_assert_uint_eq(d->cpu_idle_ns[0], 1000000000);
	ck_assert_uint_eq(d->cpu_ns[1], 1000000000);
	ck_assert_uint_eq(d->cpu_idle_ns[1], 250000000);
}
END_TEST

/* ---- a CPU that missed a stop, a drain beside the holder ---- */

/* What another CPU does when the profiler reaches a race point. */
static void (*race_hook)(const char *site);

void race_point(const char *site)
{
	if (race_hook)
		race_hook(site);
}

/* Run 1 at 1000 Hz on both CPUs; CPU 1 never sees its stop. */
static void run_cpu1_misses_stop(void)
{
	struct prof_options fast = { PROF_DEPTH_DEFAULT, 1000, PROF_PID_ALL, PROF_RUN_BOOT, false };

	pt_boot_cpus(2);
	ck_assert_int_eq(prof_start_with(&fast), 0);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 0);
	prof_stop();
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 1u << 1);
	prof_collect();
	prof_end();
	ck_assert(fake_pmu_running[1]);
	ck_assert_uint_eq(fake_pmu_period[1], 1000000);
}

CHECK_TEST("races", test_cpu_missed_stop_rearmed_at_new_period)
{
	struct prof_options slow = { PROF_DEPTH_DEFAULT, 100, PROF_PID_ALL, PROF_RUN_BOOT, false };
	struct trap_frame tf = { .ip = PT_MEMCPY };
	struct prof_cpu_stats st;

	run_cpu1_misses_stop();
	ck_assert_int_eq(prof_start_with(&slow), 0);
	fake_pmu_log_clear();
	pt_tick(1, PT_CPU_IDLE);
	/* The old run's stop answered first, then this run's period. */
	ck_assert_str_eq(fake_pmu_log,
			 "cpu1 disarm armed=1\n"
			 "cpu1 arm period=10000000 armed=1\n");
	ck_assert_uint_eq(fake_pmu_period[1], 10000000);
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 0);
	ck_assert(fake_pmu_overflow(1, &tf, true));
	prof_stop();
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 0);
	prof_collect();
	prof_cpu_stats(1, &st);
	ck_assert_uint_eq(st.stored + st.dropped + st.late, 1);
	ck_assert_uint_eq(prof_last()->samples, 1);
}
END_TEST

CHECK_TEST("races", test_cpu_missed_stop_stays_disarmed_on_tick_run)
{
	run_cpu1_misses_stop();
	ck_assert_int_eq(prof_set_source("tick"), 0);
	ck_assert_int_eq(prof_start(), 0);
	fake_pmu_log_clear();
	pt_tick(1, PT_CPU_IDLE);
	pt_tick(1, PT_CPU_IDLE);
	ck_assert_str_eq(fake_pmu_log, "cpu1 disarm armed=1\n");
	ck_assert(!fake_pmu_running[1]);
	ck_assert(!prof_cpu_armed(1));
}
END_TEST

static void stop_while_cpu1_answers_old_stop(const char *site)
{
	if (strcmp(site, "prof-armed") != 0)
		return;
	race_hook = NULL;
	prof_stop();		/* the holder, on another CPU */
}

/* CPU 1 reads the new run's generation, and while it answers the old
 * run's stop the new run stops too: the stop it then acknowledges is
 * the new run's, so it must not arm for that run after all (it did, and
 * stayed armed past the report: ksim's counter storm, 1 run in ~1500). */
CHECK_TEST("races", test_cpu_missed_stop_new_run_stops_meanwhile)
{
	struct prof_options slow = { PROF_DEPTH_DEFAULT, 100, PROF_PID_ALL, PROF_RUN_BOOT, false };
	struct prof_cpu_stats st;

	run_cpu1_misses_stop();
	ck_assert_int_eq(prof_start_with(&slow), 0);
	race_hook = stop_while_cpu1_answers_old_stop;
	pt_tick(1, PT_CPU_IDLE);
	race_hook = NULL;
	ck_assert(!prof_cpu_armed(1));
	ck_assert(!fake_pmu_running[1]);
	pt_tick(0, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 0);
	prof_collect();
	prof_cpu_stats(1, &st);
	ck_assert_uint_eq(st.stored + st.dropped + st.late, 0);
	pt_tick(1, PT_CPU_IDLE);
	ck_assert(!fake_pmu_running[1]);
	prof_end();
}
END_TEST

static void collect_before_drain_claims(const char *site)
{
	if (strcmp(site, "prof-drain-claim") != 0)
		return;
	race_hook = NULL;
	prof_collect();		/* the holder, on another CPU */
}

/* A drain that begins as the report is collected adds nothing to it:
 * not the samples of the CPU the report left out. */
CHECK_TEST("races", test_drain_beside_collect_adds_nothing)
{
	struct trap_frame tf = { .ip = PT_MEMCPY };
	const struct prof_data *d;

	pt_boot_cpus(2);
	start_open(2);
	ck_assert(fake_pmu_overflow(0, &tf, true));
	ck_assert(fake_pmu_overflow(1, &tf, true));
	ck_assert(fake_pmu_overflow(1, &tf, true));
	prof_stop();
	pt_tick(0, PT_CPU_IDLE);	/* CPU 1 never answers: left out */
	ck_assert_uint_eq(prof_wait_stopped(0, NULL, NULL), 1u << 1);
	race_hook = collect_before_drain_claims;
	ck_assert_int_eq(prof_drain(), 0);
	d = prof_last();
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->samples, 1);
	ck_assert_uint_eq(d->cpu_samples[1], 0);
}
END_TEST

/* The drainer (a thread standing for the CPU it runs on) and the
 * holder take turns: never both at once. */
static sem_t drainer_paused, drainer_go;
static pthread_t drainer;

static void drainer_pauses_mid_drain(const char *site)
{
	if (strcmp(site, "prof-drain-take") != 0 || !pthread_equal(pthread_self(), drainer))
		return;
	race_hook = NULL;
	sem_post(&drainer_paused);
	sem_wait(&drainer_go);
}

static void *drainer_main(void *arg)
{
	(void)arg;
	fake_cpu = 0;
	prof_drain();
	return NULL;
}

/* The holder waits for the drain in flight: let it finish. */
static void holder_waits_for_drain(const char *site)
{
	if (strcmp(site, "prof-drain-wait") != 0)
		return;
	race_hook = NULL;
	sem_post(&drainer_go);
	pthread_join(drainer, NULL);
	drainer = 0;
}

/* A drain of the last run still folding when the next run starts: the
 * start waits for it, so none of its samples lands in the new run. */
CHECK_TEST("races", test_start_waits_for_drain_in_flight)
{
	struct trap_frame tf = { .ip = PT_MEMCPY };

	pt_boot_cpus(2);
	start_open(2);
	for (int i = 0; i < 3; i++)
		ck_assert(fake_pmu_overflow(1, &tf, true));
	sem_init(&drainer_paused, 0, 0);
	sem_init(&drainer_go, 0, 0);
	race_hook = drainer_pauses_mid_drain;
	ck_assert_int_eq(pthread_create(&drainer, NULL, drainer_main, NULL), 0);
	sem_wait(&drainer_paused);
	/* The holder, on CPU 1: stop, collect, start again. */
	race_hook = holder_waits_for_drain;
	prof_stop();
	pt_tick_all(2, PT_CPU_IDLE);
	fake_cpu = 1;
	prof_collect();
	prof_end();
	ck_assert_int_eq(prof_start(), 0);
	if (drainer) {		/* nothing waited: let it run over the new run */
		race_hook = NULL;
		sem_post(&drainer_go);
		pthread_join(drainer, NULL);
	}
	ck_assert_uint_eq(prof_last() ? prof_last()->samples : 0, 0);
	pt_tick_all(2, PT_CPU_IDLE);
	ck_assert_uint_eq(prof_wait_armed(0, NULL, NULL), 0);
	stop_and_settle(2);
	prof_collect();
	ck_assert_uint_eq(prof_last()->samples, 0);
}
END_TEST

/* ---- the throttle (one rule for every platform) ---- */

/* @n overflows on CPU 0, @gap_ns apart, each handler taking @cost_ns but
 * every @slow_every-th (0: none), which takes @slow_ns -- a handler
 * preempted by the host. */
static void overflows_taking(unsigned n, uint64_t gap_ns, uint64_t cost_ns,
			     unsigned slow_every, uint64_t slow_ns)
{
	struct trap_frame tf = { .ip = PT_MEMCPY };

	for (unsigned i = 0; i < n; i++) {
		bool slow = slow_every && i % slow_every == 0;

		fake_pmu_cost_ns[0] = slow ? slow_ns : cost_ns;
		fake_now_ns += gap_ns + (slow ? slow_ns : 0);
		ck_assert(fake_pmu_overflow(0, &tf, true));
	}
}

CHECK_TEST("throttle", test_throttle_rides_out_preempted_handlers)
{
	pt_boot_cpus(1);
	pt_use_symbols();
	start_open(1);
	/* 1 kHz, each handler 1% of its millisecond: fine. */
	overflows_taking(THROTTLE_SAMPLES, 1000000, 10000, 0, 0);
	/* The same, but 4 handlers of 64 held 4 ms each by the host: their
	 * sum is 20% of the window, their typical cost still 1%. */
	overflows_taking(THROTTLE_SAMPLES, 1000000, 10000, 16, 4000000);
	ck_assert_uint_eq(fake_pmu_set_periods, 0);
	ck_assert_uint_eq(fake_pmu_period[0], 1000000);
	stop_and_settle(1);
	ck_assert_ptr_null(strstr(print_report(PROF_PID_ALL, 8), "throttled"));
}
END_TEST

CHECK_TEST("throttle", test_throttle_doubles_period_of_slow_handler)
{
	pt_boot_cpus(1);
	pt_use_symbols();
	start_open(1);
	/* 5% in every sample: at the 64th, the period doubles, once. */
	overflows_taking(THROTTLE_SAMPLES - 1, 1000000, 50000, 0, 0);
	ck_assert_uint_eq(fake_pmu_set_periods, 0);
	overflows_taking(1, 1000000, 50000, 0, 0);
	ck_assert_uint_eq(fake_pmu_set_periods, 1);
	ck_assert_uint_eq(fake_pmu_period[0], 2000000);
	/* At 500 Hz: slow in three samples of four (the rest cost nothing)
	 * is still slow -- 5% again. */
	overflows_taking(THROTTLE_SAMPLES, 2000000, 0, 0, 0);
	ck_assert_uint_eq(fake_pmu_set_periods, 1);
	for (unsigned i = 0; i < THROTTLE_SAMPLES / 4; i++) {
		overflows_taking(1, 2000000, 0, 0, 0);
		overflows_taking(3, 2000000, 100000, 0, 0);
	}
	ck_assert_uint_eq(fake_pmu_set_periods, 2);
	ck_assert_uint_eq(fake_pmu_period[0], 4000000);
	stop_and_settle(1);
	ck_assert_ptr_nonnull(strstr(print_report(PROF_PID_ALL, 8),
		"throttled to 250 Hz: the overflow handler took more than 2% of a cpu\n"));
}
END_TEST

int main(void)
{
	return check_run(check_suite("profiler", NULL, 0));
}
