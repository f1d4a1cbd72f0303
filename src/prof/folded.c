/* SPDX-License-Identifier: BSD-2-Clause */
/* Folded stacks (`profile show folded [addr] [cpus]`, doc/profiler.md):
 * a session's fold table re-folded by function or regrouped as sampled,
 * and printed in the folded format (src/lib/folded_frame.h). */
#include "prof/folded.h"

#include "hal/trap.h"
#include "kernel/build_id.h"
#include "kernel/symbols.h"
#include "lib/errno.h"
#include "lib/folded_write.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/ticks.h"
#include "prof/fold.h"
#include "prof/report.h"

/* ---- folded stacks (`profile show folded`): the fold's own output ---- */

/* Never a ';' or a blank in a frame's name: the format uses them as
 * separators. */
static void fold_name_clean(char *name)
{
	for (char *p = name; *p; p++)
		if (*p == ';' || *p == ' ' || *p == '\t' || *p == '\n')
			*p = '_';
}

/* The function a return address lies in: its symbol's start, or the
 * address itself where no symbol covers it. */
static uintptr_t fold_caller_fn(uintptr_t ra)
{
	struct sym_hit hit;
	uintptr_t off;

	if (ra == FOLD_FOREIGN || ra == FOLD_UNKNOWN)
		return ra;
	return sym_resolve(ra, true, &hit, &off) ? hit.start : ra;
}

void fold_frame_name(char *buf, size_t size, uintptr_t fn)
{
	struct sym_hit hit;

	if (fn == FOLD_FOREIGN && hal_trap_foreign_name())
		kstrlcpy(buf, hal_trap_foreign_name(), size);
	else if (fn == FOLD_UNKNOWN)
		kstrlcpy(buf, "[unknown stack]", size);
	else if (sym_lookup(fn, &hit) && hit.start == fn)
		kstrlcpy(buf, hit.name, size);
	else
		ksnprintf(buf, size, "0x%lx", (unsigned long)fn);
	fold_name_clean(buf);
}

static void fold_put_frame(struct out *o, uintptr_t fn)
{
	char name[FOLD_NAME_MAX];

	fold_frame_name(name, sizeof(name), fn);
	out_printf(o, ";%s", name);
}

/* The root frame: "pid-name". */
static void fold_put_task(struct out *o, const struct prof_data *d, int pid)
{
	char name[PROF_TASK_NAME_MAX];

	kstrlcpy(name, prof_data_task_name(d, pid), sizeof(name));
	fold_name_clean(name);
	out_printf(o, "%d-%s", pid, name);
}

int fold_by_function(struct fold *t, const struct fold *f, int pid,
		     bool by_cpu)
{
	uintptr_t callers[PROF_MAX_FRAMES - 1];
	size_t n = f->nchains ? f->nchains : 1;

	if (fold_init_sized(t, n, f->depth, n, f->pool_used) < 0)
		return -ENOMEM;
	t->by_cpu = by_cpu;
	for (size_t i = 0; i < f->nchains; i++) {
		struct fold_chain k = f->chains[i];

		if (!fold_chain_kept(&k, pid))
			continue;
		for (uint32_t j = 0; j < k.ncallers; j++)
			callers[j] = fold_caller_fn(k.callers[j]);
		k.callers = callers;
		if (f->exact_leaf)
			k.leaf = fold_leaf_function(&k);
		k.lo = k.hi = 0;
		if (fold_merge(t, &k) < 0) {
			fold_free(t);
			return -ENOMEM;
		}
	}
	fold_sort(t);
	return 0;
}

/* The samples a view of task @pid holds: its chains', and those of
 * every task beyond the table where @pid is PROF_PID_ALL. */
static uint64_t fold_view_samples(const struct prof_data *d, int pid)
{
	uint64_t n = pid == PROF_PID_ALL ? d->other : 0;

	for (size_t i = 0; i < d->fold.nchains; i++)
		if (fold_chain_kept(&d->fold.chains[i], pid))
			n += d->fold.chains[i].count;
	return n;
}

/* The groups a folded view prints its lines in: each CPU in turn in a
 * view by CPU, else one group, every chain (FOLD_CPU_ANY). */
static unsigned fold_view_groups(unsigned how)
{
	return how & FOLD_VIEW_CPUS ? HAL_MAX_CPUS : 1;
}

static unsigned fold_view_cpu(unsigned how, unsigned group)
{
	return how & FOLD_VIEW_CPUS ? group : FOLD_CPU_ANY;
}

/* A line's root frame in a view by CPU: "cpuN;", before the task. */
static void fold_put_cpu(struct out *o, unsigned cpu)
{
	if (cpu != FOLD_CPU_ANY)
		out_printf(o, "cpu%u;", cpu);
}

/* The samples (and their weight) of every task beyond the table, taken
 * on @cpu, or on any CPU (FOLD_CPU_ANY). */
static uint64_t fold_other(const struct prof_data *d, unsigned cpu,
			   uint64_t *weight)
{
	if (cpu == FOLD_CPU_ANY) {
		*weight = d->other_weight;
		return d->other;
	}
	*weight = d->cpu_other_weight[cpu];
	return d->cpu_other[cpu];
}

/* Weight @w of the session's source in nanoseconds: weights are
 * counter events, weight_per_sec of them a second, or nanoseconds where
 * the tick sampled.  Integers only; no overflow below 2^64 ns. */
static uint64_t fold_weight_ns(const struct prof_data *d, uint64_t w)
{
	return count_to_ns(w, d->weight_per_sec ? d->weight_per_sec : 1000000000u);
}

/* A frame of the address view: its address, or the platform's name for
 * code outside the image. */
static void fold_put_addr(struct out *o, uintptr_t a)
{
	if (a == FOLD_FOREIGN && hal_trap_foreign_name())
		out_printf(o, ";%s", hal_trap_foreign_name());
	else
		out_printf(o, ";0x%lx", (unsigned long)a);
}

/* A chain's line, the task's root first: frames by name, or by address
 * (FOLD_VIEW_ADDR).  Where the head says weight=ns (the address view,
 * or FOLD_VIEW_WEIGHT) the writer puts the weight after the count. */
static void fold_put_chain(struct folded_writer *w, const struct prof_data *d,
			   const struct fold *t, const struct fold_chain *c,
			   unsigned how)
{
	void (*put)(struct out *, uintptr_t) =
		how & FOLD_VIEW_ADDR ? fold_put_addr : fold_put_frame;

	fold_put_cpu(w->o, c->cpu);
	fold_put_task(w->o, d, c->pid);
	if ((unsigned)c->ncallers + 1 >= t->depth)
		out_puts(w->o, ";" FOLD_TRUNCATED);
	for (uint32_t j = c->ncallers; j-- > 0;)
		put(w->o, c->callers[j]);
	put(w->o, c->leaf);
	folded_write_count(w, c->count, fold_weight_ns(d, c->weight));
}

/* Every line of a folded view of @t: each group's chains, then the
 * samples of its CPU (or of all, merged) beyond the session's table. */
static void fold_put_lines(struct folded_writer *w, const struct prof_data *d,
			   const struct fold *t, int pid, unsigned how)
{
	for (unsigned g = 0; g < fold_view_groups(how); g++) {
		unsigned cpu = fold_view_cpu(how, g);
		uint64_t other, weight;

		for (size_t i = 0; i < t->nchains; i++)
			if (t->chains[i].cpu == cpu)
				fold_put_chain(w, d, t, &t->chains[i], how);
		/* Stacks the table had no room for, with their samples. */
		other = fold_other(d, cpu, &weight);
		if (pid == PROF_PID_ALL && other) {
			fold_put_cpu(w->o, cpu);
			out_puts(w->o, "other");
			folded_write_count(w, other, fold_weight_ns(d, weight));
		}
	}
}

/* CPU @cpu's time out of its idle task over the window: what the
 * weights of its samples outside the idle task stand for.  By the
 * clock, less idle -- or by the CPU's own time where that is less: a
 * simulated CPU whose host did not run it was not idle, and did not run
 * either.  A CPU's books run from its arming tick to its stop's, a
 * little longer than the window the samples were kept in: its busy
 * share is taken of the window (to 1/1024). */
static uint64_t fold_cpu_busy_ns(const struct prof_data *d, unsigned cpu)
{
	uint64_t b = d->cpu_ns[cpu] > d->cpu_idle_ns[cpu]
		   ? d->cpu_ns[cpu] - d->cpu_idle_ns[cpu] : 0;

	if (d->cpu_run_ns[cpu] && d->cpu_run_ns[cpu] < b)
		b = d->cpu_run_ns[cpu];
	if (d->cpu_ns[cpu] > d->window_ns)
		b = b / 1024 * (d->window_ns / (d->cpu_ns[cpu] / 1024 + 1));
	return b;
}

/* The run's CPUs' busy time, summed. */
static uint64_t fold_busy_ns(const struct prof_data *d)
{
	uint64_t busy = 0;

	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		busy += fold_cpu_busy_ns(d, cpu);
	return busy;
}

/* `# cpu_busy_ns=0:N 1:N ...`: each CPU of the run's busy time, as
 * busy_ns sums it. */
static void fold_head_cpu_busy(struct folded_head *h, const struct prof_data *d)
{
	h->have |= FOLDED_HAS(FOLDED_F_CPU_BUSY_NS);
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++)
		if ((d->run_cpus >> cpu) & 1) {
			h->cpu_busy_mask |= 1u << cpu;
			h->cpu_busy_ns[cpu] = fold_cpu_busy_ns(d, cpu);
		}
}

/* A weighed view's keys (the address view's, and the by-name view's
 * with FOLD_VIEW_WEIGHT): each line weighs its samples in ns, and the
 * CPUs' busy time is what those weights stand for. */
static void fold_head_weight(struct folded_head *h, const struct prof_data *d,
			     unsigned how)
{
	h->have |= FOLDED_HAS(FOLDED_F_WEIGHT_NS);
	folded_head_set(h, FOLDED_F_BUSY_NS, fold_busy_ns(d));
	if (how & FOLD_VIEW_CPUS)
		fold_head_cpu_busy(h, d);
	/* The rate a throttled counter fell to: hz= no longer says it. */
	if (d->throttled_hz)
		folded_head_set(h, FOLDED_F_THROTTLED_HZ, d->throttled_hz);
}

void prof_folded_head(struct folded_head *h, const struct prof_data *d,
		      int pid, unsigned how)
{
	*h = (struct folded_head){ .have = FOLDED_HAS(FOLDED_F_SOURCE),
				   .source = d->source };
	folded_head_set(h, FOLDED_F_HZ, d->hz);
	folded_head_set(h, FOLDED_F_WINDOW_MS, prof_window_ms(d));
	folded_head_set(h, FOLDED_F_CPUS, prof_cpu_count(d->run_cpus));
	folded_head_set(h, FOLDED_F_SAMPLES, fold_view_samples(d, pid));
	folded_head_set(h, FOLDED_F_DROPPED, d->dropped);
	folded_head_set(h, FOLDED_F_OTHER, pid == PROF_PID_ALL ? d->other : 0);
	folded_head_set(h, FOLDED_F_DEPTH, d->depth);
	if (pid != PROF_PID_ALL)
		folded_head_set(h, FOLDED_F_PID, (uint64_t)(int64_t)pid);
	/* A view by CPU: each line's root frame is its CPU. */
	if (how & FOLD_VIEW_CPUS)
		h->have |= FOLDED_HAS(FOLDED_F_ROOT_CPU);
	/* Frames are addresses of the image with this build-id. */
	if (how & FOLD_VIEW_ADDR) {
		h->have |= FOLDED_HAS(FOLDED_F_FRAMES_ADDR);
		if (build_id_hex(h->build_id, sizeof(h->build_id)))
			h->have |= FOLDED_HAS(FOLDED_F_BUILD_ID);
	}
	if (how & (FOLD_VIEW_ADDR | FOLD_VIEW_WEIGHT))
		fold_head_weight(h, d, how);
}

/* @f's chains of task @pid into a new table @t as they are (exact leaves
 * and return addresses), each CPU's apart only where @by_cpu, in the
 * order @f first saw them.  Returns 0, or -ENOMEM with nothing to free. */
static int fold_regroup(struct fold *t, const struct fold *f, int pid,
			bool by_cpu)
{
	size_t n = f->nchains ? f->nchains : 1;

	if (fold_init_sized(t, n, f->depth, n, f->pool_used) < 0)
		return -ENOMEM;
	t->exact_leaf = f->exact_leaf;
	t->by_cpu = by_cpu;
	for (size_t i = 0; i < f->nchains; i++)
		if (fold_chain_kept(&f->chains[i], pid) &&
		    fold_merge(t, &f->chains[i]) < 0) {
			fold_free(t);
			return -ENOMEM;
		}
	return 0;
}

/* The by-name views re-fold the session's chains by function; the
 * address view keeps them as they were folded (the leaf the interrupted
 * instruction, the callers return addresses), only the CPUs merging
 * unless the view is by CPU, so a reader resolves every address itself
 * (kprof-report --elf, against `# build_id=`). */
int prof_view_folded_with(struct out *o, const struct prof_data *d, int pid,
			  unsigned how, const struct folded_head *h)
{
	bool by_cpu = how & FOLD_VIEW_CPUS;
	struct folded_writer w;
	struct fold t;
	int r;

	r = how & FOLD_VIEW_ADDR ? fold_regroup(&t, &d->fold, pid, by_cpu)
				 : fold_by_function(&t, &d->fold, pid, by_cpu);
	if (r < 0)
		return -ENOMEM;
	folded_write_begin(&w, o, h);
	fold_put_lines(&w, d, &t, pid, how);
	folded_write_end(&w);
	fold_free(&t);
	return 0;
}

int prof_view_folded_as(struct out *o, const struct prof_data *d, int pid,
			unsigned how)
{
	struct folded_head h;

	prof_folded_head(&h, d, pid, how);
	return prof_view_folded_with(o, d, pid, how, &h);
}

void prof_interval_head(struct folded_head *h, const struct prof_data *d,
			unsigned how, uint64_t seq, uint64_t start_ns,
			uint64_t end_ns)
{
	prof_folded_head(h, d, d->pid, how);
	folded_head_set(h, FOLDED_F_SEQ, seq);
	folded_head_set(h, FOLDED_F_START_NS, start_ns);
	folded_head_set(h, FOLDED_F_END_NS, end_ns);
	/* A collector keeps the by-name view too: it names its image. */
	if (!(how & FOLD_VIEW_ADDR) && build_id_hex(h->build_id, sizeof(h->build_id)))
		h->have |= FOLDED_HAS(FOLDED_F_BUILD_ID);
}

int prof_view_interval(struct out *o, const struct prof_data *d, unsigned how,
		       uint64_t seq, uint64_t start_ns, uint64_t end_ns)
{
	struct folded_head h;

	prof_interval_head(&h, d, how, seq, start_ns, end_ns);
	return prof_view_folded_with(o, d, d->pid, how, &h);
}

int prof_view_folded(struct out *o, const struct prof_data *d, int pid)
{
	return prof_view_folded_as(o, d, pid, 0);
}

int prof_view_folded_addr(struct out *o, const struct prof_data *d, int pid)
{
	return prof_view_folded_as(o, d, pid, FOLD_VIEW_ADDR);
}

void fold_print_task(struct out *o, const struct prof_data *d, int pid)
{
	fold_put_task(o, d, pid);
}

void fold_print_addr(struct out *o, uintptr_t a)
{
	fold_put_addr(o, a);
}
