/* SPDX-License-Identifier: BSD-2-Clause */
/* The one command table.  Order is the order `help` lists them in.  A
 * row without .serial_only runs on a UDP shell too; .keyless rows (they
 * change nothing and end at once) run there without a key. */
#include "shell/commands.h"
#include "shell/shell.h"

const struct shell_cmd shell_commands[] = {
	{ .name = "help", .usage = CMD_HELP_USAGE,
	  .summary = "list commands, or show one's usage",
	  .run = cmd_help, .keyless = true },
	{ .name = "profile", .usage = CMD_PROFILE_USAGE,
	  .summary = "sample where the CPUs spend their time (1-2000 ms, 1-128 chains, "
		     "depth 1-32, hz 10-10000), or from start to stop; wall: every task's time "
		     "running, runnable and blocked too; rotate hands out its intervals; "
		     "show views the last session",
	  .run = cmd_profile, .keyless = true },
	{ .name = "stat", .usage = CMD_STAT_USAGE,
	  .summary = "count cycles, instructions and IPC per CPU (1-10000 ms), "
		     "or any events, {grouped}, multiplexed and scaled, per task too",
	  .run = cmd_stat, .keyless = true },
	{ .name = "events", .usage = CMD_EVENTS_USAGE,
	  .summary = "every event stat can count, its source, whether it counts",
	  .run = cmd_events, .keyless = true },
	{ .name = "trace", .usage = CMD_TRACE_USAGE,
	  .summary = "record the scheduler's, interrupts' and the network's tracepoints "
		     "(1-60000 ms, or start to stop); show text, summary, latency or irqs; list them",
	  .run = cmd_trace },
	{ .name = "lscpu", .usage = CMD_LSCPU_USAGE,
	  .summary = "CPUs, and the sample source profile would use",
	  .run = cmd_lscpu, .keyless = true },
	{ .name = "ps", .usage = CMD_PS_USAGE,
	  .summary = "tasks: pid, cpu, state, cpu time, name",
	  .run = cmd_ps, .keyless = true },
	{ .name = "stacks", .usage = CMD_STACKS_USAGE,
	  .summary = "each task's stack size and deepest use",
	  .run = cmd_stacks, .keyless = true },
	{ .name = "uptime", .usage = CMD_UPTIME_USAGE,
	  .summary = "time since boot",
	  .run = cmd_uptime, .keyless = true },
	{ .name = "work", .usage = CMD_WORK_USAGE,
	  .summary = "list, start or stop the built-in workloads",
	  .run = cmd_work },
	{ .name = "net", .usage = CMD_NET_USAGE,
	  .summary = "network: frames in and out, drops by reason, the ARP cache",
	  .run = cmd_net, .keyless = true },
	{ .name = "netload", .usage = CMD_NETLOAD_USAGE,
	  .summary = "UDP load in iperf 2's format, either end (size 16-1472, rate bits/s)",
	  .run = cmd_netload },
	{ .name = "probe", .usage = CMD_PROBE_USAGE,
	  .summary = "count and time every call of a kernel function (patched at run time)",
	  .run = cmd_probe },
	{ .name = "poweroff", .usage = CMD_POWEROFF_USAGE,
	  .summary = "end the machine with an exit status (0-127)",
	  .run = cmd_poweroff, .serial_only = true },
	{ .name = "test", .usage = CMD_TEST_USAGE,
	  .summary = "crash on purpose: panic, page fault, #GP, invalid opcode; "
		     "use N stack frames; spin with interrupts off",
	  .run = cmd_test, .serial_only = true },
	{ .name = NULL },
};
