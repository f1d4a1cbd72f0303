/* SPDX-License-Identifier: BSD-2-Clause */
/* work: list, start and stop the built-in workloads. */
#include "hal/cpu.h"
#include "work/work.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "shell/commands.h"
#include "shell/shell.h"

static int work_list(struct shell_ctx *sh)
{
	const struct workload *running = work_running();

	for (unsigned i = 0; workloads[i]; i++)
		out_printf(sh->out, "%-8s %s%s\n", workloads[i]->name,
			   workloads[i]->summary,
			   workloads[i] == running ? " (running)" : "");
	return 0;
}

static int work_cmd_start(struct shell_ctx *sh, int argc, char **argv)
{
	const struct workload *w;
	uint64_t ntasks = 1;
	unsigned ncpus = hal_cpu_count();
	int err;

	/* Load started by a forged datagram would run on until someone
	 * stops it. */
	if (shell_refuse_unauthenticated(sh, "work start"))
		return SHELL_CMD_FAILED;
	if (argc < 3 || argc > 4) {
		out_puts(sh->out, "work: usage: " CMD_WORK_USAGE "\n");
		return 1;
	}
	w = work_find(argv[2]);
	if (!w) {
		out_printf(sh->out, "work: no workload '%s'; `work` lists them\n", argv[2]);
		return 1;
	}
	if (w->param) {
		uint64_t v = w->param_default;

		if (argc == 4 && (parse_u64(argv[3], &v) < 0 || v < w->param_min ||
				  v > w->param_max)) {
			out_printf(sh->out, "work: %s takes %s %u-%u (got %s)\n", w->name,
				   w->param, w->param_min, w->param_max, argv[3]);
			return 1;
		}
		w->set_param((unsigned)v);
	} else if (argc == 4 && (parse_u64(argv[3], &ntasks) < 0 || ntasks < 1 ||
			  ntasks > ncpus)) {
		out_printf(sh->out, "work: tasks must be 1-%u, one per cpu (got %s)\n",
			   ncpus, argv[3]);
		return 1;
	}
	err = work_start(w, (unsigned)ntasks);
	if (err == -EBUSY) {
		const struct workload *r = work_running();
		out_printf(sh->out, "work: %s is already running; `work stop` first\n",
			   r ? r->name : "a workload");
		return 1;
	}
	if (err < 0) {
		out_printf(sh->out, "work: cannot start %s: out of memory\n", w->name);
		return 1;
	}
	int pids[WORK_MAX_TASKS];
	unsigned n = work_pids(pids, WORK_MAX_TASKS);
	out_printf(sh->out, "work: started %s, %u task%s, pid%s", w->name, n,
		   n == 1 ? "" : "s", n == 1 ? "" : "s");
	for (unsigned i = 0; i < n; i++)
		out_printf(sh->out, " %d", pids[i]);
	out_printf(sh->out, "\n");
	return 0;
}

static int work_cmd_stop(struct shell_ctx *sh, int argc)
{
	int err;

	if (argc != 2) {
		out_puts(sh->out, "work: usage: " CMD_WORK_USAGE "\n");
		return 1;
	}
	err = work_stop(sh->out);
	if (err == -ENOENT) {
		out_printf(sh->out, "work: nothing is running\n");
		return 1;
	}
	if (err == -EBUSY) {
		out_printf(sh->out, "work: busy starting or stopping; try again\n");
		return 1;
	}
	return 0;
}

int cmd_work(struct shell_ctx *sh, int argc, char **argv)
{
	/* `work` and `work list` both list: the usage offers the word. */
	if (argc == 1 || (argc == 2 && kstreq(argv[1], "list")))
		return work_list(sh);
	if (kstreq(argv[1], "list")) {
		out_puts(sh->out, "work: list takes no arguments\n");
		return 1;
	}
	if (kstreq(argv[1], "start"))
		return work_cmd_start(sh, argc, argv);
	if (kstreq(argv[1], "stop"))
		return work_cmd_stop(sh, argc);
	out_printf(sh->out, "work: unknown subcommand '%s'; use list, start or stop\n", argv[1]);
	return 1;
}
