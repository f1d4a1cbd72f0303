/* SPDX-License-Identifier: BSD-2-Clause */
/* ps: every task, its CPU, state and CPU time. */
#include "hal/cpu.h"
#include "kernel/heap.h"
#include "kernel/task.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "shell/commands.h"
#include "shell/shell.h"

#define PS_MAX 64

struct ps_row {
	int pid;
	unsigned cpu;
	enum task_state state;
	uint64_t runtime;
	char name[TASK_NAME_MAX];
};

struct ps_snapshot {
	struct ps_row rows[PS_MAX];
	unsigned n;
	unsigned more;
};

/* Copy under the task list lock, print after: printing may block on the
 * console or the network and must not hold the lock. */
static void ps_collect(struct task *t, void *ctx)
{
	struct ps_snapshot *s = ctx;
	struct ps_row *r;

	if (s->n == PS_MAX) {
		s->more++;
		return;
	}
	r = &s->rows[s->n++];
	r->pid = t->pid;
	r->cpu = t->cpu;
	r->state = t->state;
	r->runtime = task_runtime(t);	/* with the slice it is running */
	kmemcpy(r->name, t->name, sizeof(r->name));
}

int cmd_ps(struct shell_ctx *sh, int argc, char **argv)
{
	uint64_t per_ms = hal_cpu_time_per_sec() / 1000;
	struct ps_snapshot *snap;

	(void)argv;
	if (argc > 1) {
		out_printf(sh->out, "ps: takes no arguments\n");
		return 1;
	}
	snap = kzalloc(sizeof(*snap));	/* too big for a task stack */
	if (!snap) {
		out_printf(sh->out, "ps: out of memory\n");
		return 1;
	}
	task_for_each(ps_collect, snap);
	out_printf(sh->out, "  PID CPU STATE     TIME(ms) NAME\n");
	for (unsigned i = 0; i < snap->n; i++) {
		const struct ps_row *r = &snap->rows[i];
		out_printf(sh->out, "%5d %3u %-9s %8llu %s\n", r->pid, r->cpu,
			   task_state_name(r->state),
			   (unsigned long long)(per_ms ? r->runtime / per_ms : 0),
			   r->name);
	}
	if (snap->more)
		out_printf(sh->out, "(%u more tasks not shown)\n", snap->more);
	kfree(snap);
	return 0;
}
