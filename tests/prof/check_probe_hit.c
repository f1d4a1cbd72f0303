/* SPDX-License-Identifier: BSD-2-Clause */
/* The probes' handler and management on the fake platform
 * (prof/probe_hit.c, prof/probe.c): the test plays the trampolines,
 * calling probe_entry() with a return slot of its own and probe_exit()
 * as the return trampoline would, on a fake clock.  What it pins: counts
 * per CPU and per task, the shadow stack (its depth, LIFO returns, the
 * slot holding the trampoline's address until the return), a walk's
 * translation of the trampoline back to the real return address, a
 * return that outlives its probe, hits inside the handler, refusals. */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "fake_hal.h"
#include "fake_probe.h"
#include "prof_testlib.h"
#include "testlib.h"

#include "hal/entry.h"
#include "kernel/sched.h"
#include "kernel/stacktrace.h"
#include "kernel/symbols_test.h"
#include "kernel/task.h"
#include "prof/probe.h"
#include "prof/probe_internal.h"
#include "lib/out.h"
#include "lib/errno.h"

#define BASE 0x100000u
#define ALPHA (BASE + 0x000)
#define BETA (BASE + 0x100)
#define TICK (BASE + 0x200)
#define NOENTRY (BASE + 0x300)

static const char strings[] = "alpha\0beta\0kernel_tick\0no_entry";
static const struct sym_entry entries[] = {
	{ 0x000, 0x80, 0 }, { 0x100, 0x80, 6 }, { 0x200, 0x80, 11 }, { 0x300, 0x80, 23 },
};
static const struct sym_table table = {
	.base = BASE, .entries = entries, .count = 4, .strings = strings,
};
static const uintptr_t sites[] = { ALPHA, BETA, TICK };

static struct task me = { .pid = 42, .name = "me" };
static char errbuf[512];
static struct out_buf err;

static void setup(void)
{
	pt_boot_cpus(2);
	sym_use_table(&table);
	fake_probe_use_sites(sites, 3);
	cpus[0].current = &me;
	me.probe.depth = 0;
	fake_now_ns = 1000;
	out_buf_init(&err, errbuf, sizeof(errbuf));
}

static uintptr_t ret_addr(void)
{
	return (uintptr_t)fake_probe_ret;
}

CHECK_TEST("count", test_counts_per_cpu_and_task)
{
	uintptr_t slot = 0x1234;
	const struct probe *p;
	struct probe_sum s;

	ck_assert_int_eq(probe_add("alpha", 0, &err.out), 0);
	ck_assert(fake_probe_is_on(ALPHA));
	p = probe_find("alpha");
	ck_assert_ptr_nonnull(p);
	for (int i = 0; i < 5; i++)
		probe_entry(ALPHA, &slot);
	fake_cpu = 1;
	probe_entry(ALPHA, &slot);	/* CPU 1's idle task */
	fake_cpu = 0;
	probe_entry(BETA, &slot);	/* no probe there */
	ck_assert_uint_eq(slot, 0x1234);	/* untimed: the return is not hooked */
	probe_sum(p, &s);
	ck_assert_uint_eq(s.hits, 6);
	ck_assert_uint_eq(probe_task_hits(p, 42), 5);
	ck_assert_uint_eq(s.timed, 0);
	ck_assert_int_eq(probe_del("alpha", &err.out), 0);
	ck_assert(!fake_probe_is_on(ALPHA));
	ck_assert_ptr_null(probe_find("alpha"));
}
END_TEST

CHECK_TEST("time", test_time_hooks_the_return_and_walks_translate)
{
	uintptr_t slot = 0xabc0, frames[4];
	struct probe_sum s;

	ck_assert_int_eq(probe_add("alpha", PROBE_TIME, &err.out), 0);
	probe_entry(ALPHA, &slot);
	ck_assert_uint_eq(slot, ret_addr());
	ck_assert_uint_eq(me.probe.depth, 1);
	/* A walk that read the trampoline in the slot gives the real one. */
	frames[0] = 0x1;
	frames[1] = ret_addr();
	frames[2] = 0x3;
	stacktrace_probe_fix(&me, frames, 3);
	ck_assert_uint_eq(frames[1], 0xabc0);
	fake_now_ns += 1000;
	ck_assert_uint_eq(probe_exit(), 0xabc0);
	ck_assert_uint_eq(slot, 0xabc0);	/* given back before the return */
	ck_assert_uint_eq(me.probe.depth, 0);
	probe_sum(probe_find("alpha"), &s);
	ck_assert_uint_eq(s.timed, 1);
	ck_assert_uint_eq(s.min_ns, 1000);
	ck_assert_uint_eq(s.max_ns, 1000);
	ck_assert_uint_eq(s.sum_ns, 1000);
	ck_assert_uint_eq(s.hist[9], 1);	/* [512, 1024) */
	probe_del(NULL, &err.out);
}
END_TEST

/* Nested timed calls return in LIFO order; past the depth a call is
 * counted and not timed, and its return is not hooked. */
CHECK_TEST("time", test_shadow_stack_depth_and_order)
{
	uintptr_t slots[TASK_PROBE_DEPTH + 1], frames[TASK_PROBE_DEPTH + 1];
	struct probe_sum s;

	ck_assert_int_eq(probe_add("beta", PROBE_TIME, &err.out), 0);
	for (unsigned i = 0; i <= TASK_PROBE_DEPTH; i++) {
		slots[i] = 0x7000 + i;
		probe_entry(BETA, &slots[i]);
		fake_now_ns += 10;
	}
	ck_assert_uint_eq(me.probe.depth, TASK_PROBE_DEPTH);
	ck_assert_uint_eq(slots[TASK_PROBE_DEPTH], 0x7000 + TASK_PROBE_DEPTH);
	/* The walk, innermost first, reads every hooked slot. */
	for (unsigned i = 0; i < TASK_PROBE_DEPTH; i++)
		frames[i] = ret_addr();
	stacktrace_probe_fix(&me, frames, TASK_PROBE_DEPTH);
	for (unsigned i = 0; i < TASK_PROBE_DEPTH; i++)
		ck_assert_uint_eq(frames[i], 0x7000 + TASK_PROBE_DEPTH - 1 - i);
	for (unsigned i = TASK_PROBE_DEPTH; i-- > 0;)
		ck_assert_uint_eq(probe_exit(), 0x7000 + i);
	probe_sum(probe_find("beta"), &s);
	ck_assert_uint_eq(s.hits, TASK_PROBE_DEPTH + 1);
	ck_assert_uint_eq(s.timed, TASK_PROBE_DEPTH);
	ck_assert_uint_eq(s.untimed, 1);
	probe_del(NULL, &err.out);
}
END_TEST

/* A timed call still inside the function when its probe goes returns
 * to the right place, and counts nothing into a probe added since. */
CHECK_TEST("del", test_return_outliving_its_probe)
{
	uintptr_t slot = 0x5550;
	struct probe_sum s;

	ck_assert_int_eq(probe_add("alpha", PROBE_TIME, &err.out), 0);
	probe_entry(ALPHA, &slot);
	ck_assert_int_eq(probe_del("alpha", &err.out), 0);
	ck_assert_int_eq(probe_add("alpha", PROBE_TIME, &err.out), 0);
	ck_assert_uint_eq(probe_exit(), 0x5550);
	probe_sum(probe_find("alpha"), &s);
	ck_assert_uint_eq(s.hits, 0);
	ck_assert_uint_eq(s.timed, 0);
	probe_del(NULL, &err.out);
}
END_TEST

/* A hit that lands inside the handler (an interrupt there) is dropped
 * and counted; a return there is still given back. */
CHECK_TEST("nested", test_hit_inside_handler_dropped)
{
	uintptr_t slot = 0x6660;
	struct probe_sum s;
	uint64_t before = probe_nested();

	ck_assert_int_eq(probe_add("alpha", PROBE_TIME, &err.out), 0);
	probe_entry(ALPHA, &slot);
	probe_cpu_state[0].seq++;		/* as if inside the handler */
	probe_entry(ALPHA, &slot);
	ck_assert_uint_eq(probe_exit(), 0x6660);
	probe_cpu_state[0].seq++;
	probe_sum(probe_find("alpha"), &s);
	ck_assert_uint_eq(s.hits, 1);
	ck_assert_uint_eq(s.timed, 0);		/* the return came inside */
	ck_assert_uint_eq(probe_nested(), before + 2);	/* the hit and the return */
	probe_del(NULL, &err.out);
}
END_TEST

CHECK_TEST("refuse", test_refusals_say_why)
{
	unsigned patches = fake_probe_patches;

	ck_assert_int_eq(probe_add("kernel_tick", 0, &err.out), -EPERM);
	ck_assert_str_eq(errbuf, "probe: kernel_tick is refused: trap entry: the tick\n");
	out_buf_init(&err, errbuf, sizeof(errbuf));
	ck_assert_int_eq(probe_add("no_entry", 0, &err.out), -EPERM);
	ck_assert(strstr(errbuf, "probe: no_entry has no patchable entry"));
	out_buf_init(&err, errbuf, sizeof(errbuf));
	ck_assert_int_eq(probe_add("nothing", 0, &err.out), -ENOENT);
	ck_assert_str_eq(errbuf, "probe: no function nothing in this image\n");
	out_buf_init(&err, errbuf, sizeof(errbuf));
	ck_assert_int_eq(probe_del("alpha", &err.out), -ENOENT);
	ck_assert_uint_eq(fake_probe_patches, patches);
	ck_assert_ptr_null(probe_find("alpha"));
}
END_TEST

/* Past its budget in one tick a probe counts nothing more on that CPU
 * until the next tick, and says how many it left out. */
CHECK_TEST("throttle", test_probe_throttled_per_tick)
{
	uintptr_t slot = 0x1;
	const struct probe *p;
	struct probe_sum s;

	ck_assert_int_eq(probe_add("beta", 0, &err.out), 0);
	p = probe_find("beta");
	for (uint64_t i = 0; i < p->budget + 7; i++)
		probe_entry(BETA, &slot);
	probe_sum(p, &s);
	ck_assert_uint_eq(s.hits, p->budget);
	ck_assert_uint_eq(s.throttled, 7);
	cpus[0].ticks++;
	probe_entry(BETA, &slot);
	probe_sum(p, &s);
	ck_assert_uint_eq(s.hits, p->budget + 1);
	probe_del(NULL, &err.out);
}
END_TEST

int main(void)
{
	return check_run(check_suite("probe_hit", setup, 10));
}
