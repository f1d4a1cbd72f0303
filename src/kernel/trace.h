/* SPDX-License-Identifier: BSD-2-Clause */
/* Static tracepoints: named events with two typed fields each, written
 * into the firing CPU's ring (kernel/trace_ring.h) while a trace is on.
 * A tracepoint is TRACE_POINT() at its site: one byte load and one
 * branch, predicted not taken, while its event is off; the fields are
 * computed only behind that branch.  The kernel has no code patching
 * (no static keys), so that load and branch are the floor.  Not the
 * scheduler's switch hook (sched_on_switch(), the wall profile's one
 * slot): the switch has its own tracepoint beside it. */
#ifndef KPROF_KERNEL_TRACE_H
#define KPROF_KERNEL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "kernel/trace_ring.h"

struct out;

/* Every event, in `trace list`'s order; trace_events[] names each and
 * its fields.  The record's pid is always the task current on the
 * firing CPU, its cpu that CPU. */
enum trace_id {
	TRACE_SCHED_SWITCH,	/* pid = prev; f0 prev state, f1 next pid */
	TRACE_SCHED_WAKEUP,	/* pid = waker; f0 woken pid, f1 target cpu */
	TRACE_TASK_NEW,		/* pid = creator; f0 new pid, f1 its cpu */
	TRACE_TASK_EXIT,	/* pid = the task ending */
	TRACE_IRQ_ENTRY,	/* f0 the platform's vector or INTID */
	TRACE_IRQ_EXIT,		/* f0 the same */
	TRACE_NMI,		/* f0 1 when the profiler claimed it */
	TRACE_TICK,		/* f0 1 when it asks for a switch */
	TRACE_NET_RX,		/* f0 frame length */
	TRACE_NET_TX,		/* f0 frame length, f1 1 when the send failed */
	TRACE_UDP_DELIVER,	/* f0 destination port, f1 payload length */
	TRACE_EVENTS
};

/* TRACE_SCHED_SWITCH's flags: the tick preempted prev (it did not give
 * up its CPU in a call). */
#define TRACE_F_PREEMPT 1u
/* TRACE_SCHED_WAKEUP's: the tick woke it (a sleep's deadline), not a
 * sched_wake(). */
#define TRACE_F_TIMER 1u

struct trace_event_desc {
	const char *name;
	const char *group;	/* sched, irq or net: an EVENTS word */
	const char *f0, *f1;	/* field names; NULL: none */
};

extern const struct trace_event_desc trace_events[TRACE_EVENTS];

/* One byte per event, read by every TRACE_POINT(). */
extern bool trace_enabled[TRACE_EVENTS];

/* The slow half of a tracepoint: count it, filter it, write it. */
void trace_fire(enum trace_id id, uint32_t f0, uint32_t f1, unsigned flags)
	__attribute__((cold, noinline));

/* KPROF_BENCH_NO_TRACEPOINTS: a build without them, the baseline the
 * cost of a disabled tracepoint is measured against (bench/). */
#ifndef KPROF_BENCH_NO_TRACEPOINTS
#define TRACE_POINT(id, f0, f1, flags)                                              \
	do {                                                                        \
		if (__builtin_expect(__atomic_load_n(&trace_enabled[id], __ATOMIC_RELAXED), 0)) \
			trace_fire((id), (f0), (f1), (flags));                      \
	} while (0)
#else
/* Never called, never evaluated: the arguments only count as used. */
#define TRACE_POINT(id, f0, f1, flags)                                              \
	do {                                                                        \
		if (0)                                                              \
			trace_fire((id), (f0), (f1), (flags));                      \
	} while (0)
#endif

/* What to record. */
struct trace_config {
	uint32_t events;	/* 1 << enum trace_id */
	int cpu;		/* TRACE_CPU_ALL, or the one CPU with a ring */
	int pid;		/* TRACE_PID_ALL, or events naming this pid */
	uint64_t slots;		/* per ring, a power of two */
	bool overwrite;		/* overwrite the oldest, else stop when full */
};
#define TRACE_CPU_ALL (-1)
#define TRACE_PID_ALL (-1)

/* Give each online CPU the config names a ring (its pages from
 * page_alloc()) and turn the events on.  -ENOMEM (nothing kept) when a
 * ring cannot be had; -EBUSY while armed.  Task context. */
int trace_arm(const struct trace_config *cfg);

/* Turn the events off and wait for writers already inside to leave.
 * The rings keep what they hold.  Task context. */
void trace_disarm(void);

/* Read @cpu's ring into @sink until it is empty.  After trace_disarm()
 * (a slot still being written then is waited for, a little, then
 * counted lost); before it, only what is whole. */
void trace_drain(unsigned cpu, void (*sink)(const struct trace_rec *rec, void *ctx),
		 void *ctx);

/* @cpu's ring: lost events so far, and whether it has one. */
uint64_t trace_lost(unsigned cpu);
bool trace_has_ring(unsigned cpu);

/* A task was born (task_create()): while a trace is armed its name is
 * kept, so that a task that starts and ends inside the window is named.
 * Task context. */
void trace_task_born(int pid, const char *name);

/* The @i-th name kept since the last trace_arm(): false past the end. */
bool trace_born_name(unsigned i, int *pid, const char **name);
#define TRACE_BORN_MAX 256

/* Pages the rings hold now. */
size_t trace_pages_held(void);

/* Free the rings.  After trace_disarm(). */
void trace_release(void);

/* How often @id fired on any CPU while it was on and that CPU had a
 * ring, since boot: with no pid filter, each is kept or counted lost. */
uint64_t trace_fired(enum trace_id id);

/* The per-CPU ring size, in KB, when a trace names none: the boot key
 * trace.buffer_kb=, else TRACE_BUFFER_KB_DEFAULT. */
unsigned trace_buffer_kb_default(void);
#define TRACE_BUFFER_KB_DEFAULT 256
#define TRACE_BUFFER_KB_MIN 4
#define TRACE_BUFFER_KB_MAX 65536

/* The slots a ring of @kb KB holds (a power of two, rounded down). */
uint64_t trace_slots_for_kb(uint64_t kb);

/* The name of a TRACE_SCHED_SWITCH prev state, as `ps` and perf write
 * it: R, S, D (blocked), X (dead); R+ preempted. */
const char *trace_state_name(uint32_t state, unsigned flags);

#endif
