/* SPDX-License-Identifier: BSD-2-Clause */
/* The shell: one command table, run from the console, the simulator's
 * stdin and the UDP shell alike.  Every command writes to a struct out. */
#ifndef KPROF_SHELL_SHELL_H
#define KPROF_SHELL_SHELL_H

#include <stdbool.h>
#include <stddef.h>

struct out;

/* Longest command line, terminator excluded. */
#define SHELL_LINE_MAX 255
/* Most words a line may hold, command included. */
#define SHELL_ARGS_MAX 16
/* Printed when the shell is ready for the next line; always the last
 * thing sent. */
#define SHELL_PROMPT "> "

/* What shell_run_line() returns when the command ran and reported a
 * failure of its own (it printed why). */
#define SHELL_CMD_FAILED 1

struct shell_ctx {
	struct out *out;
	/* The line came over the network: serial-only commands are refused. */
	bool remote;
	/* ... with a verified MAC (udpsh/udpsh.h).  A remote line without one may
	 * come from anyone who can forge an allowed source address: commands
	 * that act beyond the reply refuse it (shell_refuse_unauthenticated()). */
	bool authenticated;
};

/* Without a key a remote line runs only commands that change nothing and
 * end within this many ms (help, uptime, ps, lscpu, net, stacks, profile
 * windows and show, stat windows up to it); shell_run_line() answers the
 * others with one line saying a key is needed. */
#define SHELL_KEYLESS_MS_MAX 2000

/* True when @sh's line came over the network without authentication:
 * `work start` and `netload send` are then refused, with a one-line
 * error naming @what, printed here. */
bool shell_refuse_unauthenticated(struct shell_ctx *sh, const char *what);

struct shell_cmd {
	const char *name;
	const char *usage;	/* "profile [ms] [pid|all] [chains]" */
	const char *summary;	/* one line for help */
	/* argv[0] is the command name.  Returns 0, or non-zero after
	 * printing its own one-line error. */
	int (*run)(struct shell_ctx *sh, int argc, char **argv);
	bool serial_only;	/* crashes or stops the machine on purpose */
	/* Changes nothing and ends within SHELL_KEYLESS_MS_MAX: runs on a
	 * UDP shell without a key (see shell_run_line()). */
	bool keyless;
};

/* The command table, terminated by an entry whose name is NULL.  Defined
 * in shell/commands.c; a program (a test) may link its own instead. */
extern const struct shell_cmd shell_commands[];

/* The table entry called @name, or NULL. */
const struct shell_cmd *shell_find(const char *name);

/* Two lines on @o: "usage: " and @c's usage, then its summary.  What
 * `help NAME` and `NAME --help` (or -h) print. */
void shell_print_usage(struct out *o, const struct shell_cmd *c);

/* Check a line's length and bytes without running it.  A line longer than
 * SHELL_LINE_MAX, or one holding a control byte (NUL, CR, LF, ESC, DEL,
 * anything below 0x20 but tab), gets a one-line error on @o and -EINVAL.
 * Returns 0 when the line may be split into words. */
int shell_check_line(struct out *o, const char *line, size_t len);

/* Run one line (no terminator), words split on spaces and tabs.  Rejects,
 * with a one-line error on sh->out, a line shell_check_line() refuses or
 * one of more than SHELL_ARGS_MAX words (-EINVAL), an unknown command
 * (-ENOENT: "unknown command 'foo'; try help"), and a serial-only command
 * when sh->remote (-EPERM).  "NAME --help" or "NAME -h" prints NAME's
 * usage (shell_print_usage()) and returns 0 without running it.  Empty or blank lines print nothing and
 * return 0.  Otherwise returns 0 when the command succeeded and
 * SHELL_CMD_FAILED when it failed.  Prints no prompt.  Task context. */
int shell_run_line(struct shell_ctx *sh, const char *line, size_t len);

/* Line assembly for byte streams (console, stdin).  CR, LF or CRLF end a
 * line (the LF of a CRLF is not a second, empty line, even when it comes
 * in a later feed).  Backspace (0x08) and DEL (0x7f) remove the last byte
 * of the line.  A line that grows past SHELL_LINE_MAX is discarded whole,
 * with one error when its end arrives (editing it back under the limit
 * before then saves it).  With @echo, typed bytes are written back as a
 * terminal expects: printable bytes as they come, "\b \b" for an erase,
 * "\r\n" for a line end; control bytes are not echoed. */
struct shell_input {
	char buf[SHELL_LINE_MAX + 1];
	size_t len;		/* bytes typed, may exceed what buf holds */
	bool last_was_cr;
	bool echo;
	unsigned failed;	/* lines refused or whose command failed */
};

void shell_input_init(struct shell_input *in, bool echo);

/* Feed received bytes; each completed line runs (shell_run_line), then
 * the prompt is written.  Returns the number of lines completed. */
unsigned shell_input_feed(struct shell_input *in, struct shell_ctx *sh,
			  const char *bytes, size_t n);

/* A shell on the console (hal/console.h): a shell_input with its context. */
struct shell_console {
	struct shell_input in;
	struct shell_ctx sh;
};

/* Set up @con writing to @out, local (not remote), and print the first
 * prompt. */
void shell_console_init(struct shell_console *con, struct out *out, bool echo);

/* Take every byte hal_console_getc() has waiting and feed it.  Returns the
 * number of bytes taken (0: nothing was waiting).  Task context. */
size_t shell_console_poll(struct shell_console *con);

/* The console shell task: prompt, then lines from hal_console_getc(),
 * polled every 10 ms while nothing arrives.  @arg is the echo flag,
 * (void *)1 where the console does not echo typed bytes itself (a serial
 * line), NULL where it does (a terminal on the simulator's stdin).
 * Never returns. */
void shell_console_task(void *arg);

/* Console lines so far that were refused or whose command failed: a
 * program that runs a script on the console (ksim -c) exits non-zero when
 * any did.  Read from any thread; updated after each line has run. */
unsigned shell_console_failures(void);

#endif
