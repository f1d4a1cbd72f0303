/* SPDX-License-Identifier: BSD-2-Clause */
/* Tracepoints, their per-CPU rings and counts (kernel/trace.h).  The
 * fast half is the macro at each site; this is the slow half and the
 * arming.  A writer marks itself inside (busy) before it looks for its
 * CPU's ring, and trace_disarm() clears the rings' flag before it waits
 * for every busy count to drop: with both sequentially consistent, a
 * writer either sees the flag cleared or is waited for, so a ring is
 * never freed under one. */
#include "kernel/trace.h"

#include "hal/mem.h"
#include "hal/timer.h"
#include "kernel/cmdline.h"
#include "kernel/page.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"

const struct trace_event_desc trace_events[TRACE_EVENTS] = {
	[TRACE_SCHED_SWITCH] = { "sched_switch", "sched", "prev_state", "next_pid" },
	[TRACE_SCHED_WAKEUP] = { "sched_wakeup", "sched", "pid", "target_cpu" },
	[TRACE_TASK_NEW] = { "task_new", "sched", "pid", "target_cpu" },
	[TRACE_TASK_EXIT] = { "task_exit", "sched", NULL, NULL },
	[TRACE_IRQ_ENTRY] = { "irq_entry", "irq", "irq", NULL },
	[TRACE_IRQ_EXIT] = { "irq_exit", "irq", "irq", NULL },
	[TRACE_NMI] = { "nmi", "irq", "claimed", NULL },
	[TRACE_TICK] = { "tick", "irq", "resched", NULL },
	[TRACE_NET_RX] = { "net_rx", "net", "len", NULL },
	[TRACE_NET_TX] = { "net_tx", "net", "len", "failed" },
	[TRACE_UDP_DELIVER] = { "udp_deliver", "net", "port", "len" },
};

bool trace_enabled[TRACE_EVENTS];

/* One CPU's share, on lines of its own: its writers touch nothing else. */
struct trace_cpu {
	struct trace_ring ring;
	void *pages;
	size_t npages;
	bool on;			/* the ring may be written */
	unsigned busy;			/* writers inside trace_fire() */
	uint64_t fired[TRACE_EVENTS];
} __attribute__((aligned(HAL_CACHELINE)));

static struct trace_cpu trace_cpus[HAL_MAX_CPUS];
static int trace_pid = TRACE_PID_ALL;
static bool trace_armed;
static unsigned trace_kb_asked;
/* Tasks born while armed: slots taken by an atomic count (tasks are
 * created on any CPU), each written once. */
static struct {
	int pid;
	char name[TASK_NAME_MAX];
} trace_born[TRACE_BORN_MAX];
static unsigned trace_nborn;		/* trace.buffer_kb=; 0: the default */

static bool trace_pid_match(int pid, enum trace_id id, const struct trace_rec *r)
{
	if (r->pid == pid)
		return true;
	switch (id) {
	case TRACE_SCHED_SWITCH:
		return (int)r->f1 == pid;
	case TRACE_SCHED_WAKEUP:
	case TRACE_TASK_NEW:
		return (int)r->f0 == pid;
	default:
		return false;
	}
}

void trace_fire(enum trace_id id, uint32_t f0, uint32_t f1, unsigned flags)
{
	unsigned cpu = hal_cpu_id();
	struct trace_cpu *tc = &trace_cpus[cpu];
	struct task *cur = cpus[cpu].current;
	struct trace_rec rec;
	int pid;

	__atomic_fetch_add(&tc->busy, 1, __ATOMIC_SEQ_CST);
	/* Counted only where a ring takes it: then, with no pid filter,
	 * fired = kept + lost, exactly. */
	if (!__atomic_load_n(&tc->on, __ATOMIC_SEQ_CST))
		goto out;
	__atomic_fetch_add(&tc->fired[id], 1, __ATOMIC_RELAXED);
	rec.ts = hal_clock_ns();
	rec.pid = cur ? cur->pid : -1;
	rec.id = (uint8_t)id;
	rec.cpu = (uint8_t)cpu;
	rec.flags = (uint16_t)flags;
	rec.f0 = f0;
	rec.f1 = f1;
	pid = __atomic_load_n(&trace_pid, __ATOMIC_RELAXED);
	if (pid == TRACE_PID_ALL || trace_pid_match(pid, id, &rec))
		trace_ring_write(&tc->ring, &rec);
out:
	__atomic_fetch_sub(&tc->busy, 1, __ATOMIC_RELEASE);
}

uint64_t trace_slots_for_kb(uint64_t kb)
{
	uint64_t slots = kb * 1024 / sizeof(struct trace_slot), p = 2;

	while (p * 2 <= slots)
		p *= 2;
	return p;
}

static void trace_free_cpu(struct trace_cpu *tc)
{
	if (tc->pages)
		page_free(tc->pages, tc->npages);
	tc->pages = NULL;
	tc->npages = 0;
}

size_t trace_pages_held(void)
{
	size_t n = 0;

	for (unsigned i = 0; i < HAL_MAX_CPUS; i++)
		n += trace_cpus[i].npages;
	return n;
}

void trace_release(void)
{
	for (unsigned i = 0; i < HAL_MAX_CPUS; i++)
		trace_free_cpu(&trace_cpus[i]);
}

static bool trace_wants_cpu(const struct trace_config *cfg, unsigned cpu)
{
	return sched_cpu_online(cpu) && (cfg->cpu == TRACE_CPU_ALL || cfg->cpu == (int)cpu);
}

int trace_arm(const struct trace_config *cfg)
{
	size_t npages = (TRACE_RING_BYTES(cfg->slots) + HAL_PAGE_SIZE - 1) / HAL_PAGE_SIZE;

	if (trace_armed)
		return -EBUSY;
	trace_release();
	for (unsigned i = 0; i < HAL_MAX_CPUS; i++) {
		struct trace_cpu *tc = &trace_cpus[i];

		if (!trace_wants_cpu(cfg, i))
			continue;
		tc->pages = page_alloc(npages);
		if (!tc->pages) {
			trace_release();
			return -ENOMEM;
		}
		tc->npages = npages;
		trace_ring_init(&tc->ring, tc->pages, cfg->slots, cfg->overwrite);
	}
	for (unsigned i = 0; i < TRACE_BORN_MAX; i++)
		trace_born[i].pid = 0;	/* 0: a slot taken, not yet written */
	__atomic_store_n(&trace_nborn, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&trace_armed, true, __ATOMIC_RELEASE);
	__atomic_store_n(&trace_pid, cfg->pid, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < HAL_MAX_CPUS; i++)
		if (trace_cpus[i].pages)
			__atomic_store_n(&trace_cpus[i].on, true, __ATOMIC_SEQ_CST);
	for (unsigned e = 0; e < TRACE_EVENTS; e++)
		__atomic_store_n(&trace_enabled[e], (cfg->events >> e) & 1, __ATOMIC_RELEASE);
	return 0;
}

void trace_disarm(void)
{
	if (!trace_armed)
		return;
	for (unsigned e = 0; e < TRACE_EVENTS; e++)
		__atomic_store_n(&trace_enabled[e], false, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < HAL_MAX_CPUS; i++)
		__atomic_store_n(&trace_cpus[i].on, false, __ATOMIC_SEQ_CST);
	/* A writer inside runs on its own CPU, with nothing to wait for: a
	 * few microseconds, unless the host deschedules a ksim CPU. */
	for (unsigned i = 0; i < HAL_MAX_CPUS; i++)
		while (__atomic_load_n(&trace_cpus[i].busy, __ATOMIC_SEQ_CST))
			hal_cpu_relax();
	__atomic_store_n(&trace_armed, false, __ATOMIC_RELEASE);
}

void trace_drain(unsigned cpu, void (*sink)(const struct trace_rec *rec, void *ctx),
		 void *ctx)
{
	struct trace_cpu *tc = &trace_cpus[cpu];
	struct trace_rec rec;
	enum trace_read r;

	if (!tc->pages)
		return;
	while ((r = trace_ring_read(&tc->ring, &rec)) != TRACE_READ_EMPTY) {
		if (r == TRACE_READ_BUSY)
			return;		/* armed: its writer is still at it */
		rec.cpu = (uint8_t)cpu;
		sink(&rec, ctx);
	}
}

void trace_task_born(int pid, const char *name)
{
	unsigned i;

	if (!__atomic_load_n(&trace_armed, __ATOMIC_ACQUIRE))
		return;
	i = __atomic_fetch_add(&trace_nborn, 1, __ATOMIC_RELAXED);
	if (i >= TRACE_BORN_MAX)
		return;
	kstrlcpy(trace_born[i].name, name, TASK_NAME_MAX);
	__atomic_store_n(&trace_born[i].pid, pid, __ATOMIC_RELEASE);
}

bool trace_born_name(unsigned i, int *pid, const char **name)
{
	unsigned n = __atomic_load_n(&trace_nborn, __ATOMIC_RELAXED);

	if (i >= n || i >= TRACE_BORN_MAX)
		return false;
	*pid = __atomic_load_n(&trace_born[i].pid, __ATOMIC_ACQUIRE);
	*name = trace_born[i].name;
	return true;
}

uint64_t trace_lost(unsigned cpu)
{
	return trace_cpus[cpu].pages ? trace_ring_lost(&trace_cpus[cpu].ring) : 0;
}

bool trace_has_ring(unsigned cpu)
{
	return cpu < HAL_MAX_CPUS && trace_cpus[cpu].pages != NULL;
}

uint64_t trace_fired(enum trace_id id)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < HAL_MAX_CPUS; i++)
		n += __atomic_load_n(&trace_cpus[i].fired[id], __ATOMIC_RELAXED);
	return n;
}

const char *trace_state_name(uint32_t state, unsigned flags)
{
	switch (state) {
	case TASK_RUNNING:
	case TASK_RUNNABLE:
		return flags & TRACE_F_PREEMPT ? "R+" : "R";
	case TASK_SLEEPING: return "S";
	case TASK_BLOCKED: return "D";
	case TASK_DEAD: return "X";
	}
	return "?";
}

unsigned trace_buffer_kb_default(void)
{
	return trace_kb_asked ? trace_kb_asked : TRACE_BUFFER_KB_DEFAULT;
}

/* trace.buffer_kb=KB: each CPU's ring when `trace` names no buffer=. */
static int trace_key_buffer_kb(const char *value, size_t len, struct out *err)
{
	char text[24];
	uint64_t kb = 0;

	if (!cmdline_value_copy(text, sizeof(text), value, len) ||
	    parse_u64(text, &kb) < 0 || kb < TRACE_BUFFER_KB_MIN || kb > TRACE_BUFFER_KB_MAX) {
		out_printf(err, "cmdline: trace.buffer_kb= must be %u-%u (got '%.*s'); it stays %u\n",
			   TRACE_BUFFER_KB_MIN, TRACE_BUFFER_KB_MAX, (int)len, value,
			   trace_buffer_kb_default());
		return -EINVAL;
	}
	trace_kb_asked = (unsigned)kb;
	return 0;
}

CMDLINE_KEY(trace_key_buffer_kb_entry, .name = "trace.buffer_kb", .set = trace_key_buffer_kb,
	    .help = "4-65536  each cpu's trace ring, in KB, when trace names no buffer= (default 256)");
