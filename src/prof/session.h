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

/* Sample for @ms (the window measured from the moment every CPU armed),
 * then collect: prof_last() holds the session.  On success the caller
 * still holds the profiler, so that no other shell's session replaces
 * the data while it prints a view; prof_end() lets it go.  Returns 0,
 * -EBUSY or -ENOMEM.  Task context, not the idle task; sleeps. */
int prof_session_window(const struct prof_options *opt, uint64_t ms);

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

#endif
