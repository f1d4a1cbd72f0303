/* SPDX-License-Identifier: BSD-2-Clause */
/* Running one command line: check it, split it into words, find the
 * command and run it.  Every refusal is one whole line of output. */
#include "shell/shell.h"

#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"

const struct shell_cmd *shell_find(const char *name)
{
	for (const struct shell_cmd *c = shell_commands; c->name; c++)
		if (kstreq(c->name, name))
			return c;
	return NULL;
}

void shell_print_usage(struct out *o, const struct shell_cmd *c)
{
	out_printf(o, "usage: %s\n", c->usage);
	out_printf(o, "%s%s\n", c->summary, c->serial_only ? " (serial only)" : "");
}

static bool shell_is_control(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

int shell_check_line(struct out *o, const char *line, size_t len)
{
	if (len > SHELL_LINE_MAX) {
		out_printf(o, "line longer than %u bytes (got %zu); not run\n",
			   SHELL_LINE_MAX, len);
		return -EINVAL;
	}
	for (size_t i = 0; i < len; i++) {
		if (shell_is_control((unsigned char)line[i])) {
			out_printf(o, "line holds control byte 0x%02x at column %zu; not run\n",
				   (unsigned char)line[i], i + 1);
			return -EINVAL;
		}
	}
	return 0;
}

static bool shell_is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Split @buf in place; returns the word count, or SHELL_ARGS_MAX + 1 when
 * there are more words than argv holds. */
static int shell_split(char *buf, char **argv)
{
	int argc = 0;
	char *p = buf;

	for (;;) {
		while (shell_is_space(*p))
			*p++ = '\0';
		if (!*p)
			return argc;
		if (argc == SHELL_ARGS_MAX)
			return SHELL_ARGS_MAX + 1;
		argv[argc++] = p;
		while (*p && !shell_is_space(*p))
			p++;
	}
}

static int shell_count_words(const char *line, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len; i++)
		if (!shell_is_space(line[i]) && (i == 0 || shell_is_space(line[i - 1])))
			n++;
	return n;
}

/* NULL when a keyless remote line may run; else what to name in the
 * refusal ("work", "profile start", "stat over 2000 ms").  The table says
 * which commands change nothing (shell_cmd.keyless); two of those change
 * state or run long with some arguments. */
static const char *shell_keyless_refusal(const struct shell_cmd *cmd, int argc,
					 char **argv)
{
	uint64_t ms;

	if (!cmd->keyless)
		return argv[0];
	/* profile start and stop change the profiler's state for others. */
	if (kstreq(argv[0], "profile") && argc > 1 &&
	    (kstreq(argv[1], "start") || kstreq(argv[1], "stop")))
		return argv[1];
	/* stat takes up to 10 s: without a key, the 2 s window limit. */
	if (kstreq(argv[0], "stat") && argc > 1 && parse_u64(argv[1], &ms) == 0 &&
	    ms > SHELL_KEYLESS_MS_MAX)
		return "stat over 2000 ms";
	return NULL;
}

/* One line when @sh may not run argv without a key; true when refused. */
static bool shell_keyless_refuse(struct shell_ctx *sh, const struct shell_cmd *cmd,
				 int argc, char **argv)
{
	const char *what;

	if (!sh->remote || sh->authenticated)
		return false;
	what = shell_keyless_refusal(cmd, argc, argv);
	if (!what)
		return false;
	if (what == argv[1])
		out_printf(sh->out, "%s %s: needs a key; this UDP shell is unauthenticated (udpsh.key)\n",
			   argv[0], what);
	else
		out_printf(sh->out, "%s: needs a key; this UDP shell is unauthenticated (udpsh.key)\n",
			   what);
	return true;
}

int shell_run_line(struct shell_ctx *sh, const char *line, size_t len)
{
	char buf[SHELL_LINE_MAX + 1];
	char *argv[SHELL_ARGS_MAX + 1];
	const struct shell_cmd *cmd;
	int argc, err;

	err = shell_check_line(sh->out, line, len);
	if (err)
		return err;
	kmemcpy(buf, line, len);
	buf[len] = '\0';
	argc = shell_split(buf, argv);
	if (argc == 0)
		return 0;
	if (argc > SHELL_ARGS_MAX) {
		out_printf(sh->out, "too many words (got %d, at most %u); not run\n",
			   shell_count_words(line, len), SHELL_ARGS_MAX);
		return -EINVAL;
	}
	argv[argc] = NULL;
	cmd = shell_find(argv[0]);
	if (!cmd) {
		out_printf(sh->out, "unknown command '%s'; try help\n", argv[0]);
		return -ENOENT;
	}
	if (cmd->serial_only && sh->remote) {
		out_printf(sh->out, "%s: serial console only; not run over the network\n",
			   cmd->name);
		return -EPERM;
	}
	/* Every command's usage, the same way, from the one table: no
	 * command has to parse --help itself. */
	if (argc == 2 && (kstreq(argv[1], "--help") || kstreq(argv[1], "-h"))) {
		shell_print_usage(sh->out, cmd);
		return 0;
	}
	if (shell_keyless_refuse(sh, cmd, argc, argv))
		return -EPERM;
	return cmd->run(sh, argc, argv) ? SHELL_CMD_FAILED : 0;
}

bool shell_refuse_unauthenticated(struct shell_ctx *sh, const char *what)
{
	if (!sh->remote || sh->authenticated)
		return false;
	out_printf(sh->out, "%s: serial console only on an unauthenticated UDP shell (set udpsh.key)\n",
		   what);
	return true;
}
