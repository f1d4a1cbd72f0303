/* SPDX-License-Identifier: BSD-2-Clause */
/* A trace: the rings armed (kernel/trace.h), then, at its stop, every
 * CPU's events drained and merged by time into one store, with the
 * names of the tasks they mention, for the views (trace_views.c) to
 * read until the next trace begins. */
#ifndef KPROF_PROF_TRACE_SESSION_H
#define KPROF_PROF_TRACE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "kernel/task.h"
#include "kernel/trace.h"

struct out;

#define TRACE_WINDOW_MIN_MS 1
#define TRACE_WINDOW_MAX_MS 60000
/* Tasks whose names a trace keeps (those alive at its start or stop). */
#define TRACE_NAMES_MAX 256

struct trace_name {
	int pid;
	char name[TASK_NAME_MAX];
};

struct trace_session {
	bool armed;		/* between start and stop */
	bool have;		/* a stopped trace's events are here */
	struct trace_config cfg;
	unsigned kb;		/* each ring's size asked for */
	uint64_t t0, t1;	/* hal_clock_ns() at start and stop */
	struct trace_rec *ev;	/* merged, by time then CPU */
	size_t n, cap;
	bool ring[HAL_MAX_CPUS];	/* the CPUs that had a ring */
	uint64_t read[HAL_MAX_CPUS], lost[HAL_MAX_CPUS];
	struct trace_name names[TRACE_NAMES_MAX];
	unsigned nnames;
};

/* The console and a UDP shell may run `trace` at once: whoever starts,
 * stops or reads the trace holds it first (a start frees the last
 * trace's store).  False when another holds it.  Task context. */
bool trace_session_claim(void);
void trace_session_release(void);

/* Arm a trace with @cfg (its slots from @kb), refusing in one line on
 * @err -- before allocating anything -- when one is armed or the rings
 * and the store would not fit in free memory.  Returns 0 or -errno. */
int trace_session_start(const struct trace_config *cfg, unsigned kb, struct out *err);

/* Disarm, drain every ring into the store, merge, name the tasks.
 * -ENOENT when none was armed. */
int trace_session_stop(void);

/* The last trace, armed or stopped. */
const struct trace_session *trace_session(void);

/* The name a trace kept for @pid, "?" if none; "idle" for idle tasks'. */
const char *trace_session_name(const struct trace_session *s, int pid);

/* Parse an EVENTS word: names and groups (sched, irq, net, all),
 * comma-separated.  -EINVAL, with the word that is none in *@bad. */
int trace_parse_events(const char *word, uint32_t *mask, const char **bad, size_t *badlen);

/* The views (trace_views.c). */
void trace_print_header(struct out *o, const struct trace_session *s);
void trace_print_text(struct out *o, const struct trace_session *s, uint64_t n);
void trace_print_summary(struct out *o, const struct trace_session *s);
void trace_print_latency(struct out *o, const struct trace_session *s, uint64_t n);
void trace_print_irqs(struct out *o, const struct trace_session *s);
void trace_print_list(struct out *o);
/* The trace as data, framed for `kshell -o` and `kprof-report trace`
 * (TRACE_BLOCK_BEGIN ... TRACE_BLOCK_END lines=N): its window, each
 * CPU's lost count, the tasks' names, one event a line. */
void trace_print_raw(struct out *o, const struct trace_session *s);


#endif
