/* SPDX-License-Identifier: BSD-2-Clause */
/* What `trace` prints of a stopped trace (prof/trace_session.h): the
 * header, one event a line (text), counts (summary), wakeup-to-run
 * delays per task (latency) and interrupts per CPU (irqs).  Every view
 * reads the merged store; none changes it.  Their tables come from the
 * heap: a shell's stack is small, and the console and a UDP shell may
 * show views at once. */
#include "prof/trace_session.h"

#include "kernel/heap.h"
#include "lib/out.h"
#include "lib/trace_frame.h"

static unsigned rings_of(const struct trace_session *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < HAL_MAX_CPUS; i++)
		n += s->ring[i];
	return n;
}

static void print_events_mask(struct out *o, uint32_t mask)
{
	const char *sep = "";

	for (unsigned e = 0; e < TRACE_EVENTS; e++)
		if (mask & (1u << e)) {
			out_printf(o, "%s%s", sep, trace_events[e].name);
			sep = ",";
		}
}

/* "trace: 2001 ms, cpu 3, pid all, 256 KB a cpu (overwrite); 0 events,
 * 0 lost" and, when any was lost, each CPU's count. */
void trace_print_header(struct out *o, const struct trace_session *s)
{
	uint64_t lost = 0;

	for (unsigned i = 0; i < HAL_MAX_CPUS; i++)
		lost += s->lost[i];
	out_printf(o, "trace: %llu ms, ", (unsigned long long)((s->t1 - s->t0) / 1000000));
	if (s->cfg.cpu == TRACE_CPU_ALL)
		out_printf(o, "%u cpus", rings_of(s));
	else
		out_printf(o, "cpu %d", s->cfg.cpu);
	if (s->cfg.pid != TRACE_PID_ALL)
		out_printf(o, ", pid %d", s->cfg.pid);
	out_printf(o, ", %u KB a cpu (%s); %zu events, %llu lost\n", s->kb,
		   s->cfg.overwrite ? "overwrite" : "stop when full", s->n,
		   (unsigned long long)lost);
	out_puts(o, "events: ");
	print_events_mask(o, s->cfg.events);
	out_puts(o, "\n");
	if (!lost)
		return;
	out_puts(o, "lost:");
	for (unsigned i = 0; i < HAL_MAX_CPUS; i++)
		if (s->ring[i])
			out_printf(o, " cpu%u %llu", i, (unsigned long long)s->lost[i]);
	out_puts(o, "\n");
}

static void print_task(struct out *o, const struct trace_session *s, int pid)
{
	out_printf(o, "%s[%d]", trace_session_name(s, pid), pid);
}

static void print_fields(struct out *o, const struct trace_session *s,
			 const struct trace_rec *r)
{
	const struct trace_event_desc *d = &trace_events[r->id];

	switch (r->id) {
	case TRACE_SCHED_SWITCH:
		out_printf(o, " prev_state=%s next=", trace_state_name(r->f0, r->flags));
		print_task(o, s, (int)r->f1);
		return;
	case TRACE_SCHED_WAKEUP:
	case TRACE_TASK_NEW:
		out_puts(o, " pid=");
		print_task(o, s, (int)r->f0);
		out_printf(o, " target_cpu=%u%s", r->f1,
			   r->id == TRACE_SCHED_WAKEUP && (r->flags & TRACE_F_TIMER) ? " timer" : "");
		return;
	default:
		if (d->f0)
			out_printf(o, " %s=%u", d->f0, r->f0);
		if (d->f1)
			out_printf(o, " %s=%u", d->f1, r->f1);
		return;
	}
}

/* perf script's shape: seconds.microseconds from the start, the CPU,
 * the task current there, the event and its fields.  @n: the first n
 * (0: all). */
void trace_print_text(struct out *o, const struct trace_session *s, uint64_t n)
{
	size_t end = n && n < s->n ? (size_t)n : s->n;

	for (size_t i = 0; i < end; i++) {
		const struct trace_rec *r = &s->ev[i];
		uint64_t us = (r->ts - s->t0) / 1000;

		out_printf(o, "%4llu.%06llu cpu%u ", (unsigned long long)(us / 1000000),
			   (unsigned long long)(us % 1000000), r->cpu);
		print_task(o, s, r->pid);
		out_printf(o, " %s", trace_events[r->id].name);
		print_fields(o, s, r);
		out_puts(o, "\n");
	}
	if (end < s->n)
		out_printf(o, "... %zu more (trace show text %zu)\n", s->n - end, s->n);
}

/* Events by name and CPU, then by task: the quiet-CPU proof's view (an
 * event on an isolated CPU names its task here). */
struct summary {
	uint64_t per[TRACE_EVENTS][HAL_MAX_CPUS];
	struct { int pid; uint64_t n; } tasks[TRACE_NAMES_MAX];
};

void trace_print_summary(struct out *o, const struct trace_session *s)
{
	struct summary *sm = kzalloc(sizeof(*sm));
	uint64_t (*per)[HAL_MAX_CPUS];
	unsigned ntasks = 0;

	if (!sm) {
		out_puts(o, "trace: no memory for the summary\n");
		return;
	}
	per = sm->per;

	for (size_t i = 0; i < s->n; i++) {
		const struct trace_rec *r = &s->ev[i];
		unsigned k;

		per[r->id][r->cpu]++;
		for (k = 0; k < ntasks && sm->tasks[k].pid != r->pid; k++)
			;
		if (k == ntasks && ntasks < TRACE_NAMES_MAX)
			sm->tasks[ntasks++] = (typeof(sm->tasks[0])){ r->pid, 0 };
		if (k < ntasks)
			sm->tasks[k].n++;
	}
	for (unsigned e = 0; e < TRACE_EVENTS; e++) {
		uint64_t total = 0;

		for (unsigned c = 0; c < HAL_MAX_CPUS; c++)
			total += per[e][c];
		if (!total)
			continue;
		out_printf(o, "%-12s %8llu  ", trace_events[e].name, (unsigned long long)total);
		for (unsigned c = 0; c < HAL_MAX_CPUS; c++)
			if (s->ring[c])
				out_printf(o, " cpu%u %llu", c, (unsigned long long)per[e][c]);
		out_puts(o, "\n");
	}
	for (unsigned k = 0; k < ntasks; k++) {
		out_puts(o, "task ");
		print_task(o, s, sm->tasks[k].pid);
		out_printf(o, " %llu events\n", (unsigned long long)sm->tasks[k].n);
	}
	kfree(sm);
}

struct lat {
	int pid;
	uint64_t woke;		/* a wakeup's time, 0: none pending */
	uint64_t n, sum, max, max_at;
};

static struct lat *lat_find(struct lat *v, unsigned *n, int pid)
{
	for (unsigned i = 0; i < *n; i++)
		if (v[i].pid == pid)
			return &v[i];
	if (*n == TRACE_NAMES_MAX)
		return NULL;
	v[*n] = (struct lat){ .pid = pid };
	return &v[(*n)++];
}

/* perf sched latency: from each sched_wakeup of a task to the switch
 * that next runs it; per task the count, the mean, the worst and when
 * (ms from the start).  @n: the n tasks with the worst maxima (0: all). */
void trace_print_latency(struct out *o, const struct trace_session *s, uint64_t n)
{
	struct lat *lat = kzalloc(TRACE_NAMES_MAX * sizeof(*lat));
	unsigned nl = 0, shown = 0;

	if (!lat) {
		out_puts(o, "trace: no memory for the latency table\n");
		return;
	}

	for (size_t i = 0; i < s->n; i++) {
		const struct trace_rec *r = &s->ev[i];
		struct lat *l;

		if (r->id == TRACE_SCHED_WAKEUP) {
			l = lat_find(lat, &nl, (int)r->f0);
			if (l && !l->woke)
				l->woke = r->ts;
		} else if (r->id == TRACE_SCHED_SWITCH) {
			l = lat_find(lat, &nl, (int)r->f1);
			if (!l || !l->woke)
				continue;
			uint64_t d = r->ts - l->woke;

			l->n++;
			l->sum += d;
			if (d >= l->max) {
				l->max = d;
				l->max_at = r->ts - s->t0;
			}
			l->woke = 0;
		}
	}
	out_printf(o, "%-22s %8s %10s %10s %12s\n", "task", "wakeups", "avg us", "max us",
		   "max at ms");
	/* The worst first: selection, the table is small. */
	for (;;) {
		struct lat *best = NULL;

		for (unsigned i = 0; i < nl; i++)
			if (lat[i].n && (!best || lat[i].max > best->max))
				best = &lat[i];
		if (!best || (n && shown == n))
			break;
		char who[TASK_NAME_MAX + 16];
		struct out_buf w;

		out_buf_init(&w, who, sizeof(who));
		print_task(&w.out, s, best->pid);
		out_printf(o, "%-22s %8llu %10llu %10llu %12llu.%03llu\n", who,
			   (unsigned long long)best->n,
			   (unsigned long long)(best->sum / best->n / 1000),
			   (unsigned long long)(best->max / 1000),
			   (unsigned long long)(best->max_at / 1000000),
			   (unsigned long long)(best->max_at / 1000 % 1000));
		best->n = 0;
		shown++;
	}
	if (!shown)
		out_puts(o, "no wakeup ran in the window (trace sched_wakeup and sched_switch)\n");
	kfree(lat);
}

/* /proc/interrupts over the window: irq_entry per CPU per vector or
 * INTID, then the NMIs. */
void trace_print_irqs(struct out *o, const struct trace_session *s)
{
	struct irq_row { uint32_t irq; uint64_t n[HAL_MAX_CPUS]; } *rows;
	uint64_t nmi[HAL_MAX_CPUS] = { 0 };
	unsigned nrows = 0;

	rows = kzalloc(32 * sizeof(*rows));
	if (!rows) {
		out_puts(o, "trace: no memory for the irq table\n");
		return;
	}

	for (size_t i = 0; i < s->n; i++) {
		const struct trace_rec *r = &s->ev[i];
		unsigned k;

		if (r->id == TRACE_NMI) {
			nmi[r->cpu]++;
			continue;
		}
		if (r->id != TRACE_IRQ_ENTRY)
			continue;
		for (k = 0; k < nrows && rows[k].irq != r->f0; k++)
			;
		if (k == nrows) {
			if (nrows == 32)
				continue;
			rows[nrows].irq = r->f0;
			for (unsigned c = 0; c < HAL_MAX_CPUS; c++)
				rows[nrows].n[c] = 0;
			nrows++;
		}
		rows[k].n[r->cpu]++;
	}
	out_printf(o, "%6s", "irq");
	for (unsigned c = 0; c < HAL_MAX_CPUS; c++)
		if (s->ring[c])
			out_printf(o, " %9s%u", "cpu", c);
	out_puts(o, "\n");
	for (unsigned k = 0; k < nrows; k++) {
		out_printf(o, "%6u", rows[k].irq);
		for (unsigned c = 0; c < HAL_MAX_CPUS; c++)
			if (s->ring[c])
				out_printf(o, " %10llu", (unsigned long long)rows[k].n[c]);
		out_puts(o, "\n");
	}
	out_printf(o, "%6s", "nmi");
	for (unsigned c = 0; c < HAL_MAX_CPUS; c++)
		if (s->ring[c])
			out_printf(o, " %10llu", (unsigned long long)nmi[c]);
	out_puts(o, "\n");
	kfree(rows);
}

/* Every tracepoint, its group and fields, and how often it fired while
 * it was on, since boot. */
void trace_print_list(struct out *o)
{
	out_printf(o, "%-12s %-6s %-22s %s\n", "event", "group", "fields", "fired");
	for (unsigned e = 0; e < TRACE_EVENTS; e++) {
		const struct trace_event_desc *d = &trace_events[e];
		char f[40];
		struct out_buf w;

		out_buf_init(&w, f, sizeof(f));
		out_printf(&w.out, "%s%s%s", d->f0 ? d->f0 : "-", d->f1 ? "," : "", d->f1 ? d->f1 : "");
		out_printf(o, "%-12s %-6s %-22s %llu\n", d->name, d->group, f,
			   (unsigned long long)trace_fired((enum trace_id)e));
	}
}

/* "# kprof trace begin", the header keys, "# task PID NAME" lines, then
 * "TS_NS CPU PID EVENT F0 F1 FLAGS" per event, and the end line
 * counting every line between them. */
void trace_print_raw(struct out *o, const struct trace_session *s)
{
	uint64_t lines = 0;

	out_puts(o, TRACE_BLOCK_BEGIN "\n");
	out_printf(o, "# t0_ns=%llu t1_ns=%llu\n", (unsigned long long)s->t0,
		   (unsigned long long)s->t1);
	lines++;
	for (unsigned i = 0; i < HAL_MAX_CPUS; i++)
		if (s->ring[i]) {
			out_printf(o, "# cpu %u lost=%llu\n", i, (unsigned long long)s->lost[i]);
			lines++;
		}
	for (unsigned i = 0; i < s->nnames; i++) {
		out_printf(o, "# task %d %s\n", s->names[i].pid, s->names[i].name);
		lines++;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct trace_rec *r = &s->ev[i];

		out_printf(o, "%llu %u %d %s %u %u %u\n", (unsigned long long)r->ts, r->cpu,
			   r->pid, trace_events[r->id].name, r->f0, r->f1, r->flags);
		lines++;
	}
	out_printf(o, TRACE_BLOCK_END " lines=%llu\n", (unsigned long long)lines);
}
