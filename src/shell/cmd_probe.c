/* SPDX-License-Identifier: BSD-2-Clause */
/* probe: count, and time, every call of a kernel function (prof/probe.h,
 * doc/shell.md). */
#include "kernel/sched.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "prof/probe.h"
#include "shell/commands.h"
#include "shell/shell.h"

#define PROBE_WINDOW_MAX_MS 60000u
/* Calls `probe cost` times, each way: long enough to dwarf the clock's
 * read, short enough for a TCG kernel. */
#define PROBE_COST_CALLS 100000u

static int usage(struct shell_ctx *sh, const char *why, const char *word)
{
	out_printf(sh->out, "probe: %s%s%s; usage: %s\n", why, word ? ": " : "",
		   word ? word : "", CMD_PROBE_USAGE);
	return 1;
}

/* The options after FUNC: `time`, nothing else yet. */
static int parse_flags(struct shell_ctx *sh, int argc, char **argv, unsigned *flags)
{
	*flags = 0;
	for (int i = 0; i < argc; i++) {
		if (kstreq(argv[i], "time"))
			*flags |= PROBE_TIME;
		else if (kstreq(argv[i], "stack"))
			*flags |= PROBE_STACK;
		else
			return usage(sh, "unknown option (stack and time are allowed)", argv[i]);
	}
	return 0;
}

static int probe_show_cmd(struct shell_ctx *sh, int argc, char **argv)
{
	bool hist = false, folded = false;
	const char *name = NULL;
	const struct probe *p;

	for (int i = 0; i < argc; i++) {
		if (kstreq(argv[i], "hist"))
			hist = true;
		else if (kstreq(argv[i], "folded"))
			folded = true;
		else if (kstreq(argv[i], "text"))
			hist = false;
		else if (!name)
			name = argv[i];
		else
			return usage(sh, "show takes one function and text, folded or hist", argv[i]);
	}
	if (name) {
		if (!(p = probe_find(name))) {
			out_printf(sh->out, "probe: no probe on %s (`probe list` lists them)\n", name);
			return 1;
		}
		if (folded)
			probe_print_folded(sh->out, p);
		else
			probe_print_show(sh->out, p, hist);
		return 0;
	}
	for (unsigned i = 0; i < PROBE_MAX; i++)
		if (probe_table[i].live && folded && (probe_table[i].flags & PROBE_STACK))
			probe_print_folded(sh->out, &probe_table[i]);
		else if (probe_table[i].live && !folded)
			probe_print_show(sh->out, &probe_table[i], hist);
	return 0;
}

/* probe MS FUNC [time]: on for MS milliseconds, shown, then off. */
static int probe_window(struct shell_ctx *sh, int argc, char **argv)
{
	uint64_t ms;
	unsigned flags;
	const struct probe *p;

	if (parse_u64(argv[1], &ms) < 0 || ms < 1 || ms > PROBE_WINDOW_MAX_MS)
		return usage(sh, "a window is 1-60000 ms", argv[1]);
	if (argc < 3)
		return usage(sh, "a window needs a function", NULL);
	if (parse_flags(sh, argc - 3, argv + 3, &flags))
		return 1;
	if (probe_find(argv[2])) {
		out_printf(sh->out, "probe: %s already has a probe (probe del %s first)\n",
			   argv[2], argv[2]);
		return 1;
	}
	if (probe_add(argv[2], flags, sh->out) < 0)
		return 1;
	sched_sleep_ms(ms);
	if ((p = probe_find(argv[2])) != NULL)
		probe_print_show(sh->out, p, (flags & PROBE_TIME) != 0);
	probe_del(argv[2], sh->out);
	return 0;
}

int cmd_probe(struct shell_ctx *sh, int argc, char **argv)
{
	unsigned flags;

	if (argc < 2)
		return usage(sh, "say what to do", NULL);
	if (kstreq(argv[1], "add")) {
		if (argc < 3)
			return usage(sh, "add needs a function", NULL);
		if (parse_flags(sh, argc - 3, argv + 3, &flags))
			return 1;
		return probe_add(argv[2], flags, sh->out) < 0;
	}
	if (kstreq(argv[1], "del")) {
		if (argc != 3)
			return usage(sh, "del takes one function, or all", NULL);
		return probe_del(kstreq(argv[2], "all") ? NULL : argv[2], sh->out) < 0;
	}
	if (kstreq(argv[1], "list")) {
		if (argc != 2)
			return usage(sh, "list takes no arguments", argv[2]);
		probe_print_list(sh->out);
		return 0;
	}
	if (kstreq(argv[1], "show"))
		return probe_show_cmd(sh, argc - 2, argv + 2);
	if (kstreq(argv[1], "sites")) {
		if (argc > 3 || (argc == 3 && !kstreq(argv[2], "all")))
			return usage(sh, "sites takes nothing or all", argv[2]);
		probe_print_sites(sh->out, argc == 3);
		return 0;
	}
	if (kstreq(argv[1], "cost")) {
		struct probe_cost c;

		if (argc != 2)
			return usage(sh, "cost takes no arguments", argv[2]);
		if (probe_cost(PROBE_COST_CALLS, &c, sh->out) < 0)
			return 1;
		out_printf(sh->out, "probe cost: %u calls of an empty function: %llu.%03llu ns "
			   "each; a probe adds per hit: count %llu.%03llu ns, time %llu.%03llu ns, "
			   "stack %llu.%03llu ns\n", c.calls,
			   (unsigned long long)(c.bare_ps / 1000), (unsigned long long)(c.bare_ps % 1000),
			   (unsigned long long)(c.count_ps / 1000), (unsigned long long)(c.count_ps % 1000),
			   (unsigned long long)(c.time_ps / 1000), (unsigned long long)(c.time_ps % 1000),
			   (unsigned long long)(c.stack_ps / 1000), (unsigned long long)(c.stack_ps % 1000));
		return 0;
	}
	if (argv[1][0] >= '0' && argv[1][0] <= '9')
		return probe_window(sh, argc, argv);
	return usage(sh, "unknown subcommand", argv[1]);
}
