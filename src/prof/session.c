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

/* A session's intervals (`profile rotate`): the open one and the last
 * closed, kept until the next rotate so that a collector whose reply
 * was lost can ask for it again.  Two slots, used in turn. */
static struct prof_interval intervals[2];
static struct prof_interval *iv_open, *iv_closed;
/* The slots belong to the last session started (a window since, or a
 * failed start, leaves nothing to rotate). */
static bool iv_valid;
/* A wall session's books run from its start to its stop: it has no
 * intervals to hand out. */
static bool session_wall;

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

/* Interval 1, open from the session's start: its samples are folded
 * beside the session's from the first drain on.  Under the claim, right
 * after prof_start_with(). */
static int session_open_first_interval(void)
{
	uint64_t at;

	iv_valid = false;
	iv_closed = NULL;
	iv_open = &intervals[0];
	if (prof_interval_prepare(&iv_open->data, PROF_INTERVAL_CHAINS) < 0)
		return -ENOMEM;
	iv_open->seq = 1;
	iv_open->end_ns = 0;
	return prof_interval_cut(NULL, &iv_open->data, &at);
}

/* Close the open interval at @at_ns: it becomes the kept one. */
static void session_interval_closed(uint64_t at_ns)
{
	iv_open->end_ns = at_ns;
	iv_open->data.window_ns = at_ns > iv_open->start_ns ? at_ns - iv_open->start_ns : 0;
	iv_closed = iv_open;
	iv_open = NULL;
}

/* After the stop: the open interval ends where sampling stopped, and is
 * kept for `profile rotate` as the session's last.  Under the claim. */
static void session_close_last_interval(void)
{
	uint64_t at;

	if (!iv_valid || !iv_open)
		return;
	if (prof_interval_cut(&iv_open->data, NULL, &at) < 0) {
		iv_valid = false;
		return;
	}
	session_interval_closed(at);
}

int prof_session_window(const struct prof_options *opt, uint64_t ms, bool guest)
{
	uint64_t deadline, now, step = (uint64_t)PROF_DRAIN_MS * 1000000u;
	int r = prof_start_as(opt, guest);

	if (r < 0)
		return r;
	/* The last session's intervals are no longer the profiler's. */
	__atomic_store_n(&iv_valid, false, __ATOMIC_RELEASE);
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
	if (r == 0 && session_open_first_interval() < 0) {
		prof_end();
		r = -ENOMEM;
	}
	if (r == 0) {
		session_open_window();
		/* Interval 1 starts with the window: nothing before it is
		 * stored. */
		iv_open->start_ns = hal_clock_ns();
		session_wall = opt->wall;
		__atomic_store_n(&iv_valid, true, __ATOMIC_RELEASE);
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
	session_close_last_interval();
	session_release();
	return 0;
}

bool prof_session_running(void)
{
	return __atomic_load_n(&session_open, __ATOMIC_ACQUIRE);
}

/* The newest interval is @seq: close it, open the next in the other
 * slot (which held the closed one before it).  Under the claim. */
static int session_rotate_open(void)
{
	struct prof_interval *next = iv_open == &intervals[0] ? &intervals[1]
							       : &intervals[0];
	uint64_t at;

	/* The slot's old interval goes now, whatever follows. */
	iv_closed = NULL;
	if (prof_interval_prepare(&next->data, PROF_INTERVAL_CHAINS) < 0)
		return -ENOMEM;
	if (prof_interval_cut(&iv_open->data, &next->data, &at) < 0)
		return -ESTALE;
	next->seq = iv_open->seq + 1;
	next->start_ns = at;
	next->end_ns = 0;
	session_interval_closed(at);
	iv_open = next;
	return 0;
}

int prof_session_rotate(uint64_t seq, const struct prof_interval **iv,
			uint64_t *kept)
{
	int r;

	if (!session_claim())
		return -EBUSY;
	if (!__atomic_load_n(&iv_valid, __ATOMIC_ACQUIRE) || (!iv_open && !iv_closed)) {
		session_release();
		return -ENOENT;
	}
	if (session_wall) {
		session_release();
		return -ENOSYS;
	}
	if (iv_open && seq == iv_open->seq) {
		r = session_rotate_open();
		if (r < 0) {
			session_release();
			return r;
		}
	}
	if (iv_closed && seq == iv_closed->seq) {
		*iv = iv_closed;
		return 0;	/* the claim is held until prof_session_rotate_done() */
	}
	if (seq < (iv_closed ? iv_closed->seq : iv_open->seq)) {
		*kept = iv_closed ? iv_closed->seq : iv_open->seq;
		session_release();
		return -ESTALE;
	}
	*kept = iv_open ? iv_open->seq : iv_closed->seq;
	r = iv_open ? -ERANGE : -EPERM;
	session_release();
	return r;
}

void prof_session_rotate_done(void)
{
	session_release();
}

uint64_t prof_session_rotations(const struct prof_interval **last)
{
	if (!__atomic_load_n(&iv_valid, __ATOMIC_ACQUIRE) || !iv_closed || iv_open) {
		*last = NULL;
		return 0;
	}
	*last = iv_closed;
	return iv_closed->seq - 1;
}
