/* SPDX-License-Identifier: BSD-2-Clause */
#include "work/work.h"

#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/spinlock.h"

/* How long work_stop() waits for tasks to notice, and how often it looks. */
#define WORK_STOP_WAIT_MS 2000
#define WORK_STOP_POLL_MS 10

const struct workload *const workloads[] = { &work_split, &work_spin, &work_deep,
						 &work_sleepy, &work_pingpong,
						 &work_swincr, NULL };

static struct spinlock work_lock = SPINLOCK_INIT;
static const struct workload *running;
static bool busy;		/* a start or stop is under way */
static bool stop_flag;
static int pids[WORK_MAX_TASKS];
static unsigned npids;

const struct workload *work_find(const char *name)
{
	for (unsigned i = 0; workloads[i]; i++)
		if (kstreq(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}

bool work_should_stop(void)
{
	return __atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE);
}

static void work_task(void *arg)
{
	const struct workload *w = arg;

	w->run();
}

/* Claim the start/stop slot; false when another start or stop holds it. */
static bool work_claim(void)
{
	unsigned long flags = spin_lock_irqsave(&work_lock);
	bool ok = !busy;

	busy = true;
	spin_unlock_irqrestore(&work_lock, flags);
	return ok;
}

static void work_release(void)
{
	__atomic_store_n(&busy, false, __ATOMIC_RELEASE);
}

static unsigned work_tasks_per_cpu(const struct workload *w)
{
	return w->tasks_per_cpu > 1 ? w->tasks_per_cpu : 1;
}

int work_start(const struct workload *w, unsigned ntasks)
{
	if (ntasks == 0 || ntasks > hal_cpu_count())
		return -EINVAL;
	if (!work_claim())
		return -EBUSY;
	if (running) {
		work_release();
		return -EBUSY;
	}
	__atomic_store_n(&stop_flag, false, __ATOMIC_RELEASE);
	if (w->begin)
		w->begin();
	npids = 0;
	for (unsigned i = 0; i < ntasks * work_tasks_per_cpu(w); i++) {
		unsigned cpu = i / work_tasks_per_cpu(w);
		char name[TASK_NAME_MAX];
		struct task *t;

		ksnprintf(name, sizeof(name), "%s/%u", w->name, i);
		t = task_create(name, work_task, (void *)w, cpu);
		if (!t) {
			running = w;
			work_release();
			work_stop(NULL);
			return -ENOMEM;
		}
		pids[npids++] = t->pid;
	}
	running = w;
	work_release();
	return 0;
}

static bool work_tasks_alive(void)
{
	for (unsigned i = 0; i < npids; i++)
		if (task_exists(pids[i]))
			return true;
	return false;
}

int work_stop(struct out *o)
{
	const struct workload *w;
	unsigned waited = 0;

	if (!work_claim())
		return -EBUSY;
	w = running;
	if (!w) {
		work_release();
		return -ENOENT;
	}
	__atomic_store_n(&stop_flag, true, __ATOMIC_RELEASE);
	while (work_tasks_alive() && waited < WORK_STOP_WAIT_MS) {
		sched_sleep_ms(WORK_STOP_POLL_MS);
		waited += WORK_STOP_POLL_MS;
	}
	if (o) {
		if (work_tasks_alive())
			out_printf(o, "work: %s tasks did not stop within %u ms\n",
				   w->name, WORK_STOP_WAIT_MS);
		out_printf(o, "work: stopped %s (%u task%s)\n", w->name, npids,
			   npids == 1 ? "" : "s");
		if (w->report)
			w->report(o);
	}
	running = NULL;
	npids = 0;
	work_release();
	return 0;
}

const struct workload *work_running(void)
{
	return running;
}

unsigned work_pids(int *out, unsigned max)
{
	unsigned n = npids < max ? npids : max;

	for (unsigned i = 0; i < n; i++)
		out[i] = pids[i];
	return n;
}

/* `spin`: one hot leaf under one caller, the simplest shape there is. */
__attribute__((noinline)) void spin_leaf(uint64_t iters)
{
	for (volatile uint64_t i = 0; i < iters; i++)
		;
}

static void spin_run(void)
{
	while (!work_should_stop())
		spin_leaf(100000);
}

const struct workload work_spin = {
	.name = "spin",
	.summary = "one busy leaf (spin_leaf) on each task",
	.run = spin_run,
};

/* Percent with one decimal, from integers: 1000ths rounded. */
static unsigned work_permille(uint64_t part, uint64_t whole)
{
	return whole ? (unsigned)((part * 1000 + whole / 2) / whole) : 0;
}

void work_print_shares(struct out *o, const char *const names[],
		       const uint64_t t[], unsigned n)
{
	uint64_t total = 0;

	for (unsigned i = 0; i < n; i++)
		total += t[i];
	for (unsigned i = 0; i < n; i++) {
		unsigned pm = work_permille(t[i], total);

		out_printf(o, " %s %u.%u%%", names[i], pm / 10, pm % 10);
	}
}
