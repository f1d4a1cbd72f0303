/* SPDX-License-Identifier: BSD-2-Clause */
/* What the tests read of `sleepy` (work/sleepy.c): its paths and the
 * time each took by the kernel's clock. */
#ifndef KPROF_WORK_SLEEPY_TEST_H
#define KPROF_WORK_SLEEPY_TEST_H

#include <stdbool.h>
#include <stdint.h>

enum { SLEEPY_COMPUTE, SLEEPY_NAP_A, SLEEPY_NAP_B, SLEEPY_WAIT_PEER, SLEEPY_PATHS };

/* The function each path is, as a profile names it. */
extern const char *const sleepy_path_name[SLEEPY_PATHS];

/* Nanoseconds inside each path so far, and of the naps' the part after
 * their wake (runnable). */
void sleepy_truth(uint64_t out[SLEEPY_PATHS], uint64_t runnable[SLEEPY_PATHS]);

/* The same, of the calls' time between @from and @to by hal_clock_ns()
 * (a profile's window), from each task's last 2048 calls.  False when
 * there was no memory to keep them.  Read while the tasks run: a call
 * still under way is not counted. */
bool sleepy_truth_between(uint64_t from, uint64_t to, uint64_t out[SLEEPY_PATHS]);

/* Whether every running task has logged a call that began at or after
 * @ns: then each call under way at @ns has returned and is counted. */
bool sleepy_logged_since(uint64_t ns);

/* One logged call: its path, and when it began and returned. */
struct sleepy_call {
	uint64_t t0, t1;
	unsigned path;
};
/* Task @me's (the task on CPU @me) logged calls that began at or after
 * @from and returned by @to, oldest first, at most @max (of its last
 * 2048); returns how many.  A trace's truth: each nap is one sleep, each
 * wait its blocks (tests/sim/check_trace.c). */
unsigned sleepy_calls_between(unsigned me, uint64_t from, uint64_t to, struct sleepy_call *out,
			      unsigned max);
#endif
