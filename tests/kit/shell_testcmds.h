/* SPDX-License-Identifier: BSD-2-Clause */
/* Commands shared by the shell suites' own command tables (check_shell,
 * the check_udpsh_* suites through udpsh_testlib.c), each counting its
 * runs; a suite's setup zeroes the counters it checks.  The counters are
 * defined once in each program, beside its table. */
#ifndef KPROF_TESTS_SHELL_TESTCMDS_H
#define KPROF_TESTS_SHELL_TESTCMDS_H

#include "lib/out.h"
#include "shell/shell.h"

extern unsigned crash_runs, args_runs;

/* args: prints the word count and each word in brackets. */
static inline int tcmd_args(struct shell_ctx *sh, int argc, char **argv)
{
	args_runs++;
	out_printf(sh->out, "%d", argc);
	for (int i = 0; i < argc; i++)
		out_printf(sh->out, " [%s]", argv[i]);
	out_puts(sh->out, "\n");
	return 0;
}

/* crash: serial-only in the tables; says it ran. */
static inline int tcmd_crash(struct shell_ctx *sh, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	crash_runs++;
	out_puts(sh->out, "crashed\n");
	return 0;
}

#endif
