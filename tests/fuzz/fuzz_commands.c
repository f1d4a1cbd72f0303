/* SPDX-License-Identifier: BSD-2-Clause */
/* The command table the fuzz targets link instead of shell/commands.c:
 * the real names, usages and serial-only flags, so the shell's line
 * parsing, lookup and refusals run for real, but no command does
 * anything beyond parsing its arguments and printing them.  `help` is the
 * real one (it only prints the table); `netload` runs its real argument
 * parser and stops there. */
#include "lib/out.h"
#include "net/netload.h"
#include "shell/commands.h"
#include "shell/netload_args.h"
#include "shell/shell.h"

static int fz_print_args(struct shell_ctx *sh, int argc, char **argv)
{
	out_printf(sh->out, "%s: %d words\n", argv[0], argc);
	for (int i = 1; i < argc; i++)
		out_printf(sh->out, "  [%s]\n", argv[i]);
	return 0;
}

static int fz_netload(struct shell_ctx *sh, int argc, char **argv)
{
	struct netload_args a;

	if (netload_args_parse(argc, argv, &a, sh->out) < 0)
		return SHELL_CMD_FAILED;
	out_printf(sh->out, "netload %s port %u ms %u size %u rate %llu\n",
		   a.send ? "send" : "recv", a.port, a.ms, a.size,
		   (unsigned long long)a.rate);
	return 0;
}

const struct shell_cmd shell_commands[] = {
	{ "help", "help [command]", "list commands, or show one's usage", cmd_help, false },
	{ "profile", "profile [ms] [pid|all] [chains]", "sample", fz_print_args, false },
	{ "lscpu", "lscpu", "CPUs", fz_print_args, false },
	{ "ps", "ps", "tasks", fz_print_args, false },
	{ "stacks", "stacks", "stack use", fz_print_args, false },
	{ "uptime", "uptime", "time since boot", fz_print_args, false },
	{ "work", "work [start NAME [tasks] | stop]", "workloads", fz_print_args, false },
	{ "net", "net", "network counters", fz_print_args, false },
	{ "netload", "netload recv PORT ms | netload send IP PORT ms [size] [rate]",
	  "UDP load", fz_netload, false },
	{ "poweroff", "poweroff [status]", "end the machine", fz_print_args, true },
	{ "test", "test panic|fault|gp|ud", "crash on purpose", fz_print_args, true },
	{ NULL, NULL, NULL, NULL, false },
};
