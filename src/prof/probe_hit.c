/* SPDX-License-Identifier: BSD-2-Clause */
/* The probes' handler: what the platform's trampolines call at every hit
 * of a probed function (hal/entry.h).  It runs in the probed function's
 * context, whatever that is (a tick, the NMI, a task), on any CPU at
 * once: it takes no lock, allocates nothing and calls nothing probeable
 * -- every function here is notrace, and the rest it calls is the
 * platform's (hal_cpu_id(), hal_clock_ns()), built without entries.
 *
 * Each CPU's @seq is odd while its handler runs.  A hit that finds it
 * odd is one on the handler's own path (an interrupt that landed inside
 * it): it counts as nested and does nothing else, so no handler ever
 * runs inside another on one CPU.  probe_del() waits for every CPU's
 * seq to move past an odd value it saw, after it took the probe off:
 * then no CPU is left reading the probe it is about to free. */
#include "prof/probe.h"
#include "prof/probe_internal.h"

#include "hal/entry.h"
#include "hal/probe.h"
#include "hal/timer.h"
#include "kernel/kernel.h"
#include "kernel/sched.h"
#include "kernel/stacktrace.h"
#include "kernel/task.h"
#include "lib/notrace.h"

struct probe_cpu_state probe_cpu_state[HAL_MAX_CPUS];

static notrace size_t site_index(uintptr_t site)
{
	size_t lo = 0, hi = probe_sites.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uintptr_t s = probe_sites.site[mid];

		if (s == site)
			return mid;
		if (s < site)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

static notrace void add64(uint64_t *at, uint64_t v)
{
	__atomic_store_n(at, __atomic_load_n(at, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

/* This CPU's table of tasks: open addressing on the pid. */
static notrace void copy_name(char *to, const char *from)
{
	unsigned i;

	for (i = 0; i < 15 && from[i]; i++)
		to[i] = from[i];
	to[i] = 0;
}

static notrace void count_task(struct probe_cpu *pc, int pid, const char *name)
{
	for (unsigned i = 0; i < PROBE_TASKS; i++) {
		struct probe_task_count *e = &pc->task[((unsigned)pid + i) % PROBE_TASKS];

		if (e->pid1 == pid + 1) {
			add64(&e->n, 1);
			return;
		}
		if (e->pid1 == 0) {
			e->n = 1;
			copy_name(e->name, name);
			__atomic_store_n(&e->pid1, pid + 1, __ATOMIC_RELEASE);
			return;
		}
	}
	add64(&pc->other, 1);
}

static notrace uint32_t chain_hash(int pid, const uintptr_t *f, unsigned n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)(unsigned)pid;

	for (unsigned i = 0; i < n; i++)
		h = (h ^ f[i]) * 0x100000001b3ull;
	return (uint32_t)(h ^ (h >> 32));
}

static notrace bool chain_is(const struct probe_chain *c, uint32_t hash, int pid,
			     const uintptr_t *f, unsigned n)
{
	if (c->hash != hash || c->pid != pid || c->depth != n)
		return false;
	for (unsigned i = 0; i < n; i++)
		if (c->frame[i] != f[i])
			return false;
	return true;
}

/* This CPU's table of chains: open addressing on the chain's hash.  An
 * entry is claimed with its count set last, so a reader on another CPU
 * that sees a count sees the chain. */
static notrace void count_chain(struct probe_chains *pc, const struct task *t,
				const uintptr_t *f, unsigned n)
{
	int pid = t ? t->pid : -1;
	uint32_t h = chain_hash(pid, f, n);

	for (unsigned i = 0; i < PROBE_CHAINS; i++) {
		struct probe_chain *c = &pc->chain[(h + i) % PROBE_CHAINS];

		if (c->n == 0) {
			c->hash = h;
			c->pid = pid;
			copy_name(c->name, t ? t->name : "");
			c->depth = n;
			for (unsigned k = 0; k < n; k++)
				c->frame[k] = f[k];
			__atomic_store_n(&c->n, 1, __ATOMIC_RELEASE);
			return;
		}
		if (chain_is(c, h, pid, f, n)) {
			add64(&c->n, 1);
			return;
		}
	}
	add64(&pc->other, 1);
}

/* The probed function's callers: the walk from this handler's own frame
 * reads the trampoline's return, then the two records every platform's
 * entry trampoline builds (hal/probe.h): the probed function's (its
 * entry), then its caller's, where the chain starts. */
#define HANDLER_FRAMES 2

static notrace void record_stack(struct probe_chains *pc, struct task *t)
{
	uintptr_t f[PROBE_STACK_DEPTH + HANDLER_FRAMES];
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	struct stack_bounds b;
	size_t n = 0;

	if (stacktrace_bounds_for(fp, &b))
		n = stacktrace_from_fp(fp, &b, f, PROBE_STACK_DEPTH + HANDLER_FRAMES);
	if (n <= HANDLER_FRAMES) {
		add64(&pc->other, 1);
		return;
	}
	count_chain(pc, t, f + HANDLER_FRAMES, (unsigned)(n - HANDLER_FRAMES));
}

static notrace unsigned log2_bucket(uint64_t ns)
{
	unsigned b = ns ? 63u - (unsigned)__builtin_clzll(ns) : 0;

	return b < PROBE_HIST ? b : PROBE_HIST - 1;
}

static notrace void account_time(struct probe_cpu *pc, uint64_t ns)
{
	uint64_t before = __atomic_load_n(&pc->timed, __ATOMIC_RELAXED);

	if (before == 0 || ns < __atomic_load_n(&pc->min_ns, __ATOMIC_RELAXED))
		__atomic_store_n(&pc->min_ns, ns, __ATOMIC_RELAXED);
	add64(&pc->sum_ns, ns);
	add64(&pc->timed, 1);
	if (ns > __atomic_load_n(&pc->max_ns, __ATOMIC_RELAXED))
		__atomic_store_n(&pc->max_ns, ns, __ATOMIC_RELAXED);
	add64(&pc->hist[log2_bucket(ns)], 1);
}

/* The throttle, counted per tick of this CPU (read, not asked: the tick
 * count is a word the tick writes). */
static notrace bool over_budget(struct probe_cpu *pc, uint64_t budget)
{
	uint64_t tick = __atomic_load_n(&this_cpu()->ticks, __ATOMIC_RELAXED);

	if (pc->win != tick) {
		pc->win = tick;
		pc->win_hits = 0;
	}
	if (++pc->win_hits <= budget)
		return false;
	add64(&pc->throttled, 1);
	return true;
}

static notrace bool enter(struct probe_cpu_state *cs)
{
	if (__atomic_load_n(&cs->seq, __ATOMIC_RELAXED) & 1) {
		add64(&cs->nested, 1);
		return false;
	}
	__atomic_fetch_add(&cs->seq, 1, __ATOMIC_SEQ_CST);
	return true;
}

static notrace void leave(struct probe_cpu_state *cs)
{
	__atomic_fetch_add(&cs->seq, 1, __ATOMIC_RELEASE);
}

/* Hook @t's return from the probed call: its shadow stack keeps the real
 * address first, then the slot takes the return trampoline's. */
static notrace bool hook_return(struct task *t, uintptr_t *ret_slot, unsigned slot,
				uint32_t gen)
{
	unsigned d = t->probe.depth;
	struct task_probe_frame *f;

	if (d >= TASK_PROBE_DEPTH)
		return false;
	f = &t->probe.f[d];
	f->ret = *ret_slot;
	f->slot = ret_slot;
	f->probe = slot;
	f->gen = gen;
	f->t0 = hal_clock_ns();
	__atomic_store_n(&t->probe.depth, d + 1, __ATOMIC_RELEASE);
	__atomic_store_n(ret_slot, hal_probe_ret_addr(), __ATOMIC_RELEASE);
	return true;
}

notrace void probe_entry(uintptr_t site, uintptr_t *ret_slot)
{
	unsigned cpu = hal_cpu_id();
	struct probe_cpu_state *cs = &probe_cpu_state[cpu];
	struct task *t;
	struct probe *p;
	struct probe_stats *st;
	struct probe_cpu *pc;
	size_t i;
	unsigned slot;

	if (!enter(cs))
		return;
	i = site_index(site);
	slot = i == SIZE_MAX ? 0 : __atomic_load_n(&probe_sites.slot1[i], __ATOMIC_ACQUIRE);
	if (!slot--)
		goto out;
	p = &probe_table[slot];
	st = __atomic_load_n(&p->stats, __ATOMIC_ACQUIRE);
	if (!__atomic_load_n(&p->live, __ATOMIC_SEQ_CST) || !st || p->site != site)
		goto out;
	pc = &st->cpu[cpu];
	if (over_budget(pc, p->budget))
		goto out;
	add64(&pc->hits, 1);
	t = this_cpu()->current;
	if (t)
		count_task(pc, t->pid, t->name);
	else
		add64(&pc->other, 1);
	if ((p->flags & PROBE_STACK) && st->chains)
		record_stack(&st->chains[cpu], t);
	if ((p->flags & PROBE_TIME) &&
	    !(t && hook_return(t, ret_slot, slot, __atomic_load_n(&p->gen, __ATOMIC_RELAXED))))
		add64(&pc->untimed, 1);
out:
	leave(cs);
}

notrace uintptr_t probe_exit(void)
{
	uint64_t now = hal_clock_ns();
	unsigned cpu = hal_cpu_id();
	struct probe_cpu_state *cs = &probe_cpu_state[cpu];
	struct task *t = this_cpu()->current;
	struct task_probe_frame f;
	unsigned d = t ? t->probe.depth : 0;

	if (d == 0 || d > TASK_PROBE_DEPTH)
		panic("probe: a return with no shadow stack entry (depth %u)", d);
	f = t->probe.f[d - 1];
	/* From here a walk reads the real return address in the slot. */
	__atomic_store_n(f.slot, f.ret, __ATOMIC_RELAXED);
	__atomic_store_n(&t->probe.depth, d - 1, __ATOMIC_RELEASE);
	if (enter(cs)) {
		struct probe *p = &probe_table[f.probe];
		struct probe_stats *st = __atomic_load_n(&p->stats, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&p->live, __ATOMIC_SEQ_CST) && st &&
		    __atomic_load_n(&p->gen, __ATOMIC_RELAXED) == f.gen)
			account_time(&st->cpu[cpu], now - f.t0);
		leave(cs);
	}
	return f.ret;
}
