/* SPDX-License-Identifier: BSD-2-Clause */
/* help: the command table, or one command's usage. */
#include "lib/kstring.h"
#include "lib/out.h"
#include "shell/commands.h"
#include "shell/shell.h"

/* Over the network the commands it may not run are not offered. */
static bool help_shows(const struct shell_ctx *sh, const struct shell_cmd *c)
{
	return !(c->serial_only && sh->remote);
}

static int help_list(struct shell_ctx *sh)
{
	const struct shell_cmd *c;
	int width = 0;

	for (c = shell_commands; c->name; c++) {
		int n = (int)kstrlen(c->name);

		if (help_shows(sh, c) && n > width)
			width = n;
	}
	for (c = shell_commands; c->name; c++)
		if (help_shows(sh, c))
			out_printf(sh->out, "%-*s  %s%s\n", width, c->name, c->summary,
				   c->serial_only ? " (serial only)" : "");
	return 0;
}

static int help_one(struct shell_ctx *sh, const char *name)
{
	const struct shell_cmd *c = shell_find(name);

	if (!c) {
		out_printf(sh->out, "help: no command '%s'; help lists them\n", name);
		return 1;
	}
	shell_print_usage(sh->out, c);
	return 0;
}

int cmd_help(struct shell_ctx *sh, int argc, char **argv)
{
	if (argc == 1)
		return help_list(sh);
	if (argc == 2)
		return help_one(sh, argv[1]);
	out_puts(sh->out, "help: usage: " CMD_HELP_USAGE "\n");
	return 1;
}
