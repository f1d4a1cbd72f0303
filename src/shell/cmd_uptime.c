/* SPDX-License-Identifier: BSD-2-Clause */
/* uptime: time since boot. */
#include "kernel/kernel.h"
#include "lib/out.h"
#include "shell/commands.h"
#include "shell/shell.h"

int cmd_uptime(struct shell_ctx *sh, int argc, char **argv)
{
	uint64_t ms = kernel_uptime_ns() / 1000000;

	(void)argv;
	if (argc > 1) {
		out_printf(sh->out, "uptime: takes no arguments\n");
		return 1;
	}
	out_printf(sh->out, "up %llu.%03llu s\n", (unsigned long long)(ms / 1000),
		   (unsigned long long)(ms % 1000));
	return 0;
}
