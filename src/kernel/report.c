/* SPDX-License-Identifier: BSD-2-Clause */
#include "kernel/report.h"

#include "hal/trap.h"
#include "kernel/backtrace.h"
#include "kernel/fold.h"
#include "kernel/symbols.h"
#include "lib/errno.h"
#include "lib/out.h"

/* Frame 0 outside the image, where the platform names such code: host
 * library code keeps no frame pointer, so the walk starts from our
 * caller's frame and that immediate caller is not known. */
static bool report_foreign_leaf(const struct prof_record *r)
{
	return hal_trap_foreign_name() && r->nframes && !sym_in_image(r->frames[0]);
}

static bool report_keeps(const struct prof_report_in *in,
			 const struct prof_record *r)
{
	return in->pid == PROF_PID_ALL || r->pid == in->pid;
}

/* "31.2%": tenths of a percent, rounded half up, integers only. */
static void report_percent(struct out *o, uint64_t part, uint64_t whole)
{
	uint64_t tenths = whole ? (part * 1000 + whole / 2) / whole : 0;

	out_printf(o, "%llu.%llu%%", (unsigned long long)(tenths / 10),
		   (unsigned long long)(tenths % 10));
}

/* "cpu 2" or "cpus 1,3"; returns how many CPUs @mask names. */
static unsigned report_cpu_list(struct out *o, uint32_t mask)
{
	unsigned n = 0;

	for (unsigned cpu = 0; cpu < 32; cpu++)
		n += (mask >> cpu) & 1;
	out_puts(o, n == 1 ? "cpu " : "cpus ");
	for (unsigned cpu = 0, seen = 0; cpu < 32; cpu++)
		if ((mask >> cpu) & 1)
			out_printf(o, "%s%u", seen++ ? "," : "", cpu);
	return n;
}

static void report_missing(struct out *o, const struct prof_report_in *in)
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
	report_percent(o, c->count, total);
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

static void report_empty(struct out *o, const struct prof_report_in *in)
{
	if (in->pid != PROF_PID_ALL)
		out_printf(o, "no samples of pid %d: the task may have slept the whole window\n",
			   in->pid);
	else if (in->counter)
		out_puts(o, "no samples: the counter counts only while a CPU runs, so idle CPUs contribute nothing; every CPU was idle the whole window\n");
	else
		out_puts(o, "no samples: no CPU took a sample in the window\n");
}

static void report_rest(struct out *o, const struct fold *f, size_t shown)
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
	report_percent(o, rest, f->samples);
	out_puts(o, ")\n");
}

int prof_report_print(struct out *o, const struct prof_report_in *in)
{
	uint64_t all = 0, kept = 0, dropped = 0, foreign = 0;
	unsigned cpus = 0;
	struct fold f;
	size_t shown;

	for (size_t s = 0; s < in->nsegs; s++) {
		uint64_t mine = 0;

		for (size_t i = 0; i < in->segs[s].count; i++) {
			const struct prof_record *r = &in->segs[s].recs[i];

			if (report_keeps(in, r)) {
				mine++;
				foreign += report_foreign_leaf(r);
			}
		}
		all += in->segs[s].count;
		dropped += in->segs[s].dropped;
		kept += mine;
		cpus += mine != 0;
	}
	if (fold_init(&f, kept) < 0)
		return -ENOMEM;
	for (size_t s = 0; s < in->nsegs; s++)
		for (size_t i = 0; i < in->segs[s].count; i++)
			if (report_keeps(in, &in->segs[s].recs[i]) &&
			    fold_add(&f, &in->segs[s].recs[i]) < 0) {
				fold_free(&f);
				return -ENOMEM;
			}
	fold_sort(&f);

	out_printf(o, "profiled %llu ms\n",
		   (unsigned long long)((in->window_ns + 500000) / 1000000));
	/* A full buffer drops before the pid is known. */
	out_printf(o, "%llu samples on %u cpus, %llu dropped%s, source %s\n",
		   (unsigned long long)kept, cpus, (unsigned long long)dropped,
		   in->pid != PROF_PID_ALL ? " (all tasks)" : "", in->source);
	if (in->throttled_hz)
		out_printf(o, "throttled to %llu Hz: the overflow handler took more than 2%% of a cpu\n",
			   (unsigned long long)in->throttled_hz);
	report_missing(o, in);
	if (in->pid != PROF_PID_ALL)
		out_printf(o, "pid %d only, out of %llu samples\n", in->pid,
			   (unsigned long long)all);
	if (foreign)
		out_printf(o, "%llu samples in %s code: the caller that called into it is unknown\n",
			   (unsigned long long)foreign, hal_trap_foreign_name());
	if (!kept)
		report_empty(o, in);
	/* Everything was folded; the table keeps the hottest
	 * PROF_CHAINS_MAX and prints the first @chains of them. */
	shown = f.nchains;
	if (shown > in->chains)
		shown = in->chains;
	if (shown > PROF_CHAINS_MAX)
		shown = PROF_CHAINS_MAX;
	for (size_t i = 0; i < shown; i++)
		report_chain(o, &f.chains[i], f.samples);
	report_rest(o, &f, shown);
	fold_free(&f);
	return 0;
}
