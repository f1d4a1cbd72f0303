/* SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE
#include "sim_fixture.h"

#include <check.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hal/cpu.h"
#include "prof/profiler.h"
#include "prof/profiler_test.h"
#include "kernel/symbols.h"

static pthread_mutex_t fx_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fx_grew = PTHREAD_COND_INITIALIZER;
static char *fx_buf;
static size_t fx_len, fx_size;
static char *fx_snapshot;

static void *fx_collector(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char chunk[4096];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return NULL;
		pthread_mutex_lock(&fx_lock);
		if (fx_len + (size_t)n + 1 > fx_size) {
			fx_size = (fx_len + (size_t)n + 1) * 2;
			fx_buf = realloc(fx_buf, fx_size);
		}
		memcpy(fx_buf + fx_len, chunk, (size_t)n);
		fx_len += (size_t)n;
		fx_buf[fx_len] = '\0';
		pthread_cond_broadcast(&fx_grew);
		pthread_mutex_unlock(&fx_lock);
	}
}

void simfx_start(struct ksim_config *cfg)
{
	int p[2];
	pthread_t t;

	ck_assert_int_eq(pipe(p), 0);
	fx_size = 65536;
	fx_buf = calloc(1, fx_size);
	cfg->out_fd = p[1];
	ck_assert_int_eq(ksim_start(cfg), 0);
	/* After ksim_start(): this thread inherits its blocked signals. */
	ck_assert_int_eq(pthread_create(&t, NULL, fx_collector,
					(void *)(intptr_t)p[0]), 0);
	if (cfg->ncommands == 0)
		ck_assert_msg(simfx_wait_for(0, "> ", 5000) >= 0,
			      "no first prompt: [%s]", simfx_output());
}

const char *simfx_output(void)
{
	pthread_mutex_lock(&fx_lock);
	free(fx_snapshot);
	fx_snapshot = strdup(fx_buf ? fx_buf : "");
	pthread_mutex_unlock(&fx_lock);
	return fx_snapshot;
}

static void fx_deadline(struct timespec *ts, unsigned timeout_ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += timeout_ms / 1000;
	ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

long simfx_wait_for(size_t from, const char *needle, unsigned timeout_ms)
{
	struct timespec dl;
	long at = -1;

	fx_deadline(&dl, timeout_ms);
	pthread_mutex_lock(&fx_lock);
	for (;;) {
		if (fx_len >= from) {
			const char *hit = strstr(fx_buf + from, needle);
			if (hit) {
				at = hit - fx_buf;
				break;
			}
		}
		if (pthread_cond_timedwait(&fx_grew, &fx_lock, &dl) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&fx_lock);
	return at;
}

/* The prompt is the last thing the shell sends: output after @from that
 * ends with it is a finished command. */
static bool fx_ends_with_prompt(size_t from)
{
	return fx_len >= from + 2 && memcmp(fx_buf + fx_len - 2, "> ", 2) == 0;
}

bool simfx_wait_prompt(unsigned timeout_ms)
{
	struct timespec dl;
	bool ok;

	fx_deadline(&dl, timeout_ms);
	pthread_mutex_lock(&fx_lock);
	while (!(ok = fx_ends_with_prompt(0)))
		if (pthread_cond_timedwait(&fx_grew, &fx_lock, &dl) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&fx_lock);
	return ok;
}

char *simfx_run(const char *line, unsigned timeout_ms)
{
	struct timespec dl;
	char *out = NULL;
	size_t from;

	pthread_mutex_lock(&fx_lock);
	from = fx_len;
	pthread_mutex_unlock(&fx_lock);
	ksim_console_feed(line, strlen(line));
	ksim_console_feed("\n", 1);
	fx_deadline(&dl, timeout_ms);
	pthread_mutex_lock(&fx_lock);
	for (;;) {
		if (fx_ends_with_prompt(from)) {
			out = strndup(fx_buf + from, fx_len - from - 2);
			break;
		}
		if (pthread_cond_timedwait(&fx_grew, &fx_lock, &dl) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&fx_lock);
	return out;
}

bool simfx_poll(bool (*cond)(void *ctx), void *ctx, unsigned timeout_ms)
{
	struct timespec pause_ts = { 0, 2000000 };
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (cond(ctx))
			return true;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000 +
		    (now.tv_nsec - t0.tv_nsec) / 1000000 >= (long)timeout_ms)
			return cond(ctx);
		nanosleep(&pause_ts, NULL);
	}
}

struct fx_flags {
	volatile bool *flags;
	unsigned n;
};

static bool fx_all_set(void *ctx)
{
	const struct fx_flags *f = ctx;

	for (unsigned i = 0; i < f->n; i++)
		if (!__atomic_load_n(&f->flags[i], __ATOMIC_ACQUIRE))
			return false;
	return true;
}

bool simfx_wait_flags(volatile bool *flags, unsigned n, unsigned timeout_ms)
{
	struct fx_flags f = { flags, n };

	return simfx_poll(fx_all_set, &f, timeout_ms);
}

void simfx_stats_total(struct ksim_cpu_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned i = 0; i < ksim_cpu_count(); i++) {
		struct ksim_cpu_stats st;

		ksim_cpu_stats(i, &st);
		sum->ticks += st.ticks;
		sum->idle_ticks += st.idle_ticks;
		sum->foreign += st.foreign;
		sum->overflows += st.overflows;
		sum->unclaimed += st.unclaimed;
		sum->tick_overruns += st.tick_overruns;
	}
}

static const char *const fx_leaf[SIMFX_SPLIT_CHAINS] = {
	"split_leaf_a", "split_leaf_b", "split_leaf_c",
};
static const char *const fx_chain[SIMFX_SPLIT_CHAINS] = {
	"split_chain_a", "split_chain_b", "split_chain_c",
};

/* "name+0x1c..0x2b" or "name+0x1a": does the frame name @sym? */
static bool fx_frame_is(const char *frame, const char *sym)
{
	size_t n = strlen(sym);

	return strncmp(frame, sym, n) == 0 && frame[n] == '+';
}

void simfx_split_add(struct simfx_split *sp, const char *report)
{
	const char *line = report;

	sp->profiles++;
	while (line && *line) {
		const char *next = strchr(line, '\n');
		unsigned long count, more, held;
		char leaf[128], caller[128];
		double pct;

		if (sscanf(line, "%lf%% %lu %127s", &pct, &count, leaf) == 3) {
			sp->total += count;
			caller[0] = '\0';
			if (next)
				sscanf(next + 1, " <- %127s", caller);
			for (unsigned i = 0; i < SIMFX_SPLIT_CHAINS; i++) {
				if (!fx_frame_is(leaf, fx_leaf[i]))
					continue;
				sp->leaf[i] += count;
				if (fx_frame_is(caller, fx_chain[i]))
					sp->caller_ok[i] += count;
			}
		} else if (sscanf(line, "+ %lu more chains holding %lu", &more,
				  &held) == 2) {
			sp->total += held;
			sp->hidden += held;
		}
		line = next ? next + 1 : NULL;
	}
}

void simfx_split_truth(struct simfx_split *sp, const char *out)
{
	const char *t = strstr(out, "split truth:");

	sp->have_truth = t && sscanf(t, "split truth: split_leaf_a %lf%% "
				     "split_leaf_b %lf%% split_leaf_c %lf%%",
				     &sp->truth[0], &sp->truth[1], &sp->truth[2]) == 3;
}

unsigned long simfx_split_leaves(const struct simfx_split *sp)
{
	unsigned long n = 0;

	for (unsigned i = 0; i < SIMFX_SPLIT_CHAINS; i++)
		n += sp->leaf[i];
	return n;
}

unsigned long simfx_handler_entry_samples(unsigned long *total)
{
	unsigned long n = 0;

	for (unsigned cpu = 0; cpu < HAL_MAX_CPUS; cpu++) {
		struct prof_record r;

		for (size_t i = 0; prof_cpu_record(cpu, i, &r); i++) {
			struct sym_hit hit;

			*total += 1;
			if (r.nframes && sym_lookup(r.frames[0], &hit) &&
			    hit.start == r.frames[0] &&
			    (!strcmp(hit.name, "sim_tick_handler") ||
			     !strcmp(hit.name, "sim_preempt_handler") ||
			     !strcmp(hit.name, "sim_pmu_handler")))
				n++;
		}
	}
	return n;
}

/* A chain whose leaf is ours and that ended before the record's depth
 * ran out must end in the image: at a task's entry function, below the
 * terminating frame every stack begins with, never in host code beyond
 * it.  Two walks make no claim on where they end: one from a leaf in
 * host code, and one that left a ksim signal handler's frame (a sample
 * nested in the tick's first instructions, or in its preemption
 * handler's body) through the host's signal return into host code: both
 * go on from whatever %rbp held in code built without frame pointers
 * (sim/trap.c crosses only the tick's own marked frame, sim_tick_call). */
struct fx_chain {
	const char *text;		/* the leaf's line in the report */
	char leaf[128], outer[128];
	unsigned frames;
	bool host_since_handler;	/* a handler's frame, then only [host] */
};

static bool fx_is_signal_handler(const char *frame)
{
	return !strncmp(frame, "sim_tick_handler+", 17) ||
	       !strncmp(frame, "sim_preempt_handler+", 20) ||
	       !strncmp(frame, "sim_pmu_handler+", 16);
}

static void fx_chain_frame(struct fx_chain *ch, const char *frame)
{
	if (fx_is_signal_handler(frame))
		ch->host_since_handler = true;
	else if (strcmp(frame, "[host]") != 0)
		ch->host_since_handler = false;
	snprintf(ch->outer, sizeof(ch->outer), "%s", frame);
	ch->frames++;
}

static void fx_check_chain_end(const struct fx_chain *ch, const char *end)
{
	ck_assert_msg(ch->frames >= PROF_MAX_FRAMES || !strcmp(ch->leaf, "[host]") ||
		      strcmp(ch->outer, "[host]") != 0 || ch->host_since_handler,
		      "a chain of %u frames from %s ends in host code:\n%.*s",
		      ch->frames, ch->leaf, (int)(end - ch->text), ch->text);
}

void simfx_assert_chains_end_in_image(const char *report)
{
	const char *line = report;
	struct fx_chain ch = { .frames = 0 };

	while (line && *line) {
		const char *next = strchr(line, '\n');
		char frame[128];
		unsigned long count;
		double pct;
		bool is_leaf = sscanf(line, "%lf%% %lu %127s", &pct, &count, frame) == 3;

		if (is_leaf && ch.frames)
			fx_check_chain_end(&ch, line);
		if (is_leaf || sscanf(line, " <- %127s", frame) == 1) {
			ck_assert_msg(strncmp(frame, "0x", 2) != 0,
				      "a bare address in the report: %.*s\n%.1500s",
				      (int)(next ? next - line : (long)strlen(line)),
				      line, report);
			if (is_leaf) {
				memset(&ch, 0, sizeof(ch));
				ch.text = line;
				snprintf(ch.leaf, sizeof(ch.leaf), "%s", frame);
			}
			fx_chain_frame(&ch, frame);
		}
		line = next ? next + 1 : NULL;
	}
	if (ch.frames)
		fx_check_chain_end(&ch, report + strlen(report));
}

double simfx_leaf_share(const char *report, const char *leaf)
{
	const char *line = strchr(report, '\n');
	unsigned long total = 0, hits = 0;

	if (!line || sscanf(line + 1, "%lu samples on", &total) != 1 || !total)
		return 0.0;
	while (line && *line) {
		unsigned long count;
		char frame[128];
		double pct;

		if (sscanf(line, "%lf%% %lu %127s", &pct, &count, frame) == 3 &&
		    !strncmp(frame, leaf, strlen(leaf)) && frame[strlen(leaf)] == '+')
			hits += count;
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return 100.0 * (double)hits / (double)total;
}

/* Percent of the samples in irqsoff_spin over 2000 ms profiles, each
 * while CPU 1 spins 1700 ms of it with interrupts off, pooled until they
 * hold IRQSOFF_MIN_SAMPLES (at most IRQSOFF_MAX_WINDOWS): a host at load
 * 13-46 left one window 17 samples on 4 CPUs and none of CPU 1's spin,
 * which says nothing about the kernel.  Prints each report's first
 * lines. */
#define IRQSOFF_MIN_SAMPLES 200
#define IRQSOFF_MAX_WINDOWS 6

double simfx_irqsoff_share(const char *want_source)
{
	char header[128], *out;
	unsigned long samples = 0, total;
	double spun = 0.0, share;

	snprintf(header, sizeof(header), " dropped, source %s\n", want_source);
	for (unsigned w = 0; w < IRQSOFF_MAX_WINDOWS && samples < IRQSOFF_MIN_SAMPLES; w++) {
		out = simfx_run("test irqsoff 1 1700 200", 5000);
		ck_assert_ptr_nonnull(out);
		ck_assert_str_eq(out, "test: irqsoff on cpu 1 for 1700 ms in 200 ms\n");
		free(out);
		out = simfx_run("profile 2000 all 128", 30000);
		ck_assert_ptr_nonnull(out);
		ck_assert_msg(strstr(out, header) != NULL, "report: %.1500s", out);
		total = 0;
		if (strchr(out, '\n'))
			sscanf(strchr(out, '\n') + 1, "%lu samples on", &total);
		share = simfx_leaf_share(out, "irqsoff_spin");
		spun += share * (double)total / 100.0;
		samples += total;
		fprintf(stderr, "irqsoff, source %s, window %u: %.1f%% of %lu samples "
			"in irqsoff_spin\n%.400s\n", want_source, w + 1, share, total, out);
		free(out);
	}
	return samples ? 100.0 * spun / (double)samples : 0.0;
}

void simfx_profile_split(const char *source, unsigned long min_samples,
			 unsigned max_profiles, double tolerance,
			 struct simfx_split *sp)
{
	char cmd[64], header[128];
	unsigned long floor;
	char *out;

	memset(sp, 0, sizeof(*sp));
	snprintf(cmd, sizeof(cmd), "work start split %u", ksim_cpu_count());
	out = simfx_run(cmd, 10000);
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, "work: started split") != NULL, "got: %s", out);
	free(out);
	snprintf(header, sizeof(header), " samples on %u cpus, 0 dropped, source %s\n",
		 ksim_cpu_count(), source);
	while (simfx_split_leaves(sp) < min_samples && sp->profiles < max_profiles) {
		out = simfx_run("profile 2000 all 128", 20000);
		ck_assert_ptr_nonnull(out);
		ck_assert_msg(strstr(out, header) != NULL, "report: %.1500s", out);
		simfx_assert_chains_end_in_image(out);
		simfx_split_add(sp, out);
		free(out);
		sp->handler_entry += simfx_handler_entry_samples(&sp->records);
	}
	out = simfx_run("work stop", 20000);
	ck_assert_ptr_nonnull(out);
	simfx_split_truth(sp, out);
	ck_assert_msg(sp->have_truth, "work stop said: %s", out);
	free(out);
	fprintf(stderr, "split, source %s: %u profiles, %lu samples, %lu in leaves "
		"(a %lu b %lu c %lu), truth %.1f/%.1f/%.1f\n", source, sp->profiles,
		sp->total, simfx_split_leaves(sp), sp->leaf[0], sp->leaf[1], sp->leaf[2],
		sp->truth[0], sp->truth[1], sp->truth[2]);
	fprintf(stderr, "split, source %s: frame 1 is the leaf's own split_chain_x "
		"in %lu of %lu leaf samples (%.2f%%); %lu of %lu records have frame 0 "
		"at a signal handler's entry\n", source,
		sp->caller_ok[0] + sp->caller_ok[1] + sp->caller_ok[2],
		simfx_split_leaves(sp),
		100.0 * (double)(sp->caller_ok[0] + sp->caller_ok[1] + sp->caller_ok[2]) /
		(double)(simfx_split_leaves(sp) ? simfx_split_leaves(sp) : 1),
		sp->handler_entry, sp->records);
	ck_assert_uint_eq(sp->handler_entry, 0);
	/* A share's standard deviation is at most 50/sqrt(n) points. */
	floor = (unsigned long)(250.0 / tolerance * 250.0 / tolerance);
	if (floor > min_samples)
		floor = min_samples;
	ck_assert_msg(simfx_split_leaves(sp) >= floor,
		      "%lu leaf samples in %u profiles (want %lu: the tolerance is then 5 sigma)",
		      simfx_split_leaves(sp), sp->profiles, floor);
	for (unsigned i = 0; i < SIMFX_SPLIT_CHAINS; i++) {
		double share = 100.0 * (double)sp->leaf[i] /
			       (double)simfx_split_leaves(sp);

		ck_assert_msg(share >= sp->truth[i] - tolerance &&
			      share <= sp->truth[i] + tolerance,
			      "%s: %.1f%% of %lu leaf samples, truth %.1f%%",
			      fx_leaf[i], share, simfx_split_leaves(sp), sp->truth[i]);
		/* The leaf has no frame: only the CFA rule finds its caller. */
		ck_assert_msg(sp->caller_ok[i] * 100 >= sp->leaf[i] * 99,
			      "%s: caller first in %lu of %lu samples", fx_leaf[i],
			      sp->caller_ok[i], sp->leaf[i]);
	}
}

/* The counter ksim would use, opened and closed here: false means the
 * host refuses it (and, @with_kernel, refuses counting kernel time). */
bool simfx_perf_available(bool with_kernel)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.disabled = 1;
	a.exclude_kernel = !with_kernel;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}
