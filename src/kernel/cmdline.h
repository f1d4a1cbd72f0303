/* The kernel command line: space-separated key=value words.  A value may
 * be double-quoted to hold spaces and semicolons: cmd="work;ps".  No
 * escapes inside quotes. */
#ifndef KPROF_KERNEL_CMDLINE_H
#define KPROF_KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

struct out;

/* Longest value of cmd=, terminator excluded. */
#define CMDLINE_CMD_MAX 511

struct cmdline {
	/* Shell commands to run once the kernel is up, separated by ';'.
	 * Empty by default. */
	char cmd[CMDLINE_CMD_MAX + 1];
	/* cpus=N: bring up at most N CPUs (1 .. HAL_MAX_CPUS); 0, the
	 * default, brings up every CPU the platform finds.  The platform
	 * reads it (it starts its CPUs before kernel_main()). */
	unsigned cpus;
};

/* Defaults: no commands, every CPU. */
void cmdline_init(struct cmdline *cl);

/* Read @s into @cl.  A well-formed word with a known key sets it (the
 * last one wins).  Problems are reported on @o, one line each, and change
 * nothing: an unknown key (once, however often it appears), a malformed
 * word (no '=', empty key, stray or unterminated quote), a value too
 * long.  Returns the number of lines reported.  Any context that may
 * write to @o; allocates nothing. */
int cmdline_parse(struct cmdline *cl, const char *s, struct out *o);

/* Step through the ';'-separated commands of @cmd: *pos starts at @cmd;
 * each call returns the next non-blank command (leading and trailing
 * spaces dropped) with its length in *len, or NULL at the end. */
const char *cmdline_next_command(const char **pos, size_t *len);

#endif
