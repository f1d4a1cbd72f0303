/* SPDX-License-Identifier: BSD-2-Clause */
/* `sleepy`: tasks that spend a known share of their time computing,
 * sleeping through two distinct call paths and blocking on each other
 * through a third, for wall-clock profiles (`profile ... wall`).  Each
 * path measures its own time on the kernel's clock (hal_clock_ns()),
 * read around the call and never inside it: time inside the sleep call
 * is its blocked time and its runnable time after the wake, as the wall
 * profile charges it to that path. */
#include "work/sleepy_test.h"

#include "hal/timer.h"
#include "kernel/heap.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/out.h"
#include "lib/spinlock.h"
#include "work/work.h"

const char *const sleepy_path_name[SLEEPY_PATHS] = {
	"sleepy_compute", "sleepy_nap_a", "sleepy_nap_b", "sleepy_wait_peer",
};

/* Not multiples of the tick period: a sleep ends on the first tick
 * after its deadline, whatever the tick's rate.  The compute is longer
 * than a period at 100 Hz: a task woken on a tick starts it just after
 * one, and a shorter compute can end before the next every time, so the
 * tick never samples it (the QEMU wall test saw one of its two tasks
 * with no sample, 1 run in 4, its running time then charged where it
 * left the CPU). */
#define SLEEPY_COMPUTE_US 17300u
#define SLEEPY_NAP_A_US 13700u
#define SLEEPY_NAP_B_US 4100u

static uint64_t truth[SLEEPY_PATHS];

/* Each task's last SLEEPY_SPANS calls, so that a test can take the
 * truth of exactly a profile's window (sleepy_truth_between()). */
#define SLEEPY_SPANS 2048
struct sleepy_span {
	uint64_t t0, t1;
	unsigned path;
};
static struct sleepy_span *spans;	/* WORK_MAX_TASKS rows, once */
static uint64_t nspans[WORK_MAX_TASKS];
/* Of the naps' time, the part after the scheduler's wake: runnable. */
static uint64_t truth_runnable[SLEEPY_PATHS];

/* The token the tasks pass round: task i waits in sleepy_wait_peer()
 * until it holds it, then hands it to the next task still running. */
static struct spinlock peer_lock = SPINLOCK_INIT;
static struct task *peers[WORK_MAX_TASKS];
static bool alive[WORK_MAX_TASKS];
static bool token[WORK_MAX_TASKS];

/* The calling task's call of @path from @t0 to @t1. */
static void sleepy_log(unsigned path, uint64_t t0, uint64_t t1)
{
	unsigned me = task_current()->cpu;
	uint64_t n = nspans[me];
	struct sleepy_span *s;

	__atomic_fetch_add(&truth[path], t1 - t0, __ATOMIC_RELAXED);
	if (!spans)
		return;
	s = &spans[me * SLEEPY_SPANS + n % SLEEPY_SPANS];
	s->t0 = t0;
	s->t1 = t1;
	s->path = path;
	/* Whole before a reader counts it. */
	__atomic_store_n(&nspans[me], n + 1, __ATOMIC_RELEASE);
}

static void sleepy_add(unsigned path, uint64_t t0)
{
	sleepy_log(path, t0, hal_clock_ns());
}

__attribute__((noinline)) static void sleepy_compute(void)
{
	uint64_t t0 = hal_clock_ns(), end = t0 + SLEEPY_COMPUTE_US * 1000ull;

	while (hal_clock_ns() < end)
		__asm__ volatile("" ::: "memory");
	sleepy_add(SLEEPY_COMPUTE, t0);
}

/* A nap's truth, and of it the part after its wake. */
static void sleepy_nap(unsigned path, uint64_t us)
{
	uint64_t t0 = hal_clock_ns(), woke, t1;

	sched_sleep_ns(us * 1000u);
	t1 = hal_clock_ns();
	woke = __atomic_load_n(&task_current()->wall.wake_ns, __ATOMIC_RELAXED);
	sleepy_log(path, t0, t1);
	if (woke >= t0 && woke <= t1)
		__atomic_fetch_add(&truth_runnable[path], t1 - woke, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void sleepy_nap_a(void)
{
	sleepy_nap(SLEEPY_NAP_A, SLEEPY_NAP_A_US);
}

__attribute__((noinline)) static void sleepy_nap_b(void)
{
	sleepy_nap(SLEEPY_NAP_B, SLEEPY_NAP_B_US);
}

/* Under peer_lock: give the token to the next running task after @me,
 * or keep it when there is none. */
static void sleepy_pass_locked(unsigned me)
{
	for (unsigned k = 1; k <= WORK_MAX_TASKS; k++) {
		unsigned next = (me + k) % WORK_MAX_TASKS;

		if (next != me && !alive[next])
			continue;
		token[next] = true;
		if (next != me)
			sched_wake(peers[next]);
		return;
	}
}

__attribute__((noinline)) static void sleepy_wait_peer(unsigned me)
{
	uint64_t t0 = hal_clock_ns();
	unsigned long flags;

	for (;;) {
		flags = spin_lock_irqsave(&peer_lock);
		if (token[me]) {
			token[me] = false;
			sleepy_pass_locked(me);
			spin_unlock_irqrestore(&peer_lock, flags);
			break;
		}
		spin_unlock_irqrestore(&peer_lock, flags);
		/* A wake between the unlock and the block is kept for it. */
		sched_block();
	}
	sleepy_add(SLEEPY_WAIT_PEER, t0);
}

static void sleepy_begin(void)
{
	for (unsigned i = 0; i < SLEEPY_PATHS; i++) {
		truth[i] = 0;
		truth_runnable[i] = 0;
	}
	if (!spans)
		spans = kmalloc(WORK_MAX_TASKS * SLEEPY_SPANS * sizeof(*spans));
	for (unsigned i = 0; i < WORK_MAX_TASKS; i++) {
		nspans[i] = 0;
		alive[i] = false;
		token[i] = i == 0;
		peers[i] = NULL;
	}
}

static void sleepy_join(unsigned me, bool join)
{
	unsigned long flags = spin_lock_irqsave(&peer_lock);

	alive[me] = join;
	peers[me] = join ? task_current() : NULL;
	/* Leaving with the token would strand the others. */
	if (!join && token[me]) {
		token[me] = false;
		sleepy_pass_locked(me);
		token[me] = false;
	}
	spin_unlock_irqrestore(&peer_lock, flags);
}

static void sleepy_run(void)
{
	/* Tasks are pinned one to a CPU: the CPU is the task's index. */
	unsigned me = task_current()->cpu;

	sleepy_join(me, true);
	while (!work_should_stop()) {
		sleepy_compute();
		sleepy_nap_a();
		sleepy_nap_b();
		sleepy_wait_peer(me);
	}
	sleepy_join(me, false);
}

void sleepy_truth(uint64_t out[SLEEPY_PATHS], uint64_t runnable[SLEEPY_PATHS])
{
	for (unsigned i = 0; i < SLEEPY_PATHS; i++) {
		out[i] = __atomic_load_n(&truth[i], __ATOMIC_RELAXED);
		runnable[i] = __atomic_load_n(&truth_runnable[i], __ATOMIC_RELAXED);
	}
}

bool sleepy_truth_between(uint64_t from, uint64_t to, uint64_t out[SLEEPY_PATHS])
{
	for (unsigned i = 0; i < SLEEPY_PATHS; i++)
		out[i] = 0;
	if (!spans)
		return false;
	for (unsigned me = 0; me < WORK_MAX_TASKS; me++) {
		uint64_t n = __atomic_load_n(&nspans[me], __ATOMIC_ACQUIRE);
		uint64_t first = n > SLEEPY_SPANS ? n - SLEEPY_SPANS : 0;

		for (uint64_t k = first; k < n; k++) {
			const struct sleepy_span *s = &spans[me * SLEEPY_SPANS + k % SLEEPY_SPANS];
			uint64_t a = s->t0 > from ? s->t0 : from;
			uint64_t b = s->t1 < to ? s->t1 : to;

			if (b > a)
				out[s->path] += b - a;
		}
	}
	return true;
}

unsigned sleepy_calls_between(unsigned me, uint64_t from, uint64_t to, struct sleepy_call *out,
			      unsigned max)
{
	uint64_t n, first;
	unsigned got = 0;

	if (!spans || me >= WORK_MAX_TASKS)
		return 0;
	n = __atomic_load_n(&nspans[me], __ATOMIC_ACQUIRE);
	first = n > SLEEPY_SPANS ? n - SLEEPY_SPANS : 0;
	for (uint64_t k = first; k < n && got < max; k++) {
		const struct sleepy_span *s = &spans[me * SLEEPY_SPANS + k % SLEEPY_SPANS];

		if (s->t0 >= from && s->t1 <= to)
			out[got++] = (struct sleepy_call){ s->t0, s->t1, s->path };
	}
	return got;
}

bool sleepy_logged_since(uint64_t ns)
{
	if (!spans)
		return false;
	for (unsigned me = 0; me < WORK_MAX_TASKS; me++) {
		uint64_t n = __atomic_load_n(&nspans[me], __ATOMIC_ACQUIRE);

		if (!__atomic_load_n(&alive[me], __ATOMIC_RELAXED))
			continue;
		if (!n || spans[me * SLEEPY_SPANS + (n - 1) % SLEEPY_SPANS].t0 < ns)
			return false;
	}
	return true;
}

static void sleepy_report(struct out *o)
{
	uint64_t t[SLEEPY_PATHS], r[SLEEPY_PATHS], total = 0;

	sleepy_truth(t, r);
	for (unsigned i = 0; i < SLEEPY_PATHS; i++)
		total += t[i];
	out_puts(o, "sleepy truth:");
	work_print_shares(o, sleepy_path_name, t, SLEEPY_PATHS);
	out_printf(o, " of %llu ms\n", (unsigned long long)(total / 1000000));
	out_printf(o, "sleepy naps runnable after the wake: %s %llu us, %s %llu us\n",
		   sleepy_path_name[SLEEPY_NAP_A],
		   (unsigned long long)(r[SLEEPY_NAP_A] / 1000),
		   sleepy_path_name[SLEEPY_NAP_B],
		   (unsigned long long)(r[SLEEPY_NAP_B] / 1000));
}

const struct workload work_sleepy = {
	.name = "sleepy",
	.summary = "compute, sleep through two paths, block on each other through a third; measures the truth",
	.run = sleepy_run,
	.begin = sleepy_begin,
	.report = sleepy_report,
};
