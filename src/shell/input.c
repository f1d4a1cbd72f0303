/* SPDX-License-Identifier: BSD-2-Clause */
/* Line assembly for byte streams: the console and the simulator's stdin
 * deliver bytes, the shell runs lines. */
#include "shell/shell.h"

#include "lib/kstring.h"
#include "lib/out.h"

#define SHELL_BS 0x08
#define SHELL_DEL 0x7f

void shell_input_init(struct shell_input *in, bool echo)
{
	kmemset(in, 0, sizeof(*in));
	in->echo = echo;
}

static void shell_input_echo(struct shell_input *in, struct shell_ctx *sh,
			     const char *s, size_t n)
{
	if (in->echo)
		out_write(sh->out, s, n);
}

static void shell_input_end_line(struct shell_input *in, struct shell_ctx *sh)
{
	shell_input_echo(in, sh, "\r\n", 2);
	if (in->len > SHELL_LINE_MAX) {
		out_printf(sh->out, "line longer than %u bytes (got %zu); discarded\n",
			   SHELL_LINE_MAX, in->len);
		in->failed++;
	} else if (shell_run_line(sh, in->buf, in->len) != 0) {
		in->failed++;
	}
	in->len = 0;
	out_puts(sh->out, SHELL_PROMPT);
}

static void shell_input_erase(struct shell_input *in, struct shell_ctx *sh)
{
	if (in->len == 0)
		return;
	in->len--;
	shell_input_echo(in, sh, "\b \b", 3);
}

/* Past the limit only the count grows: the line is discarded when it
 * ends, unless erasing brings it back to what buf still holds. */
static void shell_input_add(struct shell_input *in, struct shell_ctx *sh, char c)
{
	unsigned char u = (unsigned char)c;

	if (in->len < SHELL_LINE_MAX)
		in->buf[in->len] = c;
	if (in->len < (size_t)-1)
		in->len++;
	if (u >= 0x20 || c == '\t')
		shell_input_echo(in, sh, &c, 1);
}

unsigned shell_input_feed(struct shell_input *in, struct shell_ctx *sh,
			  const char *bytes, size_t n)
{
	unsigned lines = 0;

	for (size_t i = 0; i < n; i++) {
		char c = bytes[i];
		bool was_cr = in->last_was_cr;

		in->last_was_cr = (c == '\r');
		if (c == '\n' && was_cr)
			continue;
		if (c == '\r' || c == '\n') {
			shell_input_end_line(in, sh);
			lines++;
		} else if (c == SHELL_BS || c == SHELL_DEL) {
			shell_input_erase(in, sh);
		} else {
			shell_input_add(in, sh, c);
		}
	}
	return lines;
}
