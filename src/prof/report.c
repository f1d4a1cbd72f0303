/* SPDX-License-Identifier: BSD-2-Clause */
#include "prof/report.h"
#include "prof/report_test.h"

#include "hal/trap.h"
#include "kernel/backtrace.h"
#include "prof/fold.h"
#include "kernel/symbols.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"

/* Integers only. */
void prof_print_percent(struct out *o, uint64_t part, uint64_t whole)
{
	uint64_t tenths = whole ? (part * 1000 + whole / 2) / whole : 0;

	out_printf(o, "%llu.%llu%%", (unsigned long long)(tenths / 10),
		   (unsigned long long)(tenths % 10));
}

unsigned prof_cpu_count(uint32_t mask)
{
	unsigned n = 0;

	for (; mask; mask &= mask - 1)
		n++;
	return n;
}

uint64_t prof_window_ms(const struct prof_data *d)
{
	return (d->window_ns + 500000) / 1000000;
}

void prof_print_window(struct out *o, const struct prof_data *d)
{
	out_printf(o, "profiled %llu ms\n", (unsigned long long)prof_window_ms(d));
}

/* "cpu 2" or "cpus 1,3"; returns how many CPUs @mask names. */
static unsigned report_cpu_list(struct out *o, uint32_t mask)
{
	unsigned n = prof_cpu_count(mask);

	out_puts(o, n == 1 ? "cpu " : "cpus ");
	for (unsigned cpu = 0, seen = 0; cpu < 32; cpu++)
		if ((mask >> cpu) & 1)
			out_printf(o, "%s%u", seen++ ? "," : "", cpu);
	return n;
}

static void report_missing(struct out *o, const struct prof_data *in)
{
	unsigned n;

	if (in->unarmed) {
		n = report_cpu_list(o, in->unarmed);
		out_printf(o, " did not arm within %llu ms; %s nothing\n",
			   (unsigned long long)(in->arm_wait_ns / 1000000),
			   n == 1 ? "it contributes" : "they contribute");
	}
	if (in->missing) {
		n = report_cpu_list(o, in->missing);
		out_printf(o, " did not acknowledge the stop within %llu ms; %s samples are left out\n",
			   (unsigned long long)(in->wait_ns / 1000000),
			   n == 1 ? "its" : "their");
	}
	if (in->arm_failed) {
		n = report_cpu_list(o, in->arm_failed);
		out_printf(o, " could not arm %s counter (busy or not proven); %s nothing\n",
			   n == 1 ? "its" : "their", n == 1 ? "it contributes" : "they contribute");
	}
	if (in->errors)
		out_printf(o, "%llu counter arm/disarm error%s: the counter may have missed samples\n",
			   (unsigned long long)in->errors, in->errors == 1 ? "" : "s");
}

static void report_leaf(struct out *o, const struct fold_chain *c)
{
	char buf[96];

	if (c->leaf == FOLD_FOREIGN) {
		out_puts(o, c->name);
		return;
	}
	if (c->name && c->lo != c->hi) {
		out_printf(o, "%s+0x%lx..0x%lx", c->name, (unsigned long)c->lo,
			   (unsigned long)c->hi);
		return;
	}
	/* One offset, or no symbol: exactly as a backtrace prints frame 0. */
	sym_format(buf, sizeof(buf), c->leaf + c->lo, false);
	out_puts(o, buf);
}

static void report_chain(struct out *o, const struct fold_chain *c,
			 uint64_t total)
{
	prof_print_percent(o, c->count, total);
	out_printf(o, " %llu ", (unsigned long long)c->count);
	report_leaf(o, c);
	out_puts(o, "\n");
	for (uint32_t i = 0; i < c->ncallers; i++) {
		if (c->callers[i] == FOLD_FOREIGN)
			out_printf(o, BACKTRACE_INDENT "<- %s\n", hal_trap_foreign_name());
		else
			backtrace_print_caller(o, c->callers[i]);
	}
}

/* Why a report holds no sample.  A window shorter than one sampling
 * period says nothing of idle CPUs or sleeping tasks: none need have
 * sampled in it. */
static void report_empty(struct out *o, const struct prof_data *in, int pid)
{
	uint64_t period_us = in->hz ? 1000000u / in->hz : 0;

	if (period_us && in->window_ns < period_us * 1000)
		out_printf(o, "no samples: the window was shorter than one sampling period (%llu us at %u Hz per cpu)\n",
			   (unsigned long long)period_us, in->hz);
	else if (pid != PROF_PID_ALL)
		out_printf(o, "no samples of pid %d: the task may have slept the whole window\n",
			   pid);
	else if (in->counter)
		out_puts(o, "no samples: the counter counts only while a CPU runs, so idle CPUs contribute nothing; every CPU was idle the whole window\n");
	else
		out_puts(o, "no samples: no CPU took a sample in the window\n");
}

static void report_rest(struct out *o, const struct fold *f, size_t shown,
			uint64_t total)
{
	uint64_t rest = 0;
	size_t more = f->nchains - shown;

	if (!more)
		return;
	for (size_t i = shown; i < f->nchains; i++)
		rest += f->chains[i].count;
	out_printf(o, "+ %zu more chain%s holding %llu sample%s (", more,
		   more == 1 ? "" : "s", (unsigned long long)rest,
		   rest == 1 ? "" : "s");
	prof_print_percent(o, rest, total);
	out_puts(o, ")\n");
}

/* A session's exact leaf, as its function: the text report names code. */
static void report_leaf_function(struct fold_chain *k)
{
	k->leaf = fold_leaf_function(k);
}

/* The session's chains of @pid re-folded without their task (the text
 * report's chains are code paths, whichever task ran them), sorted. */
static int report_fold(const struct prof_data *d, int pid, struct fold *t)
{
	const struct fold *f = &d->fold;

	if (fold_without_task(t, f, pid, f->exact_leaf ? report_leaf_function : NULL) < 0)
		return -ENOMEM;
	fold_sort(t);
	return 0;
}

int prof_view_text(struct out *o, const struct prof_data *d, int pid,
		   unsigned chains)
{
	uint64_t kept = 0, foreign = 0;
	uint32_t cpus = 0;
	struct fold f;
	size_t shown;

	if (report_fold(d, pid, &f) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < f.nchains; i++) {
		kept += f.chains[i].count;
		cpus |= f.chains[i].cpus;
		if (f.chains[i].leaf == FOLD_FOREIGN)
			foreign += f.chains[i].count;
	}
	/* Chains beyond the table are of every task. */
	if (pid == PROF_PID_ALL) {
		kept += d->other;
		cpus |= d->other_cpus;
	}

	prof_print_window(o, d);
	/* A full ring drops before the pid is known. */
	out_printf(o, "%llu samples on %u cpus, %llu dropped%s, source %s\n",
		   (unsigned long long)kept, prof_cpu_count(cpus),
		   (unsigned long long)d->dropped,
		   pid != PROF_PID_ALL ? " (all tasks)" : "", d->source);
	if (d->throttled_hz)
		out_printf(o, "throttled to %llu Hz: the overflow handler took more than 2%% of a cpu\n",
			   (unsigned long long)d->throttled_hz);
	report_missing(o, d);
	if (pid != PROF_PID_ALL)
		out_printf(o, "pid %d only, out of %llu samples\n", pid,
			   (unsigned long long)d->samples);
	if (d->other)
		out_printf(o, "%llu samples of every task in chains beyond the table's %zu (other)\n",
			   (unsigned long long)d->other, d->fold.limit);
	if (foreign)
		out_printf(o, "%llu samples in %s code: the caller that called into it is unknown\n",
			   (unsigned long long)foreign, hal_trap_foreign_name());
	if (!kept)
		report_empty(o, d, pid);
	/* Everything was folded; the table keeps the hottest
	 * PROF_CHAINS_MAX and prints the first @chains of them. */
	shown = f.nchains;
	if (shown > chains)
		shown = chains;
	if (shown > PROF_CHAINS_MAX)
		shown = PROF_CHAINS_MAX;
	for (size_t i = 0; i < shown; i++)
		report_chain(o, &f.chains[i], kept);
	report_rest(o, &f, shown, kept);
	fold_free(&f);
	return 0;
}

/* Records fetched ahead of the fold (see prof_report_print()). */
#define REPORT_AHEAD 8

/* Start loading @r's first two lines: its header and, at the default
 * depth, every frame (72 bytes, at most two lines at any offset).
 * Reading r->nframes to fetch exactly its frames would be a load of a
 * line not yet here, and the loop would wait on it: that cost the
 * report about a fifth of its time (doc/performance.md). */
static void report_prefetch(const struct prof_record *r)
{
	__builtin_prefetch(r);
	__builtin_prefetch((const char *)r + 64);
}

int prof_report_print(struct out *o, const struct prof_report_in *in)
{
	static struct prof_data d;
	size_t all = 0;
	int r = 0;

	kmemset(&d, 0, sizeof(d));
	for (size_t s = 0; s < in->nsegs; s++)
		all += in->segs[s].count;
	/* Rows of the whole depth: finding the deepest record first would
	 * read every record twice, and reading them is what this costs. */
	if (fold_init(&d.fold, all ? all : 1, PROF_MAX_FRAMES) < 0)
		return -ENOMEM;
	d.window_ns = in->window_ns;
	d.source = in->source;
	d.counter = in->counter;
	d.missing = in->missing;
	d.wait_ns = in->wait_ns;
	d.unarmed = in->unarmed;
	d.arm_wait_ns = in->arm_wait_ns;
	d.errors = in->errors;
	d.throttled_hz = in->throttled_hz;
	d.hz = in->hz;
	d.pid = PROF_PID_ALL;
	for (size_t s = 0; s < in->nsegs && r == 0; s++) {
		d.dropped += in->segs[s].dropped;
		for (size_t i = 0; i < in->segs[s].count && r == 0; i++) {
			/* Memory, not the fold, bounds this loop: ask for a
			 * record well ahead of the one being folded. */
			if (i + REPORT_AHEAD < in->segs[s].count)
				report_prefetch(&in->segs[s].recs[i + REPORT_AHEAD]);
			d.samples++;
			r = fold_add_cpu(&d.fold, &in->segs[s].recs[i], in->segs[s].cpu);
		}
	}
	if (r == 0)
		r = prof_view_text(o, &d, in->pid, in->chains);
	fold_free(&d.fold);
	return r < 0 ? -ENOMEM : 0;
}
