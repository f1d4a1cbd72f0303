/* SPDX-License-Identifier: BSD-2-Clause */
/* The views of a session besides the text report (`profile show folded
 * | cpus | tasks | top`): each reads the session's fold table, so every
 * view of one session counts the same samples. */
#include "hal/trap.h"
#include "kernel/build_id.h"
#include "kernel/fold.h"
#include "kernel/heap.h"
#include "kernel/report.h"
#include "kernel/symbols.h"
#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/out.h"

/* Longest frame name a folded line carries; longer ones are cut. */
#define VIEW_NAME_MAX 96
/* The frame a folded line carries where its chain met the session's
 * depth: callers beyond it, if there were any, were not kept.  (The
 * record does not say whether the walk had more to give, so a chain
 * exactly that deep is marked too.)  A name no function has: brackets. */
#define VIEW_TRUNCATED "[truncated]"

static bool view_keeps(int pid, const struct fold_chain *c)
{
	return pid == PROF_PID_ALL || c->pid == pid;
}

static unsigned view_popcount(uint32_t mask)
{
	unsigned n = 0;

	for (; mask; mask &= mask - 1)
		n++;
	return n;
}

const char *prof_data_task_name(const struct prof_data *d, int pid)
{
	for (unsigned i = 0; i < d->ntasks; i++)
		if (d->tasks[i].pid == pid)
			return d->tasks[i].name;
	return "?";
}

void prof_print_head(struct out *o, const struct prof_data *d)
{
	uint32_t cpus = d->other_cpus;

	for (size_t i = 0; i < d->fold.nchains; i++)
		cpus |= d->fold.chains[i].cpus;
	out_printf(o, "profiled %llu ms\n",
		   (unsigned long long)((d->window_ns + 500000) / 1000000));
	out_printf(o, "%llu samples on %u cpus, %llu dropped, source %s\n",
		   (unsigned long long)d->samples, view_popcount(cpus),
		   (unsigned long long)d->dropped, d->source);
}

/* The function a return address lies in: its symbol's start, or the
 * address itself where no symbol covers it. */
static uintptr_t view_caller_fn(uintptr_t ra)
{
	struct sym_hit hit;
	uintptr_t off;

	if (ra == FOLD_FOREIGN)
		return ra;
	return sym_resolve(ra, true, &hit, &off) ? hit.start : ra;
}

/* A frame's name for a folded line: the function's name, the platform's
 * name for foreign code, or the address; never a ';' or a blank, which
 * the format uses as separators. */
static void view_frame_name(char *buf, size_t size, uintptr_t fn)
{
	struct sym_hit hit;

	if (fn == FOLD_FOREIGN && hal_trap_foreign_name())
		kstrlcpy(buf, hal_trap_foreign_name(), size);
	else if (sym_lookup(fn, &hit) && hit.start == fn)
		kstrlcpy(buf, hit.name, size);
	else
		ksnprintf(buf, size, "0x%lx", (unsigned long)fn);
	for (char *p = buf; *p; p++)
		if (*p == ';' || *p == ' ' || *p == '\t' || *p == '\n')
			*p = '_';
}

static void view_put_frame(struct out *o, uintptr_t fn)
{
	char name[VIEW_NAME_MAX];

	view_frame_name(name, sizeof(name), fn);
	out_printf(o, ";%s", name);
}

/* The root frame: "pid-name". */
static void view_put_task(struct out *o, const struct prof_data *d, int pid)
{
	char name[PROF_TASK_NAME_MAX];

	kstrlcpy(name, prof_data_task_name(d, pid), sizeof(name));
	for (char *p = name; *p; p++)
		if (*p == ';' || *p == ' ' || *p == '\t' || *p == '\n')
			*p = '_';
	out_printf(o, "%d-%s", pid, name);
}

/* The session's chains of @pid folded by function: two return
 * addresses in one caller make one frame. */
static int view_fold_functions(const struct prof_data *d, int pid,
			       struct fold *t)
{
	const struct fold *f = &d->fold;
	uintptr_t callers[PROF_MAX_FRAMES - 1];
	size_t n = f->nchains ? f->nchains : 1;

	if (fold_init_sized(t, n, f->depth, n, f->pool_used) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < f->nchains; i++) {
		struct fold_chain k = f->chains[i];

		if (!view_keeps(pid, &k))
			continue;
		for (uint32_t j = 0; j < k.ncallers; j++)
			callers[j] = view_caller_fn(k.callers[j]);
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

/* The header lines both folded views begin with; @samples: those the
 * block holds. */
static void view_folded_head(struct out *o, const struct prof_data *d, int pid,
			     uint64_t samples)
{
	out_puts(o, "# kprof folded begin\n");
	out_printf(o, "# source=%s\n", d->source);
	out_printf(o, "# hz=%u\n", d->hz);
	out_printf(o, "# window_ms=%llu\n",
		   (unsigned long long)((d->window_ns + 500000) / 1000000));
	out_printf(o, "# cpus=%u\n", view_popcount(d->run_cpus));
	out_printf(o, "# samples=%llu\n", (unsigned long long)samples);
	out_printf(o, "# dropped=%llu\n", (unsigned long long)d->dropped);
	out_printf(o, "# other=%llu\n",
		   (unsigned long long)(pid == PROF_PID_ALL ? d->other : 0));
	out_printf(o, "# depth=%u\n", d->depth);
	if (pid != PROF_PID_ALL)
		out_printf(o, "# pid=%d\n", pid);
}

int prof_view_folded(struct out *o, const struct prof_data *d, int pid)
{
	uint64_t samples = 0, lines = 0;
	struct fold t;

	if (view_fold_functions(d, pid, &t) < 0)
		return -ENOMEM;
	samples = t.samples + (pid == PROF_PID_ALL ? d->other : 0);
	view_folded_head(o, d, pid, samples);
	for (size_t i = 0; i < t.nchains; i++) {
		const struct fold_chain *c = &t.chains[i];

		view_put_task(o, d, c->pid);
		if (c->ncallers + 1 >= t.depth)
			out_puts(o, ";" VIEW_TRUNCATED);
		for (uint32_t j = c->ncallers; j-- > 0;)
			view_put_frame(o, c->callers[j]);
		view_put_frame(o, c->leaf);
		out_printf(o, " %llu\n", (unsigned long long)c->count);
		lines++;
	}
	/* Stacks the table had no room for, with their samples. */
	if (pid == PROF_PID_ALL && d->other) {
		out_printf(o, "other %llu\n", (unsigned long long)d->other);
		lines++;
	}
	out_printf(o, "# kprof folded end lines=%llu samples=%llu\n",
		   (unsigned long long)lines, (unsigned long long)samples);
	fold_free(&t);
	return 0;
}

/* Weight @w of the session's source in nanoseconds: weights are
 * counter events, weight_per_sec of them a second, or nanoseconds where
 * the tick sampled.  Integers only; no overflow below 2^64 ns. */
static uint64_t view_weight_ns(const struct prof_data *d, uint64_t w)
{
	uint64_t per = d->weight_per_sec ? d->weight_per_sec : 1000000000u;

	return w / per * 1000000000u + w % per * 1000000000u / per;
}

/* The run's CPUs' time out of their idle task over the window: what
 * the weights of samples outside the idle task stand for.  By the
 * clock, less idle -- or by the CPU's own time where that is less: a
 * simulated CPU whose host did not run it was not idle, and did not run
 * either.  A CPU's books run from its arming tick to its stop's, a
 * little longer than the window the samples were kept in: its busy
 * share is taken of the window (to 1/1024). */
static uint64_t view_busy_ns(const struct prof_data *d)
{
	uint64_t busy = 0;

	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		uint64_t b = d->cpu_ns[cpu] > d->cpu_idle_ns[cpu]
			   ? d->cpu_ns[cpu] - d->cpu_idle_ns[cpu] : 0;

		if (d->cpu_run_ns[cpu] && d->cpu_run_ns[cpu] < b)
			b = d->cpu_run_ns[cpu];
		if (d->cpu_ns[cpu] > d->window_ns)
			b = b / 1024 * (d->window_ns / (d->cpu_ns[cpu] / 1024 + 1));
		busy += b;
	}
	return busy;
}

/* A frame of the address view: its address, or the platform's name for
 * code outside the image. */
static void view_put_addr(struct out *o, uintptr_t a)
{
	if (a == FOLD_FOREIGN && hal_trap_foreign_name())
		out_printf(o, ";%s", hal_trap_foreign_name());
	else
		out_printf(o, ";0x%lx", (unsigned long)a);
}

/* The session's chains as they were folded: the leaf the interrupted
 * instruction, the callers return addresses, each line's count then its
 * weight in ns (`# weight=ns`).  The name views merge these lines by
 * function; here nothing is merged, so a reader resolves every address
 * itself (kprof-report --elf, against `# build_id=`). */
int prof_view_folded_addr(struct out *o, const struct prof_data *d, int pid)
{
	const struct fold *f = &d->fold;
	uint64_t samples = 0, lines = 0;
	char id[2 * BUILD_ID_MAX + 1];

	for (size_t i = 0; i < f->nchains; i++)
		if (view_keeps(pid, &f->chains[i]))
			samples += f->chains[i].count;
	if (pid == PROF_PID_ALL)
		samples += d->other;
	view_folded_head(o, d, pid, samples);
	out_puts(o, "# frames=addr\n");
	if (build_id_hex(id, sizeof(id)))
		out_printf(o, "# build_id=%s\n", id);
	out_puts(o, "# weight=ns\n");
	out_printf(o, "# busy_ns=%llu\n", (unsigned long long)view_busy_ns(d));
	/* The rate a throttled counter fell to: hz= no longer says it. */
	if (d->throttled_hz)
		out_printf(o, "# throttled_hz=%llu\n", (unsigned long long)d->throttled_hz);
	for (size_t i = 0; i < f->nchains; i++) {
		const struct fold_chain *c = &f->chains[i];

		if (!view_keeps(pid, c))
			continue;
		view_put_task(o, d, c->pid);
		if (c->ncallers + 1 >= f->depth)
			out_puts(o, ";" VIEW_TRUNCATED);
		for (uint32_t j = c->ncallers; j-- > 0;)
			view_put_addr(o, c->callers[j]);
		view_put_addr(o, c->leaf);
		out_printf(o, " %llu %llu\n", (unsigned long long)c->count,
			   (unsigned long long)view_weight_ns(d, c->weight));
		lines++;
	}
	if (pid == PROF_PID_ALL && d->other) {
		out_printf(o, "other %llu %llu\n", (unsigned long long)d->other,
			   (unsigned long long)view_weight_ns(d, d->other_weight));
		lines++;
	}
	out_printf(o, "# kprof folded end lines=%llu samples=%llu\n",
		   (unsigned long long)lines, (unsigned long long)samples);
	return 0;
}

int prof_view_cpus(struct out *o, const struct prof_data *d)
{
	prof_print_head(o, d);
	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		if (!((d->run_cpus >> cpu) & 1) && !d->cpu_samples[cpu])
			continue;
		out_printf(o, "cpu %u: %llu samples ", cpu,
			   (unsigned long long)d->cpu_samples[cpu]);
		prof_print_percent(o, d->cpu_samples[cpu], d->samples);
		out_puts(o, ", idle ");
		if (d->cpu_ns[cpu]) {
			prof_print_percent(o, d->cpu_idle_ns[cpu], d->cpu_ns[cpu]);
			out_puts(o, " of the window\n");
		} else {
			out_puts(o, "unknown (no stop acknowledged)\n");
		}
	}
	return 0;
}

struct view_task {
	int32_t pid;
	uint64_t count;
};

int prof_view_tasks(struct out *o, const struct prof_data *d)
{
	const struct fold *f = &d->fold;
	struct view_task *v = kmalloc((f->nchains ? f->nchains : 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < f->nchains; i++) {
		size_t j = 0;

		while (j < n && v[j].pid != f->chains[i].pid)
			j++;
		if (j == n)
			v[n++] = (struct view_task){ f->chains[i].pid, 0 };
		v[j].count += f->chains[i].count;
	}
	prof_print_head(o, d);
	/* Hottest first, then by pid: a few dozen tasks at most. */
	for (size_t i = 0; i < n; i++) {
		size_t best = i;

		for (size_t j = i + 1; j < n; j++)
			if (v[j].count > v[best].count ||
			    (v[j].count == v[best].count && v[j].pid < v[best].pid))
				best = j;
		struct view_task tmp = v[i];
		v[i] = v[best];
		v[best] = tmp;
		prof_print_percent(o, v[i].count, d->samples);
		out_printf(o, " %llu pid %d %s\n", (unsigned long long)v[i].count,
			   v[i].pid, prof_data_task_name(d, v[i].pid));
	}
	if (d->other) {
		prof_print_percent(o, d->other, d->samples);
		out_printf(o, " %llu other (chains beyond the table, any task)\n",
			   (unsigned long long)d->other);
	}
	kfree(v);
	return 0;
}

/* One function of the top view: its self and total samples. */
struct view_fn {
	uintptr_t fn;		/* symbol start, address, or FOLD_FOREIGN */
	uint64_t self, total;
};

static struct view_fn *view_fn_find(struct view_fn *v, size_t *n, uintptr_t fn)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i].fn == fn)
			return &v[i];
	v[*n] = (struct view_fn){ fn, 0, 0 };
	return &v[(*n)++];
}

/* Chains folded by function first, so each function of a chain is
 * counted once in its total however often it recurses. */
static bool view_fn_seen(const struct fold_chain *c, uint32_t upto, uintptr_t fn)
{
	if (c->leaf == fn)
		return true;
	for (uint32_t j = 0; j < upto; j++)
		if (c->callers[j] == fn)
			return true;
	return false;
}

int prof_view_top(struct out *o, const struct prof_data *d, int pid,
		  unsigned shown)
{
	struct fold t;
	struct view_fn *v;
	size_t n = 0, room;
	uint64_t kept;

	if (view_fold_functions(d, pid, &t) < 0)
		return -ENOMEM;
	room = t.nchains * t.depth + 1;
	v = kmalloc(room * sizeof(*v));
	if (!v) {
		fold_free(&t);
		return -ENOMEM;
	}
	kept = t.samples + (pid == PROF_PID_ALL ? d->other : 0);
	for (size_t i = 0; i < t.nchains; i++) {
		const struct fold_chain *c = &t.chains[i];

		view_fn_find(v, &n, c->leaf)->self += c->count;
		view_fn_find(v, &n, c->leaf)->total += c->count;
		for (uint32_t j = 0; j < c->ncallers; j++)
			if (!view_fn_seen(c, j, c->callers[j]))
				view_fn_find(v, &n, c->callers[j])->total += c->count;
	}
	prof_print_head(o, d);
	if (pid != PROF_PID_ALL)
		out_printf(o, "pid %d only: %llu samples\n", pid,
			   (unsigned long long)kept);
	out_puts(o, "self          total         function\n");
	if (shown > n)
		shown = (unsigned)n;
	for (size_t i = 0; i < shown; i++) {
		char name[VIEW_NAME_MAX], cell[24];
		struct out_buf ob;
		size_t best = i;

		for (size_t j = i + 1; j < n; j++)
			if (v[j].self > v[best].self ||
			    (v[j].self == v[best].self && (v[j].total > v[best].total ||
			     (v[j].total == v[best].total && v[j].fn < v[best].fn))))
				best = j;
		struct view_fn tmp = v[i];
		v[i] = v[best];
		v[best] = tmp;
		out_buf_init(&ob, cell, sizeof(cell));
		prof_print_percent(&ob.out, v[i].self, kept);
		out_printf(&ob.out, " %llu", (unsigned long long)v[i].self);
		out_printf(o, "%-14s", cell);
		out_buf_init(&ob, cell, sizeof(cell));
		prof_print_percent(&ob.out, v[i].total, kept);
		out_printf(&ob.out, " %llu", (unsigned long long)v[i].total);
		view_frame_name(name, sizeof(name), v[i].fn);
		out_printf(o, "%-14s%s\n", cell, name);
	}
	if (n > shown)
		out_printf(o, "+ %zu more function%s\n", n - shown,
			   n - shown == 1 ? "" : "s");
	kfree(v);
	fold_free(&t);
	return 0;
}
