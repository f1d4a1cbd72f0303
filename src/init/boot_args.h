/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot story's own command-line keys: cmd= and cpus= (doc/boot.md). */
#ifndef KPROF_INIT_BOOT_ARGS_H
#define KPROF_INIT_BOOT_ARGS_H

/* Longest value of cmd=, terminator excluded. */
#define BOOT_CMD_MAX 511

struct boot_args {
	/* Shell commands to run once the kernel is up, separated by ';'.
	 * Empty by default. */
	char cmd[BOOT_CMD_MAX + 1];
	/* cpus=N: bring up at most N CPUs (1 .. HAL_MAX_CPUS); 0, the
	 * default, brings up every CPU the platform finds. */
	unsigned cpus;
};

/* The values in force: the defaults until the command line is read. */
const struct boot_args *boot_args(void);

/* Back to the defaults: no commands, every CPU.  For tests. */
void boot_args_reset(void);

#endif
