/* SPDX-License-Identifier: BSD-2-Clause */
/* The commands, one file each (shell/cmd_*.c), gathered in commands.c. */
#ifndef KPROF_SHELL_COMMANDS_H
#define KPROF_SHELL_COMMANDS_H

struct shell_ctx;

int cmd_help(struct shell_ctx *sh, int argc, char **argv);
int cmd_ps(struct shell_ctx *sh, int argc, char **argv);
int cmd_stacks(struct shell_ctx *sh, int argc, char **argv);
int cmd_uptime(struct shell_ctx *sh, int argc, char **argv);
int cmd_work(struct shell_ctx *sh, int argc, char **argv);
int cmd_profile(struct shell_ctx *sh, int argc, char **argv);
int cmd_lscpu(struct shell_ctx *sh, int argc, char **argv);
int cmd_stat(struct shell_ctx *sh, int argc, char **argv);
int cmd_net(struct shell_ctx *sh, int argc, char **argv);
int cmd_netload(struct shell_ctx *sh, int argc, char **argv);

int cmd_poweroff(struct shell_ctx *sh, int argc, char **argv);
int cmd_test(struct shell_ctx *sh, int argc, char **argv);

#endif
