/* SPDX-License-Identifier: BSD-2-Clause */
/* Probes' management: the table of probes, putting one on a function
 * and taking it off (doc/profiler.md, "Probes").  The handler is
 * prof/probe_hit.c; the patching, the platform's (hal/probe.h).
 *
 * Taking a probe off: mark it dead, patch the entry back into its NOP
 * (from then on no CPU starts a new hit), forget the site, then wait
 * until every CPU that was inside the handler has left it -- a CPU that
 * had already called the trampoline finds the probe dead, by the same
 * sequentially consistent pair (its seq, our @live) -- and only then
 * free the counts.  A timed call still inside the function returns
 * through the trampoline later; its shadow entry names the slot and the
 * generation, and a slot reused since is another generation, so it
 * touches nothing. */
#include "prof/probe.h"
#include "prof/probe_internal.h"

#include "hal/probe.h"
#include "hal/timer.h"
#include "kernel/heap.h"
#include "kernel/symbols.h"
#include "kernel/tick.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "kernel/sched.h"

struct probe probe_table[PROBE_MAX];
struct probe_sites probe_sites;

/* One change, or one read of the counts, at a time: task context, and
 * with interrupts on, because the x86 kernel's patch waits for every
 * other CPU's tick (arch/x86_64/probe.c), and that CPU may be waiting
 * here.  A task that finds it taken gives its CPU away meanwhile. */
static bool probe_lock;

static void probe_lock_take(void)
{
	while (__atomic_exchange_n(&probe_lock, true, __ATOMIC_ACQUIRE))
		sched_yield_cpu();
}

static void probe_lock_give(void)
{
	__atomic_store_n(&probe_lock, false, __ATOMIC_RELEASE);
}

/* Functions with an entry that a probe must not go on, each with why.
 * A name ending in '*' is a prefix.  The handler itself and its helpers
 * have no entry at all (notrace, prof/probe_hit.c). */
static const struct {
	const char *name;
	const char *why;
} probe_refusals[] = {
	{ "probe_*", "the probe machinery" },
	{ "panic", "the probe machinery's own failure path" },
	{ "kernel_tick*", "trap entry: the tick" },
	{ "kernel_nmi", "NMI entry" },
	{ "kernel_pmu_took", "NMI entry" },
	{ "kernel_on_*", "trap and NMI dispatch" },
	{ "prof_sample", "the sampler (NMI and tick context)" },
	{ "prof_count_one", "the sampler (NMI and tick context)" },
	{ "prof_tick", "the sampler (NMI and tick context)" },
	{ "prof_nmi", "the sampler (NMI and tick context)" },
	{ "prof_pmu_took", "the sampler (NMI and tick context)" },
	{ "prof_cpu_*", "the sampler's per-CPU rings" },
	{ "sampler_*", "the sampler (NMI and tick context)" },
	{ "stat_tick", "the sampler (NMI and tick context)" },
	{ "stacktrace_*", "the stack walk (the sampler's, in NMI context)" },
	{ "walk_fp", "the stack walk (the sampler's, in NMI context)" },
	{ "trap_chain", "the stack walk (the sampler's, in NMI context)" },
	{ "cross_exception", "the stack walk (the sampler's, in NMI context)" },
	{ "caller_from_rule", "the stack walk (the sampler's, in NMI context)" },
	{ "walk_owner", "the stack walk (the sampler's, in NMI context)" },
	{ "sym_cfa_lookup", "the stack walk (the sampler's, in NMI context)" },
	{ "kernel_main", "early boot: runs once, before any probe, and never returns" },
	{ "kernel_ap_main", "early boot: runs once, before any probe, and never returns" },
	{ "kernel_clock_start", "early boot" },
	{ "task_exit", "never returns" },
	{ "task_trampoline", "a task's first frame: never returns" },
};

const char *probe_refused(const char *name)
{
	for (size_t i = 0; i < sizeof(probe_refusals) / sizeof(probe_refusals[0]); i++) {
		const char *r = probe_refusals[i].name;
		size_t len = kstrlen(r);

		if (r[len - 1] == '*' ? kmemcmp(name, r, len - 1) == 0 && kstrlen(name) >= len - 1
				      : kstreq(name, r))
			return probe_refusals[i].why;
	}
	return NULL;
}

/* The site table, taken once (the probe lock held). */
static int sites_init(void)
{
	const uintptr_t *s;
	size_t n;

	if (probe_sites.slot1)
		return 0;
	s = hal_probe_sites(&n);
	if (!n)
		return 0;
	probe_sites.slot1 = kzalloc(n);
	if (!probe_sites.slot1)
		return -ENOMEM;
	probe_sites.site = s;
	__atomic_store_n(&probe_sites.n, n, __ATOMIC_RELEASE);
	return 0;
}

static size_t site_of(uintptr_t addr)
{
	size_t lo = 0, hi = probe_sites.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (probe_sites.site[mid] == addr)
			return mid;
		if (probe_sites.site[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

struct probe *probe_find(const char *name)
{
	for (unsigned i = 0; i < PROBE_MAX; i++)
		if (probe_table[i].live && kstreq(probe_table[i].name, name))
			return &probe_table[i];
	return NULL;
}

/* Every CPU that was inside the handler when this started has left it. */
static void wait_handlers(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned c = 0; c < HAL_MAX_CPUS; c++) {
		uint64_t s = __atomic_load_n(&probe_cpu_state[c].seq, __ATOMIC_SEQ_CST);

		if (s & 1)
			while (__atomic_load_n(&probe_cpu_state[c].seq, __ATOMIC_ACQUIRE) == s)
				hal_cpu_relax();
	}
}

/* Take @p off; the probe lock held.  Returns its counts to free. */
static struct probe_stats *take_off(struct probe *p)
{
	struct probe_stats *st = p->stats;
	size_t i = site_of(p->site);

	__atomic_store_n(&p->live, false, __ATOMIC_SEQ_CST);
	hal_probe_patch(p->site, false);
	if (i != SIZE_MAX)
		__atomic_store_n(&probe_sites.slot1[i], 0, __ATOMIC_RELEASE);
	wait_handlers();
	__atomic_store_n(&p->stats, NULL, __ATOMIC_RELEASE);
	return st;
}

static void stats_free(struct probe_stats *st)
{
	if (st)
		kfree(st->chains);
	kfree(st);
}

static struct probe *free_slot(void)
{
	for (unsigned i = 0; i < PROBE_MAX; i++)
		if (!probe_table[i].live && !probe_table[i].stats)
			return &probe_table[i];
	return NULL;
}

/* Checks that need no lock: the function, its entry, the refusals. */
static int probe_check(const char *name, struct sym_hit *hit, size_t *idx, struct out *err)
{
	const char *why;

	if (!sym_find(name, hit)) {
		out_printf(err, "probe: no function %s in this image\n", name);
		return -ENOENT;
	}
	/* Static functions of one name in several files: the first that
	 * has an entry. */
	for (size_t i = 0, n = sym_count(); site_of(hit->start) == SIZE_MAX && i < n; i++) {
		struct sym_hit h;

		sym_nth(i, &h);
		if (kstreq(h.name, name) && site_of(h.start) != SIZE_MAX)
			*hit = h;
	}
	if ((why = probe_refused(hit->name)) != NULL) {
		out_printf(err, "probe: %s is refused: %s\n", name, why);
		return -EPERM;
	}
	*idx = site_of(hit->start);
	if (*idx == SIZE_MAX) {
		out_printf(err, "probe: %s has no patchable entry (notrace, inlined "
			   "or the platform's code; `probe sites` lists them)\n", name);
		return -EPERM;
	}
	if (!hal_probe_site_ok(hit->start)) {
		out_printf(err, "probe: %s's entry is not the NOP this platform patches\n", name);
		return -EINVAL;
	}
	return 0;
}

int probe_add(const char *name, unsigned flags, struct out *err)
{
	struct probe_stats *st = kzalloc(sizeof(*st)), *old = NULL;
	struct sym_hit hit;
	struct probe *p;
	size_t idx = 0;
	int rc;

	if (st && (flags & PROBE_STACK) &&
	    !(st->chains = kzalloc(HAL_MAX_CPUS * sizeof(*st->chains)))) {
		kfree(st);
		st = NULL;
	}
	if (!st) {
		out_printf(err, "probe: out of memory for %s's counts\n", name);
		return -ENOMEM;
	}
	probe_lock_take();
	rc = sites_init();
	if (rc == 0 && probe_sites.n == 0) {
		out_printf(err, "probe: this platform's image has no patchable entries\n");
		rc = -ENODEV;
	}
	if (rc == 0)
		rc = probe_check(name, &hit, &idx, err);
	if (rc == 0 && (p = probe_find(hit.name)) != NULL)
		old = take_off(p);
	if (rc == 0 && !(p = free_slot())) {
		out_printf(err, "probe: all %u probes are in use\n", PROBE_MAX);
		rc = -ENOSPC;
	}
	if (rc == 0) {
		p->gen++;
		p->flags = flags;
		p->budget = flags & PROBE_UNTHROTTLED ? UINT64_MAX
			    : PROBE_BUDGET_PER_SEC / (tick_hz() ? tick_hz() : 1);
		p->site = hit.start;
		p->name = hit.name;
		p->added_ns = hal_clock_ns();
		__atomic_store_n(&p->stats, st, __ATOMIC_RELEASE);
		__atomic_store_n(&p->live, true, __ATOMIC_SEQ_CST);
		__atomic_store_n(&probe_sites.slot1[idx], (uint8_t)(p - probe_table + 1),
				 __ATOMIC_RELEASE);
		rc = hal_probe_patch(p->site, true);
		if (rc) {
			out_printf(err, "probe: cannot patch %s's entry (error %d)\n", name, -rc);
			stats_free(take_off(p));
		}
		st = NULL;
	}
	probe_lock_give();
	stats_free(st);
	stats_free(old);
	return rc;
}

int probe_del(const char *name, struct out *err)
{
	struct probe_stats *gone[PROBE_MAX];
	unsigned n = 0;

	probe_lock_take();
	for (unsigned i = 0; i < PROBE_MAX; i++) {
		struct probe *p = &probe_table[i];

		if (p->live && (!name || kstreq(p->name, name)))
			gone[n++] = take_off(p);
	}
	probe_lock_give();
	for (unsigned i = 0; i < n; i++)
		stats_free(gone[i]);
	if (name && n == 0) {
		out_printf(err, "probe: no probe on %s (`probe list` lists them)\n", name);
		return -ENOENT;
	}
	return 0;
}

/* The counts of @p, read under the probe lock (a probe_del() frees them). */
static void probe_sum_locked(const struct probe *p, struct probe_sum *s)
{
	const struct probe_stats *st = p->stats;

	kmemset(s, 0, sizeof(*s));
	if (!st)
		return;
	for (unsigned c = 0; c < HAL_MAX_CPUS; c++) {
		const struct probe_cpu *pc = &st->cpu[c];
		uint64_t timed = __atomic_load_n(&pc->timed, __ATOMIC_RELAXED);

		s->hits += __atomic_load_n(&pc->hits, __ATOMIC_RELAXED);
		s->throttled += __atomic_load_n(&pc->throttled, __ATOMIC_RELAXED);
		s->untimed += __atomic_load_n(&pc->untimed, __ATOMIC_RELAXED);
		s->other += __atomic_load_n(&pc->other, __ATOMIC_RELAXED);
		if (timed) {
			uint64_t mn = __atomic_load_n(&pc->min_ns, __ATOMIC_RELAXED);
			uint64_t mx = __atomic_load_n(&pc->max_ns, __ATOMIC_RELAXED);

			if (s->timed == 0 || mn < s->min_ns)
				s->min_ns = mn;
			if (mx > s->max_ns)
				s->max_ns = mx;
		}
		s->timed += timed;
		s->sum_ns += __atomic_load_n(&pc->sum_ns, __ATOMIC_RELAXED);
		for (unsigned b = 0; b < PROBE_HIST; b++)
			s->hist[b] += __atomic_load_n(&pc->hist[b], __ATOMIC_RELAXED);
	}
}

void probe_sum(const struct probe *p, struct probe_sum *s)
{
	probe_lock_take();

	probe_sum_locked(p, s);
	probe_lock_give();
}

static uint64_t probe_task_hits_locked(const struct probe *p, int pid)
{
	const struct probe_stats *st = p->stats;
	uint64_t n = 0;

	if (!st)
		return 0;
	for (unsigned c = 0; c < HAL_MAX_CPUS; c++)
		for (unsigned i = 0; i < PROBE_TASKS; i++) {
			const struct probe_task_count *e = &st->cpu[c].task[i];

			if (__atomic_load_n(&e->pid1, __ATOMIC_ACQUIRE) == pid + 1)
				n += __atomic_load_n(&e->n, __ATOMIC_RELAXED);
		}
	return n;
}

uint64_t probe_task_hits(const struct probe *p, int pid)
{
	uint64_t n;

	probe_lock_take();
	n = probe_task_hits_locked(p, pid);

	probe_lock_give();
	return n;
}

size_t probe_tasks(const struct probe *p, struct probe_task_count *out, size_t max,
		   uint64_t *per_cpu)
{
	const struct probe_stats *st;
	size_t n = 0;

	probe_lock_take();
	st = p->stats;
	for (unsigned c = 0; st && c < HAL_MAX_CPUS; c++) {
		per_cpu[c] = __atomic_load_n(&st->cpu[c].hits, __ATOMIC_RELAXED);
		for (unsigned i = 0; i < PROBE_TASKS; i++) {
			int pid1 = __atomic_load_n(&st->cpu[c].task[i].pid1, __ATOMIC_ACQUIRE);
			uint64_t v = __atomic_load_n(&st->cpu[c].task[i].n, __ATOMIC_RELAXED);
			size_t j;

			if (!pid1)
				continue;
			for (j = 0; j < n && out[j].pid1 != pid1; j++)
				;
			if (j == n) {
				if (n == max)
					continue;
				out[n].pid1 = pid1;
				kmemcpy(out[n].name, st->cpu[c].task[i].name, sizeof(out[n].name));
				out[n].name[sizeof(out[n].name) - 1] = 0;
				out[n++].n = 0;
			}
			out[j].n += v;
		}
	}
	probe_lock_give();
	return n;
}

uint64_t probe_nested(void)
{
	uint64_t n = 0;

	for (unsigned c = 0; c < HAL_MAX_CPUS; c++)
		n += __atomic_load_n(&probe_cpu_state[c].nested, __ATOMIC_RELAXED);
	return n;
}

size_t probe_site_count(void)
{
	size_t n;

	probe_lock_take();
	sites_init();
	n = probe_sites.n;
	probe_lock_give();
	return n;
}

bool probe_has_site(uintptr_t addr)
{
	return site_of(addr) != SIZE_MAX;
}

size_t probe_chains_read(const struct probe *p, struct probe_chain *out, size_t max,
			 uint64_t *other)
{
	const struct probe_stats *st;
	size_t n = 0;

	probe_lock_take();
	st = p->stats;
	*other = 0;
	for (unsigned c = 0; st && st->chains && c < HAL_MAX_CPUS; c++) {
		const struct probe_chains *pc = &st->chains[c];

		*other += __atomic_load_n(&pc->other, __ATOMIC_RELAXED);
		for (unsigned i = 0; i < PROBE_CHAINS; i++) {
			uint64_t v = __atomic_load_n(&pc->chain[i].n, __ATOMIC_ACQUIRE);

			if (!v)
				continue;
			if (n == max) {
				*other += v;
				continue;
			}
			out[n] = pc->chain[i];
			out[n++].n = v;
		}
	}
	probe_lock_give();
	return n;
}
