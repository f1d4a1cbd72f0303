/* SPDX-License-Identifier: BSD-2-Clause */
/* trace: record tracepoints (kernel/trace.h) over a window, or from
 * start to stop, and view them:
 *
 *   trace [ms] EVENTS [option...]      a window, then its header and summary
 *   trace start EVENTS [option...]     open-ended
 *   trace stop                         ends it: the header and summary
 *   trace show [text|summary|latency|irqs|raw] [n]
 *   trace list                         every event, its fields, its count
 *   EVENTS: names and groups (sched, irq, net, all), comma-separated
 *   option: cpu=N  pid=N  buffer=KB (each CPU's ring)  mode=overwrite|stop
 *
 * Tracepoints are not the scheduler's switch hook: a trace runs beside
 * `profile` and `profile ... wall`, each seeing every switch. */
#include <stdint.h>

#include "hal/cpu.h"
#include "kernel/sched.h"
#include "kernel/trace.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "prof/trace_session.h"
#include "shell/commands.h"
#include "shell/shell.h"

#define TRACE_WINDOW_DEFAULT_MS 1000
#define TRACE_OPTIONS "cpu=N, pid=N, buffer=KB, mode=overwrite|stop"
#define TRACE_VIEWS "text, summary, latency, irqs or raw"

struct trace_args {
	uint64_t window_ms;
	struct trace_config cfg;
	unsigned kb;
};

static int trace_parse_cpu(struct out *o, const char *v, int *cpu)
{
	uint64_t n;

	if (parse_u64(v, &n) < 0 || n >= hal_cpu_count() || !sched_cpu_online((unsigned)n)) {
		out_printf(o, "trace: cpu= must be 0-%u (got %s)\n", hal_cpu_count() - 1, v);
		return -EINVAL;
	}
	*cpu = (int)n;
	return 0;
}

static int trace_parse_option(struct out *o, const char *w, struct trace_args *a)
{
	uint64_t n;

	if (kstarts_with(w, "cpu="))
		return trace_parse_cpu(o, w + 4, &a->cfg.cpu);
	if (kstarts_with(w, "pid=")) {
		if (parse_u64(w + 4, &n) < 0 || n < 1 || n > INT32_MAX) {
			out_printf(o, "trace: pid= must be a pid, 1 or more (got %s)\n", w + 4);
			return -EINVAL;
		}
		a->cfg.pid = (int)n;
		return 0;
	}
	if (kstarts_with(w, "buffer=")) {
		if (parse_u64(w + 7, &n) < 0 || n < TRACE_BUFFER_KB_MIN || n > TRACE_BUFFER_KB_MAX) {
			out_printf(o, "trace: buffer= must be %u-%u KB (got %s)\n",
				   TRACE_BUFFER_KB_MIN, TRACE_BUFFER_KB_MAX, w + 7);
			return -EINVAL;
		}
		a->kb = (unsigned)n;
		return 0;
	}
	if (kstarts_with(w, "mode=")) {
		if (!kstreq(w + 5, "overwrite") && !kstreq(w + 5, "stop")) {
			out_printf(o, "trace: mode= must be overwrite or stop (got %s)\n", w + 5);
			return -EINVAL;
		}
		a->cfg.overwrite = kstreq(w + 5, "overwrite");
		return 0;
	}
	out_printf(o, "trace: unknown option %s (options: " TRACE_OPTIONS ")\n", w);
	return -EINVAL;
}

/* EVENTS [option...] from argv[i]. */
static int trace_parse_run(struct out *o, int argc, char **argv, int i, struct trace_args *a)
{
	const char *bad;
	size_t badlen;

	a->cfg.cpu = TRACE_CPU_ALL;
	a->cfg.pid = TRACE_PID_ALL;
	a->cfg.overwrite = true;
	a->kb = trace_buffer_kb_default();
	if (i >= argc) {
		out_puts(o, "trace: which events? (usage: " CMD_TRACE_USAGE "; trace list names them)\n");
		return -EINVAL;
	}
	if (trace_parse_events(argv[i], &a->cfg.events, &bad, &badlen) < 0) {
		out_printf(o, "trace: unknown event '%.*s' (trace list names every event; "
			   "groups: sched, irq, net, all)\n", (int)badlen, bad);
		return -EINVAL;
	}
	for (i++; i < argc; i++)
		if (trace_parse_option(o, argv[i], a) < 0)
			return -EINVAL;
	a->cfg.slots = trace_slots_for_kb(a->kb);
	return 0;
}

static void trace_report(struct out *o)
{
	const struct trace_session *s = trace_session();

	trace_print_header(o, s);
	trace_print_summary(o, s);
}

static int trace_window(struct shell_ctx *sh, int argc, char **argv)
{
	struct trace_args a;
	int i = 1, r;

	a.window_ms = TRACE_WINDOW_DEFAULT_MS;
	if (argc > 1 && argv[1][0] >= '0' && argv[1][0] <= '9') {
		r = parse_u64(argv[1], &a.window_ms);
		if (r < 0 || a.window_ms < TRACE_WINDOW_MIN_MS || a.window_ms > TRACE_WINDOW_MAX_MS) {
			out_printf(sh->out, "trace: window must be %d-%d ms (got %s)\n",
				   TRACE_WINDOW_MIN_MS, TRACE_WINDOW_MAX_MS, argv[1]);
			return 1;
		}
		i = 2;
	}
	if (trace_parse_run(sh->out, argc, argv, i, &a) < 0)
		return 1;
	if (trace_session_start(&a.cfg, a.kb, sh->out) < 0)
		return 1;
	sched_sleep_window_ms(a.window_ms);
	trace_session_stop();
	trace_report(sh->out);
	return 0;
}

static int trace_show(struct out *o, int argc, char **argv)
{
	const struct trace_session *s = trace_session();
	const char *view = argc > 2 ? argv[2] : "summary";
	uint64_t n = 0;

	if (argc > 4) {
		out_puts(o, "trace: too many arguments (usage: trace show [" TRACE_VIEWS "] [n])\n");
		return 1;
	}
	if (argc > 3 && (parse_u64(argv[3], &n) < 0 || n < 1)) {
		out_printf(o, "trace: n must be 1 or more (got %s)\n", argv[3]);
		return 1;
	}
	if (!kstreq(view, "text") && !kstreq(view, "summary") && !kstreq(view, "latency") &&
	    !kstreq(view, "irqs") && !kstreq(view, "raw")) {
		out_printf(o, "trace: unknown view %s (views: " TRACE_VIEWS ")\n", view);
		return 1;
	}
	if (s->armed) {
		out_puts(o, "trace: still running (trace stop first)\n");
		return 1;
	}
	if (!s->have) {
		out_puts(o, "trace: nothing to show (trace MS EVENTS, or trace start EVENTS)\n");
		return 1;
	}
	if (kstreq(view, "raw")) {
		/* Data only: the block is all kshell -o keeps. */
		trace_print_raw(o, s);
		return 0;
	}
	trace_print_header(o, s);
	if (kstreq(view, "text"))
		trace_print_text(o, s, n);
	else if (kstreq(view, "latency"))
		trace_print_latency(o, s, n);
	else if (kstreq(view, "irqs"))
		trace_print_irqs(o, s);
	else
		trace_print_summary(o, s);
	return 0;
}

static int trace_run(struct shell_ctx *sh, int argc, char **argv)
{
	struct trace_args a;

	if (argc > 1 && kstreq(argv[1], "list")) {
		if (argc > 2) {
			out_puts(sh->out, "trace: list takes no arguments\n");
			return 1;
		}
		trace_print_list(sh->out);
		return 0;
	}
	if (argc > 1 && kstreq(argv[1], "start")) {
		if (trace_parse_run(sh->out, argc, argv, 2, &a) < 0 ||
		    trace_session_start(&a.cfg, a.kb, sh->out) < 0)
			return 1;
		out_puts(sh->out, "trace: started\n");
		return 0;
	}
	if (argc > 1 && kstreq(argv[1], "stop")) {
		if (argc > 2) {
			out_puts(sh->out, "trace: stop takes no arguments\n");
			return 1;
		}
		if (trace_session_stop() < 0) {
			out_puts(sh->out, "trace: none running (trace start EVENTS)\n");
			return 1;
		}
		trace_report(sh->out);
		return 0;
	}
	if (argc > 1 && kstreq(argv[1], "show"))
		return trace_show(sh->out, argc, argv);
	return trace_window(sh, argc, argv);
}

int cmd_trace(struct shell_ctx *sh, int argc, char **argv)
{
	int r;

	if (argc > 1 && kstreq(argv[1], "list"))
		return trace_run(sh, argc, argv);
	if (!trace_session_claim()) {
		out_puts(sh->out, "trace: another shell is using the trace; try again\n");
		return 1;
	}
	r = trace_run(sh, argc, argv);
	trace_session_release();
	return r;
}
