/* SPDX-License-Identifier: BSD-2-Clause */
/* profile: sample, then print the report; or begin, end and view a
 * session that lasts.  One parser for the whole grammar:
 *
 *   profile [ms] [pid|all] [chains] [option...]   one window, then a report
 *   profile start [pid|all] [option...]           open-ended
 *   profile stop                                  ends it, keeps its data
 *   profile rotate SEQ [folded|addr|weight]       interval SEQ; the newest
 *                                                 closes, SEQ+1 opens
 *   profile show [text [chains]|folded [addr|weight] [cpus]|cpus|tasks|top [n]]
 *   option: depth=N (1-32)  hz=N (the counter: 10-10000; the tick only
 *           its own rate)  source=tick|pmu (this run's, beside the boot's
 *           profile.source=)  folded (first form: the folded view)
 *           addr (after folded: each frame as its address)
 *           weight (after folded: each line's time in ns after its count)
 *           cpus (after folded: each CPU's lines apart, under its CPU)
 *           wall (a wall-clock profile too: every task's time running,
 *           runnable and blocked; the text, tasks and folded views show it)
 *           services (after wall; show's views of a wall session take it
 *           last: kprof's own service tasks shown, which they hide)
 */
#include <stdint.h>

#include "hal/pmu.h"
#include "hal/timer.h"
#include "prof/profiler.h"
#include "prof/folded.h"
#include "prof/report.h"
#include "kernel/build_id.h"
#include "kernel/sched.h"
#include "prof/session.h"
#include "prof/stat.h"
#include "prof/wall.h"
#include "kernel/task.h"
#include "kernel/tick.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "shell/commands.h"
#include "shell/shell.h"

#define PROFILE_OPTIONS "depth=N, hz=N, source=tick|pmu, folded [addr|weight] [cpus], wall [services]"
#define PROFILE_SHOW_VIEWS "text [chains], folded [addr|weight] [cpus], cpus, tasks or top [n]"

struct profile_args {
	uint64_t window_ms;
	int pid;
	unsigned chains;
	unsigned depth;
	unsigned hz;		/* 0: the source's default */
	enum prof_run_source source;
	bool folded;
	unsigned how;		/* the folded view's FOLD_VIEW_ADDR, _CPUS, _WEIGHT */
	bool wall;		/* a wall-clock profile besides the samples */
	bool services;		/* its views show kprof's service tasks */
};

static int profile_parse_window(struct out *o, const char *s, uint64_t *ms)
{
	int r = parse_u64(s, ms);

	if (r == -EINVAL) {
		out_printf(o, "profile: window must be a number of ms (got %s)\n", s);
		return -EINVAL;
	}
	if (r < 0 || *ms < PROF_WINDOW_MIN_MS || *ms > PROF_WINDOW_MAX_MS) {
		out_printf(o, "profile: window must be %d-%d ms (got %s)\n",
			   PROF_WINDOW_MIN_MS, PROF_WINDOW_MAX_MS, s);
		return -ERANGE;
	}
	return 0;
}

static int profile_parse_pid(struct out *o, const char *s, int *pid)
{
	uint64_t v;
	int r;

	if (kstreq(s, "all")) {
		*pid = PROF_PID_ALL;
		return 0;
	}
	r = parse_u64(s, &v);
	if (r == -EINVAL) {
		out_printf(o, "profile: pid must be a number or all (got %s)\n", s);
		return -EINVAL;
	}
	/* Too large to be a pid is the same as naming no task. */
	if (r < 0 || v > INT32_MAX || !task_exists((int)v)) {
		out_printf(o, "profile: no task with pid %s\n", s);
		return -ENOENT;
	}
	*pid = (int)v;
	return 0;
}

static int profile_parse_chains(struct out *o, const char *s, unsigned *chains)
{
	uint64_t v;
	int r = parse_u64(s, &v);

	if (r == -EINVAL) {
		out_printf(o, "profile: chains must be a number (got %s)\n", s);
		return -EINVAL;
	}
	if (r < 0 || v < PROF_CHAINS_MIN || v > PROF_CHAINS_MAX) {
		out_printf(o, "profile: chains must be %d-%d (got %s)\n",
			   PROF_CHAINS_MIN, PROF_CHAINS_MAX, s);
		return -ERANGE;
	}
	*chains = (unsigned)v;
	return 0;
}

/* A number in [lo, hi] for option @key ("depth"), from @s. */
static int profile_parse_number(struct out *o, const char *key, const char *s,
				unsigned lo, unsigned hi, unsigned *v)
{
	uint64_t n;
	int r = parse_u64(s, &n);

	if (r == -EINVAL) {
		out_printf(o, "profile: %s must be a number (got %s=%s)\n", key, key, s);
		return -EINVAL;
	}
	if (r < 0 || n < lo || n > hi) {
		out_printf(o, "profile: %s must be %u-%u (got %s)\n", key, lo, hi, s);
		return -ERANGE;
	}
	*v = (unsigned)n;
	return 0;
}

/* source=tick|pmu: this run's source, whatever the boot chose. */
static int profile_parse_source(struct out *o, const char *s,
				enum prof_run_source *source)
{
	if (kstreq(s, "tick"))
		*source = PROF_RUN_TICK;
	else if (kstreq(s, "pmu"))
		*source = PROF_RUN_PMU;
	else {
		out_printf(o, "profile: source must be tick or pmu (got source=%s)\n", s);
		return -EINVAL;
	}
	return 0;
}

static bool profile_is_option(const char *w)
{
	return kmemchr(w, '=', kstrlen(w)) || kstreq(w, "folded") ||
	       kstreq(w, "addr") || kstreq(w, "cpus") || kstreq(w, "wall") ||
	       kstreq(w, "weight") || kstreq(w, "services");
}

/* One OPTION word; @folded_ok: the form prints a report. */
static int profile_parse_option(struct out *o, const char *w, bool folded_ok,
				struct profile_args *a)
{
	if (kstarts_with(w, "depth="))
		return profile_parse_number(o, "depth", w + 6, PROF_DEPTH_MIN,
					    PROF_MAX_FRAMES, &a->depth);
	if (kstarts_with(w, "hz="))
		return profile_parse_number(o, "hz", w + 3, PROF_HZ_MIN,
					    PROF_HZ_MAX, &a->hz);
	if (kstarts_with(w, "source="))
		return profile_parse_source(o, w + 7, &a->source);
	if (kstreq(w, "folded") && folded_ok) {
		a->folded = true;
		return 0;
	}
	if (kstreq(w, "folded")) {
		out_puts(o, "profile: folded goes with a window (profile MS ... folded); after profile stop use profile show folded\n");
		return -EINVAL;
	}
	if (kstreq(w, "wall")) {
		a->wall = true;
		return 0;
	}
	if (kstreq(w, "services") && a->wall && folded_ok) {
		a->services = true;
		return 0;
	}
	if (kstreq(w, "services")) {
		out_puts(o, "profile: services follows wall in a window (profile MS ... wall services), or ends a view of a wall session (profile show text|tasks|folded ... services)\n");
		return -EINVAL;
	}
	if (kstreq(w, "addr") && a->folded) {
		a->how |= FOLD_VIEW_ADDR;
		return 0;
	}
	if (kstreq(w, "addr")) {
		out_puts(o, "profile: addr follows folded (profile MS ... folded addr, or profile show folded addr)\n");
		return -EINVAL;
	}
	if (kstreq(w, "cpus") && a->folded) {
		a->how |= FOLD_VIEW_CPUS;
		return 0;
	}
	if (kstreq(w, "weight") && a->folded) {
		a->how |= FOLD_VIEW_WEIGHT;
		return 0;
	}
	if (kstreq(w, "weight")) {
		out_puts(o, "profile: weight follows folded (profile MS ... folded weight, or profile show folded weight)\n");
		return -EINVAL;
	}
	if (kstreq(w, "cpus")) {
		out_puts(o, "profile: cpus follows folded (profile MS ... folded [addr] cpus, or profile show folded [addr] cpus; profile show cpus is the table of cpus)\n");
		return -EINVAL;
	}
	out_printf(o, "profile: unknown option '%s' (options: " PROFILE_OPTIONS ")\n", w);
	return -EINVAL;
}

static void profile_defaults(struct profile_args *a)
{
	a->window_ms = PROF_WINDOW_DEFAULT_MS;
	a->pid = PROF_PID_ALL;
	a->chains = PROF_CHAINS_DEFAULT;
	a->depth = PROF_DEPTH_DEFAULT;
	a->hz = 0;
	a->source = PROF_RUN_BOOT;
	a->folded = false;
	a->how = 0;
	a->wall = false;
	a->services = false;
}

/* profile [ms] [pid|all] [chains] [option...] */
static int profile_parse(struct out *o, int argc, char **argv,
			 struct profile_args *a)
{
	int i = 1, pos = 0;

	profile_defaults(a);
	for (; i < argc && !profile_is_option(argv[i]); i++, pos++) {
		if (pos == 3) {
			out_puts(o, "profile: too many arguments (usage: " CMD_PROFILE_RUN_USAGE ")\n");
			return -E2BIG;
		}
		if (pos == 0 && profile_parse_window(o, argv[i], &a->window_ms) < 0)
			return -EINVAL;
		if (pos == 1 && profile_parse_pid(o, argv[i], &a->pid) < 0)
			return -EINVAL;
		if (pos == 2 && profile_parse_chains(o, argv[i], &a->chains) < 0)
			return -EINVAL;
	}
	for (; i < argc; i++) {
		if (!profile_is_option(argv[i])) {
			out_printf(o, "profile: options come last (got %s after them; usage: " CMD_PROFILE_RUN_USAGE ")\n",
				   argv[i]);
			return -EINVAL;
		}
		if (profile_parse_option(o, argv[i], true, a) < 0)
			return -EINVAL;
	}
	return 0;
}

/* profile start [pid|all] [option...] */
static int profile_parse_start(struct out *o, int argc, char **argv,
			       struct profile_args *a)
{
	int i = 2;

	profile_defaults(a);
	if (i < argc && !profile_is_option(argv[i]) &&
	    profile_parse_pid(o, argv[i++], &a->pid) < 0)
		return -EINVAL;
	for (; i < argc; i++) {
		if (!profile_is_option(argv[i])) {
			out_printf(o, "profile: start takes [pid|all] then options (got %s; options: " PROFILE_OPTIONS ")\n",
				   argv[i]);
			return -EINVAL;
		}
		if (profile_parse_option(o, argv[i], false, a) < 0)
			return -EINVAL;
	}
	return 0;
}

/* Why the counter cannot be the source, in a few words. */
static const char *profile_why_no_counter(const struct hal_pmu_info *info)
{
	if (info->why_not[0])
		return info->why_not;
	if (info->counts)
		return "its rate is unknown";
	return info->claimed ? "it did not prove itself" : "no counter";
}

/* The probe's verdict decides the source and what hz= may be: the
 * counter takes any rate in range, the tick only its own.  Fills in the
 * default. */
static int profile_check_source(struct out *o, struct profile_args *a)
{
	const struct hal_pmu_info *info = prof_pmu_info();

	if (a->source == PROF_RUN_PMU && !prof_counter_counts(info)) {
		out_printf(o, "profile: source=pmu, but the counter does not count (%s)\n",
			   profile_why_no_counter(info));
		return -ENODEV;
	}
	if (a->source == PROF_RUN_BOOT && prof_counter_required_but_absent(info)) {
		out_printf(o, "profile: profile.source=pmu, but the counter does not count (%s)\n",
			   profile_why_no_counter(info));
		return -ENODEV;
	}
	if (prof_run_uses_counter(info, a->source)) {
		if (!a->hz)
			a->hz = PROF_COUNTER_HZ;
		return 0;
	}
	if (a->hz && a->hz != tick_hz()) {
		/* The rate is the boot's (tick.hz=): say how to get another. */
		out_printf(o, "profile: the source is the tick (%s), which samples at %u Hz only (got hz=%u; tick.hz=%u-%u at boot sets it)\n",
			   tick_source(), tick_hz(), a->hz, TICK_HZ_MIN, TICK_HZ_MAX);
		return -EINVAL;
	}
	a->hz = tick_hz();
	return 0;
}

static void profile_options(const struct profile_args *a, struct prof_options *opt)
{
	opt->depth = a->depth;
	opt->hz = a->hz;
	opt->pid = a->pid;
	opt->source = a->source;
	opt->wall = a->wall;
}

static int profile_start_error(struct out *o, int r)
{
	if (r == -EBUSY)
		out_puts(o, "profile: busy\n");
	else if (r == -EINPROGRESS)
		stat_print_still_open(o, "profile: stat's counter");
	else if (r == -ENODEV)
		out_puts(o, "profile: source=pmu, but the counter does not count\n");
	else if (r == -EAGAIN)
		out_puts(o, "profile: the depth cannot change yet: a cpu of the last run has not acknowledged its stop and may still be writing a sample at the last depth\n");
	else if (r == -EPERM)
		out_puts(o, "profile: a window would replace the kept session, which a UDP shell without a key may not do (profile show reads it)\n");
	else
		out_puts(o, "profile: out of memory for the sample buffers\n");
	return 1;
}

static int profile_window(struct shell_ctx *sh, int argc, char **argv)
{
	struct prof_options opt;
	struct profile_args a;
	const struct prof_data *d;
	unsigned how;
	int r;

	if (profile_parse(sh->out, argc, argv, &a) < 0 ||
	    profile_check_source(sh->out, &a) < 0)
		return 1;
	if (a.wall && (a.how & FOLD_VIEW_CPUS)) {
		out_puts(sh->out, "profile: folded cpus has no wall form (use wall with folded, or folded cpus without wall)\n");
		return 1;
	}
	if (a.wall && (a.how & FOLD_VIEW_WEIGHT)) {
		out_puts(sh->out, "profile: folded weight has no wall form (a wall view's counts are its time already: use wall with folded)\n");
		return 1;
	}
	profile_options(&a, &opt);
	/* Keyless changes nothing: its window may replace only another
	 * keyless window, never a session someone else keeps. */
	r = prof_session_window(&opt, a.window_ms, sh->remote && !sh->authenticated);
	if (r < 0)
		return profile_start_error(sh->out, r);
	/* The profiler is still ours: no other shell's session can replace
	 * the data while it prints. */
	d = prof_last();
	how = a.how | (a.services ? FOLD_VIEW_SERVICES : 0);
	if (d->wall && a.folded)
		r = prof_view_wall_folded_as(sh->out, d, a.pid, how);
	else if (d->wall)
		r = prof_view_wall_text(sh->out, d, a.pid, a.chains, how);
	else if (a.folded)
		r = prof_view_folded_as(sh->out, d, a.pid, a.how);
	else
		r = prof_view_text(sh->out, d, a.pid, a.chains);
	prof_end();
	if (r < 0) {
		out_puts(sh->out, "profile: out of memory for the report\n");
		return 1;
	}
	return 0;
}

static int profile_start(struct shell_ctx *sh, int argc, char **argv)
{
	struct prof_options opt;
	struct profile_args a;
	int r;

	/* A session runs on until someone stops it: a forged datagram must
	 * not leave one sampling every CPU (the window form ends by itself). */
	if (shell_refuse_unauthenticated(sh, "profile start"))
		return SHELL_CMD_FAILED;
	if (profile_parse_start(sh->out, argc, argv, &a) < 0 ||
	    profile_check_source(sh->out, &a) < 0)
		return 1;
	profile_options(&a, &opt);
	r = prof_session_start(&opt);
	if (r < 0)
		return profile_start_error(sh->out, r);
	out_printf(sh->out, "profile: started (depth %u, %u Hz per cpu%s); profile stop ends it\n",
		   a.depth, a.hz, a.wall ? ", wall" : "");
	return 0;
}

/* After rotations the stop closed one more interval: say which, so a
 * collector fetches it (`profile rotate N`) and its intervals add up to
 * the session. */
static void profile_stop_last_interval(struct out *o)
{
	const struct prof_interval *last;

	if (!prof_session_rotations(&last))
		return;
	out_printf(o, "profile: last interval %llu, %llu samples, %llu dropped; profile rotate %llu prints it\n",
		   (unsigned long long)last->seq,
		   (unsigned long long)last->data.samples,
		   (unsigned long long)last->data.dropped,
		   (unsigned long long)last->seq);
}

static int profile_stop(struct shell_ctx *sh, int argc)
{
	const struct prof_data *d;
	int r;

	if (argc != 2) {
		out_puts(sh->out, "profile: stop takes no arguments\n");
		return 1;
	}
	r = prof_session_stop();
	if (r == -ENOENT) {
		out_puts(sh->out, "profile: no session is running (profile start begins one)\n");
		return 1;
	}
	if (r < 0) {
		out_puts(sh->out, "profile: busy\n");
		return 1;
	}
	d = prof_last();
	out_printf(sh->out, "profile: stopped after %llu ms, %llu samples, %llu dropped; profile show prints it\n",
		   (unsigned long long)((d->window_ns + 500000) / 1000000),
		   (unsigned long long)d->samples, (unsigned long long)d->dropped);
	profile_stop_last_interval(sh->out);
	prof_end();
	return 0;
}

static int profile_rotate_print(struct out *o, const struct prof_interval *iv,
				unsigned how)
{
	return prof_view_interval(o, &iv->data, how, iv->seq, iv->start_ns,
				  iv->end_ns);
}

/* profile rotate SEQ [folded|addr|weight] */
static int profile_rotate_parse(struct out *o, int argc, char **argv,
				uint64_t *seq, unsigned *how)
{
	if (argc < 3 || argc > 4) {
		out_puts(o, "profile: rotate takes an interval number, then folded, addr or weight (profile rotate SEQ [folded|addr|weight])\n");
		return -EINVAL;
	}
	if (parse_u64(argv[2], seq) < 0 || *seq == 0) {
		out_printf(o, "profile: rotate's interval must be a number from 1 (got %s)\n",
			   argv[2]);
		return -EINVAL;
	}
	*how = 0;
	if (argc == 4 && kstreq(argv[3], "addr"))
		*how = FOLD_VIEW_ADDR;
	else if (argc == 4 && kstreq(argv[3], "weight"))
		*how = FOLD_VIEW_WEIGHT;
	else if (argc == 4 && !kstreq(argv[3], "folded")) {
		out_printf(o, "profile: rotate prints folded, addr or weight (got %s)\n",
			   argv[3]);
		return -EINVAL;
	}
	return 0;
}

static int profile_rotate_error(struct out *o, int r, uint64_t seq, uint64_t kept)
{
	if (r == -ESTALE)
		out_printf(o, "profile: interval %llu is no longer kept (the oldest kept is %llu)\n",
			   (unsigned long long)seq, (unsigned long long)kept);
	else if (r == -ERANGE)
		out_printf(o, "profile: interval %llu is not open yet (the open one is %llu)\n",
			   (unsigned long long)seq, (unsigned long long)kept);
	else if (r == -EPERM)
		out_printf(o, "profile: the session stopped; its last interval is %llu\n",
			   (unsigned long long)kept);
	else if (r == -ENOENT)
		out_puts(o, "profile: no session to rotate (profile start begins one)\n");
	else if (r == -EBUSY)
		out_puts(o, "profile: busy\n");
	else if (r == -ENOSYS)
		out_puts(o, "profile: a wall session has no intervals (profile stop, then profile show)\n");
	else
		out_puts(o, "profile: out of memory for the next interval\n");
	return 1;
}

static int profile_rotate(struct shell_ctx *sh, int argc, char **argv)
{
	const struct prof_interval *iv;
	uint64_t seq, kept = 0;
	unsigned how;
	int r;

	/* A rotate closes the interval a collector is waiting for: a forged
	 * datagram must not. */
	if (shell_refuse_unauthenticated(sh, "profile rotate"))
		return SHELL_CMD_FAILED;
	if (profile_rotate_parse(sh->out, argc, argv, &seq, &how) < 0)
		return 1;
	r = prof_session_rotate(seq, &iv, &kept);
	if (r < 0)
		return profile_rotate_error(sh->out, r, seq, kept);
	r = profile_rotate_print(sh->out, iv, how);
	prof_session_rotate_done();
	if (r < 0) {
		out_puts(sh->out, "profile: out of memory for the view\n");
		return 1;
	}
	return 0;
}

static int profile_show_usage(struct out *o, const char *got)
{
	out_printf(o, "profile: show takes " PROFILE_SHOW_VIEWS " (got %s)\n", got);
	return -EINVAL;
}

/* profile show folded [addr|weight] [cpus]: each word once, in any
 * order (addr has its weights already: weight beside it says so); a
 * wall session's views add @services. */
static int profile_show_folded(struct out *o, const struct prof_data *d,
			       int argc, char **argv, unsigned services)
{
	unsigned how = 0;

	for (int i = 3; i < argc; i++) {
		unsigned bit = kstreq(argv[i], "addr") ? FOLD_VIEW_ADDR
			     : kstreq(argv[i], "cpus") ? FOLD_VIEW_CPUS
			     : kstreq(argv[i], "weight") ? FOLD_VIEW_WEIGHT : 0;

		if (!bit || (how & bit))
			return profile_show_usage(o, argv[i]);
		how |= bit;
	}
	if (d->wall && (how & (FOLD_VIEW_CPUS | FOLD_VIEW_WEIGHT))) {
		out_puts(o, how & FOLD_VIEW_CPUS
			 ? "profile: folded cpus has no wall form (profile show folded [addr] gives the wall's)\n"
			 : "profile: folded weight has no wall form (a wall view's counts are its time already: profile show folded [addr] gives the wall's)\n");
		return -EINVAL;
	}
	return d->wall ? prof_view_wall_folded_as(o, d, d->pid, how | services)
		       : prof_view_folded_as(o, d, d->pid, how);
}

static int profile_show_print(struct out *o, const struct prof_data *d,
			      int argc, char **argv)
{
	const char *view = argc > 2 ? argv[2] : "text";
	unsigned n = PROF_CHAINS_DEFAULT, services = 0;

	/* A wall session's views hide kprof's service tasks but where the
	 * last word asks for them. */
	if (argc > 3 && kstreq(argv[argc - 1], "services") && d->wall &&
	    (kstreq(view, "text") || kstreq(view, "tasks") || kstreq(view, "folded"))) {
		services = FOLD_VIEW_SERVICES;
		argc--;
	} else if (argc > 3 && kstreq(argv[argc - 1], "services")) {
		out_puts(o, d->wall ? "profile: services ends a view of a wall session: text, tasks or folded (got it after top or cpus)\n"
			 : "profile: services ends a view of a wall session, and the last session has no wall profile (profile MS ... wall)\n");
		return -EINVAL;
	}
	if (kstreq(view, "text") || kstreq(view, "top")) {
		if (argc > 4)
			return profile_show_usage(o, argv[4]);
		if (argc == 4 && profile_parse_chains(o, argv[3], &n) < 0)
			return -EINVAL;
		if (kstreq(view, "text"))
			return d->wall ? prof_view_wall_text(o, d, d->pid, n, services)
				       : prof_view_text(o, d, d->pid, n);
		return prof_view_top(o, d, d->pid, n);
	}
	if (kstreq(view, "folded"))
		return profile_show_folded(o, d, argc, argv, services);
	if (argc > 3)
		return profile_show_usage(o, argv[3]);
	if (kstreq(view, "cpus"))
		return prof_view_cpus(o, d);
	if (kstreq(view, "tasks"))
		return d->wall ? prof_view_wall_tasks(o, d, services) : prof_view_tasks(o, d);
	return profile_show_usage(o, view);
}

static int profile_show(struct shell_ctx *sh, int argc, char **argv)
{
	const struct prof_data *d;
	int r;

	/* Holding the profiler keeps the data still while it prints. */
	if (prof_counters_claim() < 0) {
		out_puts(sh->out, prof_session_running()
			 ? "profile: a session is running; profile stop ends it first\n"
			 : "profile: busy\n");
		return 1;
	}
	d = prof_last();
	if (!d) {
		out_puts(sh->out, "profile: no session to show yet (profile MS or profile start/stop first)\n");
		prof_counters_release();
		return 1;
	}
	r = profile_show_print(sh->out, d, argc, argv);
	prof_counters_release();
	if (r == -ENOMEM)
		out_puts(sh->out, "profile: out of memory for the view\n");
	return r < 0 ? 1 : 0;
}

int cmd_profile(struct shell_ctx *sh, int argc, char **argv)
{
	if (argc > 1 && kstreq(argv[1], "start"))
		return profile_start(sh, argc, argv);
	if (argc > 1 && kstreq(argv[1], "stop"))
		return profile_stop(sh, argc);
	if (argc > 1 && kstreq(argv[1], "rotate"))
		return profile_rotate(sh, argc, argv);
	if (argc > 1 && kstreq(argv[1], "show"))
		return profile_show(sh, argc, argv);
	return profile_window(sh, argc, argv);
}
