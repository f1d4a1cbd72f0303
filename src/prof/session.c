/* SPDX-License-Identifier: BSD-2-Clause */
#include "prof/session.h"

#include "hal/timer.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "kernel/tick.h"
#include "lib/errno.h"
#include "lib/spinlock.h"

/* The task that drains an open-ended session's rings: made on the first
 * `profile start` and kept (blocked between sessions), pinned to CPU 0. */
static struct task *drainer;
static bool session_open;
/* One start or stop at a time: two shells may race. */
static struct spinlock session_lock = SPINLOCK_INIT;
static bool session_changing;

static void prof_drainer(void *arg)
{
	(void)arg;
	for (;;) {
		while (!__atomic_load_n(&session_open, __ATOMIC_ACQUIRE))
			sched_block();
		prof_drain();
		sched_sleep_ms(PROF_DRAIN_MS);
	}
}

static bool session_claim(void)
{
	unsigned long flags = spin_lock_irqsave(&session_lock);
	bool ok = !session_changing;

	session_changing = true;
	spin_unlock_irqrestore(&session_lock, flags);
	return ok;
}

static void session_release(void)
{
	__atomic_store_n(&session_changing, false, __ATOMIC_RELEASE);
}

/* Every CPU arms, so that all of the window is sampled time. */
static void session_open_window(void)
{
	prof_wait_armed(tick_answer_ns(), sched_pause_tick, NULL);
}

/* Stop and collect; the profiler stays held for the caller's view. */
static void session_close(void)
{
	prof_stop();
	prof_wait_stopped(prof_answer_budget_ns(), sched_pause_tick, NULL);
	prof_collect();
}

int prof_session_window(const struct prof_options *opt, uint64_t ms)
{
	uint64_t deadline, now, step = (uint64_t)PROF_DRAIN_MS * 1000000u;
	int r = prof_start_with(opt);

	if (r < 0)
		return r;
	session_open_window();
	/* The window is one deadline, whatever wakes the task; the drains
	 * in between keep the rings from filling at any rate. */
	deadline = hal_clock_ns() + ms * 1000000u;
	while ((now = hal_clock_ns()) < deadline) {
		sched_sleep_until_ns(deadline - now > step ? now + step : deadline);
		prof_drain();
	}
	session_close();
	return 0;
}

int prof_session_start(const struct prof_options *opt)
{
	int r;

	if (!session_claim())
		return -EBUSY;
	if (__atomic_load_n(&session_open, __ATOMIC_ACQUIRE)) {
		session_release();
		return -EBUSY;
	}
	if (!drainer) {
		drainer = task_create("profd", prof_drainer, NULL, 0);
		if (!drainer) {
			session_release();
			return -ENOMEM;
		}
	}
	r = prof_start_with(opt);
	if (r == 0) {
		session_open_window();
		__atomic_store_n(&session_open, true, __ATOMIC_RELEASE);
		sched_wake(drainer);
	}
	session_release();
	return r;
}

int prof_session_stop(void)
{
	if (!session_claim())
		return -EBUSY;
	if (!__atomic_load_n(&session_open, __ATOMIC_ACQUIRE)) {
		session_release();
		return -ENOENT;
	}
	/* The drainer finishes the drain it is in; prof_collect() takes the
	 * rest. */
	__atomic_store_n(&session_open, false, __ATOMIC_RELEASE);
	session_close();
	session_release();
	return 0;
}

bool prof_session_running(void)
{
	return __atomic_load_n(&session_open, __ATOMIC_ACQUIRE);
}
