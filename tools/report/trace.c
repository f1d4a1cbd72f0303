/* SPDX-License-Identifier: BSD-2-Clause */
/* kprof-report trace: a kernel trace (`trace show raw`, saved by
 * `kshell -o`; lib/trace_frame.h) as the Chrome trace event format's
 * JSON object, which Perfetto's UI and speedscope open:
 *
 *   kprof-report trace IN.trace -o OUT.json
 *
 * One track (a thread of process 1) per CPU; a complete slice ("X") per
 * run of a task, from the sched_switch that put it on the CPU to the one
 * that took it off (the trace's start and end close the runs it cut;
 * idle tasks are left as gaps); instant events ("i") for wakeups, task
 * births and ends, interrupts and NMIs; a flow ("s" to "f") from each
 * wakeup to the switch that ran the woken task; thread names "cpu N"
 * and, in otherData, each task's name by pid and each CPU's lost count.
 * Times are microseconds from the trace's start. */
#include "report.h"

#include "lib/trace_frame.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_CPUS 16
#define TRACE_TASKS 1024

struct tev {
	unsigned long long ts;
	unsigned cpu, f0, f1, flags;
	int pid;
	char ev[16];
};

struct tin {
	const char *path;
	unsigned long long t0, t1;
	bool cpu[TRACE_CPUS];
	unsigned long long lost[TRACE_CPUS];
	struct { int pid; char name[32]; } task[TRACE_TASKS];
	size_t ntasks;
	struct tev *ev;
	size_t n, cap;
};

static const char *tname(const struct tin *t, int pid)
{
	for (size_t i = 0; i < t->ntasks; i++)
		if (t->task[i].pid == pid)
			return t->task[i].name;
	return "?";
}

static bool is_idle(const struct tin *t, int pid)
{
	return strcmp(tname(t, pid), "idle") == 0;
}

static void read_line(struct tin *t, const char *line, unsigned long no)
{
	struct tev e;
	int used = 0;

	if (sscanf(line, "# t0_ns=%llu t1_ns=%llu%n", &t->t0, &t->t1, &used) == 2 && !line[used])
		return;
	if (strncmp(line, "# cpu ", 6) == 0) {
		unsigned c;
		unsigned long long l;

		if (sscanf(line, "# cpu %u lost=%llu%n", &c, &l, &used) != 2 || line[used] ||
		    c >= TRACE_CPUS)
			fatal(EXIT_INPUT, "%s:%lu: a cpu line is '# cpu N lost=L', N 0-%d",
			      t->path, no, TRACE_CPUS - 1);
		t->cpu[c] = true;
		t->lost[c] = l;
		return;
	}
	if (strncmp(line, "# task ", 7) == 0) {
		if (t->ntasks == TRACE_TASKS)
			fatal(EXIT_INPUT, "%s:%lu: more than %d tasks", t->path, no, TRACE_TASKS);
		if (sscanf(line, "# task %d %31s%n", &t->task[t->ntasks].pid,
			   t->task[t->ntasks].name, &used) != 2 || line[used])
			fatal(EXIT_INPUT, "%s:%lu: a task line is '# task PID NAME'", t->path, no);
		t->ntasks++;
		return;
	}
	if (sscanf(line, "%llu %u %d %15s %u %u %u%n", &e.ts, &e.cpu, &e.pid, e.ev, &e.f0, &e.f1,
		   &e.flags, &used) != 7 || line[used] || e.cpu >= TRACE_CPUS)
		fatal(EXIT_INPUT, "%s:%lu: not an event line (TS_NS CPU PID EVENT F0 F1 FLAGS)",
		      t->path, no);
	if (e.ts < t->t0 || e.ts > t->t1 || (t->n && e.ts < t->ev[t->n - 1].ts))
		fatal(EXIT_INPUT, "%s:%lu: an event out of the window or out of time order",
		      t->path, no);
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->ev = xrealloc(t->ev, t->cap * sizeof(*t->ev));
	}
	t->ev[t->n++] = e;
}

/* The block, checked whole: its begin line, lines= on its end line. */
static void read_trace(struct tin *t, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long no = 0, lines = 0, want;
	bool in = false, done = false;

	t->path = path;
	if (!f)
		fatal(EXIT_INPUT, "%s: cannot read: %s", path, strerror(errno));
	while (!done && (len = getline(&line, &cap, f)) >= 0) {
		no++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!in) {
			in = strcmp(line, TRACE_BLOCK_BEGIN) == 0;
			continue;
		}
		if (strncmp(line, TRACE_BLOCK_END " lines=", strlen(TRACE_BLOCK_END) + 7) == 0) {
			if (sscanf(line + strlen(TRACE_BLOCK_END) + 7, "%lu", &want) != 1 ||
			    want != lines)
				fatal(EXIT_INPUT, "%s:%lu: the end line says %s, the block holds %lu lines",
				      path, no, line + strlen(TRACE_BLOCK_END) + 1, lines);
			done = true;
			continue;
		}
		lines++;
		read_line(t, line, no);
	}
	free(line);
	fclose(f);
	if (!in)
		fatal(EXIT_INPUT, "%s: no '" TRACE_BLOCK_BEGIN "' line (save one with kshell -o FILE trace show raw)", path);
	if (!done)
		fatal(EXIT_INPUT, "%s: the trace has no end line: cut short", path);
	if (t->t1 < t->t0 || !t->t1)
		fatal(EXIT_INPUT, "%s: no '# t0_ns= t1_ns=' window", path);
}

static double us(const struct tin *t, unsigned long long ts)
{
	return (double)(ts - t->t0) / 1000.0;
}

/* A task's name as JSON text: names are the kernel's (no quotes or
 * backslashes are made there), escaped anyway. */
static void json_str(struct buf *b, const char *s)
{
	buf_add(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_add(b, "\\", 1);
		if ((unsigned char)*s < 0x20)
			buf_printf(b, "\\u%04x", (unsigned char)*s);
		else
			buf_add(b, s, 1);
	}
	buf_add(b, "\"", 1);
}

static void slice(struct buf *b, const struct tin *t, unsigned cpu, int pid,
		  unsigned long long from, unsigned long long to, const char *why)
{
	if (pid < 0 || is_idle(t, pid) || to <= from)
		return;
	/* A nanosecond short of the next run: a reader that adds ts and
	 * dur in binary floating point must not find the two overlapping
	 * (speedscope would nest the next run inside this one). */
	buf_printf(b, ",\n{\"ph\":\"X\",\"cat\":\"run\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,"
		   "\"dur\":%.3f,\"name\":", cpu, us(t, from), (double)(to - from - 1) / 1000.0);
	{
		char name[48];

		snprintf(name, sizeof(name), "%s[%d]", tname(t, pid), pid);
		json_str(b, name);
	}
	buf_printf(b, ",\"args\":{\"pid\":%d,\"left\":\"%s\"}}", pid, why);
}

static const char *state_of(unsigned st, unsigned flags)
{
	static const char *const names[] = { "R", "R", "S", "D", "X" };

	if (st < 2)
		return flags & 1 ? "R+" : "R";
	return st < 5 ? names[st] : "?";
}

/* Each CPU's runs, in time order: the track's slices never overlap. */
static void runs(struct buf *b, const struct tin *t, unsigned cpu)
{
	unsigned long long since = t->t0;
	int cur = -1;
	bool first = true;

	for (size_t i = 0; i < t->n; i++) {
		const struct tev *e = &t->ev[i];

		if (e->cpu != cpu || strcmp(e->ev, "sched_switch") != 0)
			continue;
		/* The first switch's prev ran from the start. */
		if (first)
			cur = e->pid;
		first = false;
		slice(b, t, cpu, cur, since, e->ts, state_of(e->f0, e->flags));
		cur = (int)e->f1;
		since = e->ts;
	}
	slice(b, t, cpu, cur, since, t->t1, "end of trace");
}

static void instant(struct buf *b, const struct tin *t, const struct tev *e)
{
	char name[64];

	if (!strcmp(e->ev, "sched_wakeup") || !strcmp(e->ev, "task_new"))
		snprintf(name, sizeof(name), "%s %s[%u]", e->ev, tname(t, (int)e->f0), e->f0);
	else if (!strcmp(e->ev, "irq_entry"))
		snprintf(name, sizeof(name), "irq %u", e->f0);
	else if (!strcmp(e->ev, "nmi") || !strcmp(e->ev, "task_exit"))
		snprintf(name, sizeof(name), "%s", e->ev);
	else
		return;
	buf_printf(b, ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"%s\",\"pid\":1,\"tid\":%u,"
		   "\"ts\":%.3f,\"name\":", e->ev, e->cpu, us(t, e->ts));
	json_str(b, name);
	buf_printf(b, ",\"args\":{\"task\":%d,\"f0\":%u,\"f1\":%u}}", e->pid, e->f0, e->f1);
}

/* From each wakeup to the switch that next runs the woken task. */
static void flows(struct buf *b, const struct tin *t)
{
	unsigned id = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct tev *w = &t->ev[i];

		if (strcmp(w->ev, "sched_wakeup") != 0)
			continue;
		for (size_t j = i + 1; j < t->n; j++) {
			const struct tev *r = &t->ev[j];

			if (strcmp(r->ev, "sched_switch") != 0 || r->f1 != w->f0)
				continue;
			id++;
			buf_printf(b, ",\n{\"ph\":\"s\",\"cat\":\"wakeup\",\"name\":\"wakeup\",\"id\":%u,"
				   "\"pid\":1,\"tid\":%u,\"ts\":%.3f}", id, w->cpu, us(t, w->ts));
			buf_printf(b, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"wakeup\",\"name\":\"wakeup\","
				   "\"id\":%u,\"pid\":1,\"tid\":%u,\"ts\":%.3f}", id, r->cpu, us(t, r->ts));
			break;
		}
	}
}

static void write_json(struct buf *b, const struct tin *t)
{
	buf_printf(b, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
		   "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"kprof\"}}");
	for (unsigned c = 0; c < TRACE_CPUS; c++)
		if (t->cpu[c])
			buf_printf(b, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%u,"
				   "\"args\":{\"name\":\"cpu %u\"}},\n{\"ph\":\"M\",\"name\":"
				   "\"thread_sort_index\",\"pid\":1,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
				   c, c, c, c);
	for (unsigned c = 0; c < TRACE_CPUS; c++)
		if (t->cpu[c])
			runs(b, t, c);
	for (size_t i = 0; i < t->n; i++)
		instant(b, t, &t->ev[i]);
	flows(b, t);
	buf_printf(b, "\n],\n\"otherData\":{\"source\":\"kprof trace\",\"window_us\":%.3f,\"tasks\":{",
		   us(t, t->t1));
	for (size_t i = 0; i < t->ntasks; i++) {
		buf_printf(b, "%s\"%d\":", i ? "," : "", t->task[i].pid);
		json_str(b, t->task[i].name);
	}
	buf_printf(b, "},\"lost\":{");
	for (unsigned c = 0, k = 0; c < TRACE_CPUS; c++)
		if (t->cpu[c])
			buf_printf(b, "%s\"cpu%u\":%llu", k++ ? "," : "", c, t->lost[c]);
	buf_printf(b, "}}}\n");
}

int report_trace(int argc, char **argv)
{
	struct tin *t = xcalloc(1, sizeof(*t));
	struct buf out = { 0 };
	const char *in = NULL, *path = NULL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1])
			fatal(EXIT_USAGE, "trace: unknown option '%s' (usage: kprof-report trace IN -o OUT.json)",
			      argv[i]);
		else if (!in)
			in = argv[i];
		else
			fatal(EXIT_USAGE, "trace: one input (usage: kprof-report trace IN -o OUT.json)");
	}
	if (!in || !path)
		fatal(EXIT_USAGE, "trace: an input and -o OUT are needed (usage: kprof-report trace IN -o OUT.json)");
	read_trace(t, in);
	write_json(&out, t);
	outfile_write(path, &out);
	buf_free(&out);
	free(t->ev);
	free(t);
	return 0;
}
