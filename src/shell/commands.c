/* SPDX-License-Identifier: BSD-2-Clause */
/* The one command table.  Order is the order `help` lists them in. */
#include "shell/commands.h"
#include "shell/shell.h"

const struct shell_cmd shell_commands[] = {
	{ "help", "help [command]", "list commands, or show one's usage", cmd_help, false, true },
	{ "profile", "profile [ms] [pid|all] [chains] [depth=N] [hz=N] [source=tick|pmu] [folded [addr] [cpus]] [wall] | "
	  "profile start [pid|all] [depth=N] [hz=N] [source=tick|pmu] [wall] | profile stop | "
	  "profile rotate SEQ [folded|addr] | "
	  "profile show [text [chains]|folded [addr] [cpus]|cpus|tasks|top [n]]",
	  "sample where the CPUs spend their time (1-2000 ms, 1-128 chains, "
	  "depth 1-32, hz 10-10000), or from start to stop; wall: every task's time "
	  "running, runnable and blocked too; rotate hands out its intervals; show views the last session",
	  cmd_profile, false, true },
	{ "stat", "stat [ms] [all|cpu]",
	  "count cycles, instructions and IPC per CPU (1-10000 ms)", cmd_stat, false, true },
	{ "lscpu", "lscpu", "CPUs, and the sample source profile would use", cmd_lscpu, false, true },
	{ "ps", "ps", "tasks: pid, cpu, state, cpu time, name", cmd_ps, false, true },
	{ "stacks", "stacks", "each task's stack size and deepest use", cmd_stacks, false, true },
	{ "uptime", "uptime", "time since boot", cmd_uptime, false, true },
	{ "work", "work [start NAME [tasks|frames] | stop]",
	  "list, start or stop the built-in workloads", cmd_work, false, false },
	{ "net", "net", "network: frames in and out, drops by reason, the ARP cache",
	  cmd_net, false, true },
	{ "netload", "netload recv PORT ms | netload send IP PORT ms [size] [rate]",
	  "UDP load in iperf 2's format, either end (size 16-1472, rate bits/s)",
	  cmd_netload, false, false },
	{ "poweroff", "poweroff [status]",
	  "end the machine with an exit status (0-127)", cmd_poweroff, true, false },
	{ "test", "test panic [cpu]|recurse N|overflow [cpu]|fault|gp|ud|irqsoff CPU MS [DELAY_MS]|keys",
	  "crash on purpose: panic, page fault, #GP, invalid opcode; use N stack frames; spin with interrupts off", cmd_test, true, false },
	{ NULL, NULL, NULL, NULL, false, false },
};
