/* SPDX-License-Identifier: BSD-2-Clause */
/* stacks: each task's stack size and the most of it ever used. */
#include "kernel/heap.h"
#include "kernel/task.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "shell/commands.h"
#include "shell/shell.h"

#define STACKS_MAX 64

struct stacks_row {
	int pid;
	size_t size, used;
	bool painted;
	char name[TASK_NAME_MAX];
};

struct stacks_snapshot {
	struct stacks_row rows[STACKS_MAX];
	unsigned n;
};

/* The paint scan runs under the task list lock so a task cannot be freed
 * underneath it; it reads at most a stack's worth of bytes per task. */
static void stacks_collect(struct task *t, void *ctx)
{
	struct stacks_snapshot *s = ctx;
	struct stacks_row *r;

	if (s->n == STACKS_MAX)
		return;
	r = &s->rows[s->n++];
	r->pid = t->pid;
	r->painted = t->stack != NULL;
	r->size = t->stack_hi - t->stack_lo;
	r->used = r->painted ? task_stack_used(t) : 0;
	kmemcpy(r->name, t->name, sizeof(r->name));
}

int cmd_stacks(struct shell_ctx *sh, int argc, char **argv)
{
	struct stacks_snapshot *snap;

	(void)argv;
	if (argc > 1) {
		out_printf(sh->out, "stacks: takes no arguments\n");
		return 1;
	}
	snap = kzalloc(sizeof(*snap));
	if (!snap) {
		out_printf(sh->out, "stacks: out of memory\n");
		return 1;
	}
	task_for_each(stacks_collect, snap);
	out_printf(sh->out, "  PID     SIZE     USED NAME\n");
	for (unsigned i = 0; i < snap->n; i++) {
		const struct stacks_row *r = &snap->rows[i];
		if (r->painted)
			out_printf(sh->out, "%5d %8zu %8zu %s\n", r->pid, r->size,
				   r->used, r->name);
		else	/* a boot stack: never painted, so no high-water mark */
			out_printf(sh->out, "%5d %8zu        - %s\n", r->pid, r->size,
				   r->name);
	}
	kfree(snap);
	return 0;
}
