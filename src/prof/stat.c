/* SPDX-License-Identifier: BSD-2-Clause */
#include "prof/stat.h"
#include "prof/stat_test.h"

#include "hal/cpu.h"
#include "hal/timer.h"
#include "prof/events.h"
#include "prof/profiler.h"
#include "prof/sampler.h"
#include "prof/stat_plan.h"
#include "prof/tick_ask.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"

/* The session as it is published, for the sampler (sampler.h).  The
 * running session, 0 when none, and the one last stopped: the stop
 * generation is published first (as the profiler's is), so a CPU that
 * sees no session also sees which one ended. */
unsigned stat_gen, stat_stop_gen;

/* The session's holder only. */
static unsigned stat_run_gen, stat_last_gen;
static uint32_t stat_run_cpus, stat_unopened, stat_unclosed;
static uint64_t stat_t0, stat_t1, stat_open_wait_ns, stat_close_wait_ns;
static struct event_table stat_table;
static struct stat_plan stat_plan;
static bool stat_listed;
static char stat_task_name[TASK_NAME_MAX];

uint64_t stat_delta(uint64_t start, uint64_t end, unsigned bits)
{
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;

	return (end - start) & mask;
}

uint64_t stat_scale(uint64_t count, uint64_t enabled_ns, uint64_t running_ns)
{
	if (!running_ns || running_ns >= enabled_ns)
		return count;
	return (uint64_t)((unsigned __int128)count * enabled_ns / running_ns);
}

/* ---- the session: task context ---- */

struct stat_find {
	int pid;
	bool found;
	unsigned cpu;
	char name[TASK_NAME_MAX];
};

static void stat_find_one(struct task *t, void *ctx)
{
	struct stat_find *f = ctx;

	if (t->pid != f->pid || t->state == TASK_DEAD)
		return;
	f->found = true;
	f->cpu = t->cpu;
	kstrlcpy(f->name, t->name, sizeof(f->name));
}

/* The plan as the CPUs read it (sampler.h), from the plan and table. */
static void stat_publish_plan(int pid, unsigned task_cpu)
{
	struct stat_run_plan *rp = &stat_run_plan;

	kmemset(rp, 0, sizeof(*rp));
	rp->n = stat_plan.n;
	rp->nsets = stat_plan.nsets;
	for (unsigned i = 0; i < stat_plan.n; i++) {
		const struct event *e = &stat_table.ev[stat_plan.ev[i]];

		rp->kernel[i] = e->kernel;
		rp->exact[i] = e->exact;
		rp->id[i] = e->id;
		rp->bits[i] = e->bits;
	}
	for (unsigned s = 0; s < rp->nsets; s++)
		for (unsigned i = 0; i < stat_plan.n; i++) {
			rp->pos[s][i] = -1;
			if (rp->kernel[i] || !((stat_plan.in_set[i] >> s) & 1) ||
			    rp->set_n[s] == HAL_PMU_COUNT_MAX)
				continue;
			rp->pos[s][i] = (int8_t)rp->set_n[s];
			rp->set_hal[s][rp->set_n[s]++] = rp->id[i];
		}
	rp->task_pid = pid;
	rp->task_cpu = task_cpu;
	kmemset(&stat_task, 0, sizeof(stat_task));
}

/* The events to count and how: @events, or the standard ones.  Prints
 * one line and returns a negative errno on bad input. */
static int stat_make_plan(struct out *o, const char *events)
{
	int r;

	events_load(&stat_table);
	stat_listed = events != NULL;
	if (events) {
		r = stat_plan_parse(&stat_table, events, &stat_plan, o);
		if (r < 0)
			return r;
	} else {
		stat_plan_standard(&stat_table, &stat_plan);
	}
	return stat_plan_sched(&stat_table, &stat_plan, o);
}

/* @pid's CPU, or -ENOENT after a line when there is no such task. */
static int stat_task_cpu(struct out *o, int pid, unsigned *cpu)
{
	struct stat_find f = { .pid = pid };

	if (!pid)
		return 0;
	task_for_each(stat_find_one, &f);
	if (!f.found) {
		out_printf(o, "stat: no task with pid %d (`ps` lists them)\n", pid);
		return -ENOENT;
	}
	*cpu = f.cpu;
	kstrlcpy(stat_task_name, f.name, sizeof(stat_task_name));
	return 0;
}

int stat_start_as(struct out *o, const char *events, int pid)
{
	unsigned n = hal_cpu_count(), task_cpu = 0;
	int r;

	if (prof_counters_claim() < 0)
		return -EBUSY;
	if (stat_cpus_still_open()) {
		prof_counters_release();
		return -EINPROGRESS;
	}
	r = stat_make_plan(o, events);
	if (r == 0)
		r = stat_task_cpu(o, pid, &task_cpu);
	if (r < 0) {
		prof_counters_release();
		return r;
	}
	stat_publish_plan(pid, task_cpu);
	sched_on_switch_count(pid ? stat_switch : NULL);
	if (n > HAL_MAX_CPUS)
		n = HAL_MAX_CPUS;
	stat_run_cpus = n >= 32 ? ~0u : (1u << n) - 1;
	stat_unopened = stat_unclosed = 0;
	stat_open_wait_ns = stat_close_wait_ns = 0;
	if (++stat_last_gen == 0)
		stat_last_gen = 1;
	stat_run_gen = stat_last_gen;
	stat_t0 = stat_t1 = hal_clock_ns();
	__atomic_store_n(&stat_gen, stat_run_gen, __ATOMIC_RELEASE);
	return 0;
}

int stat_start(void)
{
	return stat_start_as(NULL, NULL, 0);
}

/* The session's CPUs, asked to answer on their tick: opened, or read
 * their end and closed (a CPU that never opened is not asked again). */
static struct tick_ask stat_ask(uint32_t cpus, const unsigned *answer)
{
	return (struct tick_ask){ cpus, stat_run_gen, answer, sizeof(stat_cpus[0]) };
}

uint32_t stat_wait_open(uint64_t budget_ns, void (*pause)(void *ctx), void *ctx)
{
	struct tick_ask ask = stat_ask(stat_run_cpus, &stat_cpus[0].open_gen);

	stat_unopened = tick_ask_wait(&ask, budget_ns, pause, ctx);
	stat_open_wait_ns = budget_ns;
	stat_t0 = hal_clock_ns();
	return stat_unopened;
}

void stat_stop(void)
{
	if (!__atomic_load_n(&stat_gen, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&stat_stop_gen, stat_run_gen, __ATOMIC_RELEASE);
	stat_t1 = hal_clock_ns();
	__atomic_store_n(&stat_gen, 0, __ATOMIC_RELEASE);
}

uint32_t stat_wait_closed(uint64_t budget_ns, void (*pause)(void *ctx), void *ctx)
{
	struct tick_ask ask = stat_ask(stat_run_cpus & ~stat_unopened,
				       &stat_cpus[0].close_gen);

	stat_unclosed = tick_ask_wait(&ask, budget_ns, pause, ctx);
	stat_close_wait_ns = budget_ns;
	return stat_unclosed;
}

/* The session gives the counters back, but a CPU that missed its stop
 * still counts: stat_open_cpus keeps the claim (stat_start() and
 * prof_start_as() refuse while a bit is set) until that CPU's tick closes
 * its events and clears the last bit. */
void stat_end(void)
{
	stat_stop();
	/* No switch left to follow once every CPU closed; one still open
	 * keeps the hook (it checks its CPU is open), and the next session
	 * sets it again. */
	if (!stat_cpus_still_open())
		sched_on_switch_count(NULL);
	prof_counters_release();
}

uint32_t stat_cpus_still_open(void)
{
	return __atomic_load_n(&stat_open_cpus, __ATOMIC_ACQUIRE);
}

void stat_print_still_open(struct out *o, const char *whose)
{
	uint32_t mask = stat_cpus_still_open();
	unsigned n = 0;

	if (!mask) {
		out_printf(o, "%s was still open on a cpu that missed its stop (closed since); try again\n",
			   whose);
		return;
	}
	out_printf(o, "%s still open on cpu", whose);
	for (unsigned cpu = 0; cpu < 32; cpu++)
		if ((mask >> cpu) & 1)
			out_printf(o, "%s%u", n++ ? "," : (mask & (mask - 1)) ? "s " : " ", cpu);
	out_printf(o, " (%s); try again shortly\n",
		   n == 1 ? "it missed its stop" : "they missed their stop");
}

/* One event's figures from its count, running and enabled time. */
static void stat_fill(struct stat_cpu_result *r, unsigned i, uint64_t raw,
		      uint64_t run_ns, uint64_t enabled_ns, bool ever_open)
{
	bool exact = stat_run_plan.exact[i];

	r->raw[i] = raw;
	r->run_ns[i] = run_ns < enabled_ns ? run_ns : enabled_ns;
	r->ran[i] = ever_open;
	/* A count that never moved is no count: never a zero passed off
	 * as one.  Software events count exactly, zero too. */
	r->counted[i] = r->ran[i] && (exact || raw != 0);
	r->delta[i] = stat_scale(raw, enabled_ns, run_ns);
}

static void stat_result_names(struct stat_cpu_result *r)
{
	kmemset(r, 0, sizeof(*r));
	r->nevents = stat_plan.n;
	for (unsigned i = 0; i < stat_plan.n; i++)
		r->names[i] = stat_table.ev[stat_plan.ev[i]].name;
}

void stat_result(unsigned cpu, struct stat_cpu_result *r)
{
	const struct stat_cpu *c = &stat_cpus[cpu];

	stat_result_names(r);
	r->answered = ((stat_run_cpus >> cpu) & 1) &&
		      !(((stat_unopened | stat_unclosed) >> cpu) & 1) &&
		      __atomic_load_n(&c->close_gen, __ATOMIC_ACQUIRE) == stat_run_gen;
	if (!r->answered)
		return;
	r->window_ns = c->t1 - c->t0;
	for (unsigned i = 0; i < stat_plan.n; i++)
		stat_fill(r, i, c->count[i], c->run_ns[i], r->window_ns, c->ever_open[i]);
	r->idle_ns = c->idle1 - c->idle0;
	r->cpu_time = c->ct1 - c->ct0;
	r->rotations = c->rotations;
}

bool stat_task_result(struct stat_cpu_result *r)
{
	const struct stat_run_plan *p = &stat_run_plan;
	struct stat_cpu_result cr;

	stat_result(p->task_cpu, &cr);
	stat_result_names(r);
	r->answered = p->task_pid && cr.answered;
	if (!r->answered)
		return false;
	r->window_ns = stat_task.enabled_ns;
	for (unsigned i = 0; i < stat_plan.n; i++)
		stat_fill(r, i, stat_task.count[i], stat_task.run_ns[i], stat_task.enabled_ns,
			  cr.ran[i]);
	r->switches_in = stat_task.switches_in;
	return true;
}


void stat_session_get(struct stat_session *ss)
{
	ss->run_cpus = stat_run_cpus;
	ss->unopened = stat_unopened;
	ss->unclosed = stat_unclosed;
	ss->t0 = stat_t0;
	ss->t1 = stat_t1;
	ss->open_wait_ns = stat_open_wait_ns;
	ss->close_wait_ns = stat_close_wait_ns;
	ss->table = &stat_table;
	ss->plan = &stat_plan;
	ss->listed = stat_listed;
	ss->pid = stat_run_plan.task_pid;
	ss->task_cpu = stat_run_plan.task_cpu;
	ss->task_name = stat_task_name;
}
