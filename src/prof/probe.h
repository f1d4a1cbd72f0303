/* SPDX-License-Identifier: BSD-2-Clause */
/* Probes on kernel functions (issue 59, doc/profiler.md "Probes"): a
 * function's patchable entry (hal/probe.h) becomes a call of the
 * platform's trampoline, and every call of it is counted per CPU and per
 * task; with `time`, its return too, into a log2 histogram of entry ->
 * return durations.  Task context, one change at a time, for everything
 * here but the handler (prof/probe_hit.c). */
#ifndef KPROF_PROF_PROBE_H
#define KPROF_PROF_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu.h"

struct out;

/* The most probes at once. */
#define PROBE_MAX 128
/* Tasks counted apart on one CPU per probe; the rest are "other". */
#define PROBE_TASKS 32
/* log2 buckets of nanoseconds: bucket b holds [2^b, 2^(b+1)), 0 holds 0-1. */
#define PROBE_HIST 48

/* Callers one `stack` probe keeps apart on one CPU, and their depth. */
#define PROBE_CHAINS 32
#define PROBE_STACK_DEPTH 12

/* The throttle: hits one probe may count on one CPU per second, taken
 * per tick; past it a hit is not counted (nor timed, nor walked) until
 * the CPU's next tick, and `probe show` says how many were not. */
#define PROBE_BUDGET_PER_SEC 500000u

#define PROBE_TIME 1u
#define PROBE_STACK 2u
/* No throttle: `probe cost` alone, whose calls would otherwise measure
 * the throttled path past the first tick's budget. */
#define PROBE_UNTHROTTLED 4u

struct probe_task_count {
	int pid1;		/* the pid + 1; 0: a free entry */
	uint64_t n;
	char name[16];		/* the task's, at its first call (it may exit) */
};

/* One probe's counts on one CPU, written only by that CPU's handler. */
struct probe_cpu {
	uint64_t hits;
	uint64_t throttled;	/* hits past the budget, not counted */
	uint64_t win, win_hits;	/* the tick the budget is counted in, and its hits */
	uint64_t untimed;	/* timed probe, past the shadow stack's depth or no task */
	uint64_t other;		/* calls of tasks past the table */
	struct probe_task_count task[PROBE_TASKS];
	uint64_t timed, sum_ns, min_ns, max_ns;
	uint64_t hist[PROBE_HIST];
};

/* One chain of callers (return addresses, the probed function's caller
 * first) of one task, and its calls. */
struct probe_chain {
	uint64_t n;		/* 0: a free entry; set last, with release */
	uint32_t hash;
	int pid;
	char name[16];		/* the task's, at the chain's first call */
	uint32_t depth;
	uintptr_t frame[PROBE_STACK_DEPTH];
};

struct probe_chains {
	struct probe_chain chain[PROBE_CHAINS];
	uint64_t other;		/* calls whose chain found the table full */
};

struct probe_stats {
	struct probe_cpu cpu[HAL_MAX_CPUS];
	struct probe_chains *chains;	/* [HAL_MAX_CPUS] with `stack`, else NULL */
};

/* One slot of the probe table.  @live and @stats are read by the handler
 * on any CPU; @gen tells a return whose entry an earlier probe in this
 * slot timed from one of the current probe's. */
struct probe {
	bool live;
	uint32_t gen;
	unsigned flags;
	uint64_t budget;	/* hits per tick per CPU (PROBE_BUDGET_PER_SEC) */
	uintptr_t site;
	const char *name;
	uint64_t added_ns;
	struct probe_stats *stats;
};

extern struct probe probe_table[PROBE_MAX];

/* The patchable entries (sorted: hal_probe_sites()) and, per entry, the
 * probe slot + 1 on it (0: none). */
struct probe_sites {
	const uintptr_t *site;
	size_t n;
	uint8_t *slot1;
};
extern struct probe_sites probe_sites;

/* Why @name cannot be probed, or NULL when it can (given a site). */
const char *probe_refused(const char *name);

/* Put a probe on the function @name with @flags (PROBE_*), or change an
 * existing one's flags (its counts start again).  0, or -errno with one
 * line on @err saying why not. */
int probe_add(const char *name, unsigned flags, struct out *err);

/* Take the probe off @name (NULL: every probe), and return only once no
 * CPU is inside its handler or its return path.  0, or -ENOENT with a
 * line on @err. */
int probe_del(const char *name, struct out *err);

/* The live probe on @name, or NULL. */
struct probe *probe_find(const char *name);

/* Sums over the CPUs, for the views and the tests. */
struct probe_sum {
	uint64_t hits, throttled, untimed, other, timed, sum_ns, min_ns, max_ns;
	uint64_t hist[PROBE_HIST];
};
void probe_sum(const struct probe *p, struct probe_sum *s);
/* Calls of @pid counted by @p on every CPU. */
uint64_t probe_task_hits(const struct probe *p, int pid);

/* @p's calls per task, summed over the CPUs, into @out (at most @max
 * tasks; pid1 = pid + 1), and per CPU into @per_cpu[HAL_MAX_CPUS].
 * Returns the tasks stored. */
size_t probe_tasks(const struct probe *p, struct probe_task_count *out, size_t max,
		   uint64_t *per_cpu);
/* @p's chains (`stack`) of every CPU into @out, at most @max (the same
 * chain on two CPUs is two entries); *@other: calls of chains left out.
 * Returns the chains stored. */
size_t probe_chains_read(const struct probe *p, struct probe_chain *out, size_t max,
			 uint64_t *other);
/* Hits dropped because they came inside the handler (an interrupt). */
uint64_t probe_nested(void);
/* The image's patchable entries, and whether @addr is one. */
size_t probe_site_count(void);
bool probe_has_site(uintptr_t addr);

/* One hit's cost in picoseconds (prof/probe_cost.c): @calls calls of an
 * empty function, bare and under a probe that counts, one that times
 * and one that keeps the callers (each over the bare call). */
struct probe_cost {
	unsigned calls;
	uint64_t bare_ps, count_ps, time_ps, stack_ps;
};
int probe_cost(unsigned calls, struct probe_cost *c, struct out *err);

/* The views (prof/probe_views.c). */
void probe_print_list(struct out *o);
void probe_print_show(struct out *o, const struct probe *p, bool hist);
/* @p's callers as a folded block (`stack`): "pid-name;root;...;caller;FUNC
 * count", the profiler's writer and format (src/lib/folded_write.h). */
void probe_print_folded(struct out *o, const struct probe *p);
void probe_print_sites(struct out *o, bool all);

#endif
