/* SPDX-License-Identifier: BSD-2-Clause */
/* Profile sessions as the shell runs them: one window, or open-ended
 * from `profile start` to `profile stop`.  Either way the samples move
 * from the per-CPU rings into the session's fold table from task
 * context, at least every PROF_DRAIN_MS, so a session's memory is
 * bounded by its distinct chains, not by how long it runs. */
#ifndef KPROF_PROF_SESSION_H
#define KPROF_PROF_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "prof/profiler.h"
#include "prof/report.h"

/* Sample for @ms (the window measured from the moment every CPU armed),
 * then collect: prof_last() holds the session.  On success the caller
 * still holds the profiler, so that no other shell's session replaces
 * the data while it prints a view; prof_end() lets it go.  A @guest (a
 * UDP shell without a key) may not replace a session kept by anyone
 * else (prof_start_as()).  Returns 0, -EBUSY, -EPERM (a guest) or
 * -ENOMEM.  Task context, not the idle task; sleeps. */
int prof_session_window(const struct prof_options *opt, uint64_t ms, bool guest);

/* Begin an open-ended session: sampling runs until
 * prof_session_stop(), a task drains the rings meanwhile.  Returns 0,
 * -EBUSY (a session or a window runs), or -ENOMEM.  Task context. */
int prof_session_start(const struct prof_options *opt);

/* End the open-ended session and collect it; as with a window, the
 * caller then holds the profiler until prof_end().  Returns 0, -ENOENT
 * when none runs, or -EBUSY while another shell starts or stops one.
 * Task context; sleeps. */
int prof_session_stop(void);

/* True between prof_session_start() and prof_session_stop(). */
bool prof_session_running(void);

/* Chains an interval's fold table holds, at most; samples of chains
 * beyond it are the interval's `other`.  A quarter of the session's:
 * an interval of seconds sees far fewer distinct stacks than a whole
 * session. */
#define PROF_INTERVAL_CHAINS (PROF_FOLD_CHAINS / 4)

/* One interval of a session: interval 1 opens with the session, each
 * `profile rotate` closes the newest and opens the next, the stop
 * closes the last.  Times are hal_clock_ns(). */
struct prof_interval {
	uint64_t seq;
	uint64_t start_ns, end_ns;	/* end_ns 0 while it is open */
	struct prof_data data;		/* its samples, as a window's */
};

/* `profile rotate SEQ`: when @seq is the open interval, close it at
 * each CPU's ring head (drained first) and open @seq + 1; then give the
 * closed interval @seq in *@iv.  The last closed interval is kept until
 * the next rotate, so asking for it again gives the same interval.
 * Returns 0 with the session's claim held (the interval stays as it is)
 * until prof_session_rotate_done(); -ESTALE when @seq is older than
 * the oldest kept (*@kept); -ERANGE when it is newer than the open one
 * (*@kept, the open one); -EPERM when the session stopped and @seq is
 * past its last interval (*@kept); -ENOENT when no session was started
 * since the last window (or boot); -EBUSY while another shell starts,
 * stops or rotates; -ENOMEM.  Task context; sleeps. */
int prof_session_rotate(uint64_t seq, const struct prof_interval **iv,
			uint64_t *kept);
void prof_session_rotate_done(void);

/* After prof_session_stop(): how many rotations the session had, and
 * its last interval (closed by the stop) in *@last; 0 and NULL when it
 * never rotated or runs.  Task context, the stop's caller. */
uint64_t prof_session_rotations(const struct prof_interval **last);

#endif
