/* SPDX-License-Identifier: BSD-2-Clause */
/* The commands, one file each (shell/cmd_*.c), gathered in commands.c. */
#ifndef KPROF_SHELL_COMMANDS_H
#define KPROF_SHELL_COMMANDS_H

struct shell_ctx;

/* Each command's usage, written once: its row in shell_commands[] (what
 * `help NAME` prints and doc/shell.md must quote) and the command's own
 * "NAME: usage: ..." errors use the same string. */
#define CMD_HELP_USAGE "help [command]"
/* profile's first form, which its argument errors quote. */
#define CMD_PROFILE_RUN_USAGE "profile [ms] [pid|all] [chains] [depth=N] [hz=N] " \
	"[source=tick|pmu] [folded [addr|weight] [cpus]] [wall [services]]"
#define CMD_PROFILE_USAGE CMD_PROFILE_RUN_USAGE " | " \
	"profile start [pid|all] [depth=N] [hz=N] [source=tick|pmu] [wall] | profile stop | " \
	"profile rotate SEQ [folded|addr|weight] | " \
	"profile show [text [chains]|folded [addr|weight] [cpus]|cpus|tasks|top [n]] [services]"
#define CMD_STAT_USAGE "stat [ms] [all|cpu|pid=N] [events=LIST]"
#define CMD_EVENTS_USAGE "events"
#define CMD_PROBE_USAGE "probe add FUNC [stack] [time] | probe del FUNC|all | probe list | " \
	"probe show [FUNC] [text|folded|hist] | probe sites [all] | probe cost | " \
	"probe MS FUNC [stack] [time]"
#define CMD_LSCPU_USAGE "lscpu"
#define CMD_PS_USAGE "ps"
#define CMD_STACKS_USAGE "stacks"
#define CMD_UPTIME_USAGE "uptime"
#define CMD_WORK_USAGE "work [list | start NAME [tasks|frames] | stop]"
#define CMD_NET_USAGE "net"
#define CMD_NETLOAD_USAGE "netload recv PORT ms | netload send IP PORT ms [size] [rate]"
#define CMD_POWEROFF_USAGE "poweroff [status]"
#define CMD_TEST_USAGE "test panic [cpu]|recurse N|overflow [cpu]|fault|gp|ud|" \
	"irqsoff CPU MS [DELAY_MS]|keys"
#define CMD_TRACE_USAGE "trace [ms] EVENTS [cpu=N] [pid=N] [buffer=KB] [mode=overwrite|stop] | " \
	"trace start EVENTS [cpu=N] [pid=N] [buffer=KB] [mode=overwrite|stop] | trace stop | " \
	"trace show [text|summary|latency|irqs|raw] [n] | trace list"

int cmd_help(struct shell_ctx *sh, int argc, char **argv);
int cmd_ps(struct shell_ctx *sh, int argc, char **argv);
int cmd_stacks(struct shell_ctx *sh, int argc, char **argv);
int cmd_uptime(struct shell_ctx *sh, int argc, char **argv);
int cmd_work(struct shell_ctx *sh, int argc, char **argv);
int cmd_profile(struct shell_ctx *sh, int argc, char **argv);
int cmd_lscpu(struct shell_ctx *sh, int argc, char **argv);
int cmd_stat(struct shell_ctx *sh, int argc, char **argv);
int cmd_events(struct shell_ctx *sh, int argc, char **argv);
int cmd_probe(struct shell_ctx *sh, int argc, char **argv);
int cmd_net(struct shell_ctx *sh, int argc, char **argv);
int cmd_netload(struct shell_ctx *sh, int argc, char **argv);
int cmd_trace(struct shell_ctx *sh, int argc, char **argv);

int cmd_poweroff(struct shell_ctx *sh, int argc, char **argv);
int cmd_test(struct shell_ctx *sh, int argc, char **argv);

#endif
