/* SPDX-License-Identifier: BSD-2-Clause */
/* A shell command run on a line of words (testlib.h), for the suites on
 * the fake platform: apart from testlib.c so that it alone pulls in the
 * portable library's shell. */
#include "testlib.h"

#include <check.h>
#include <string.h>

void tl_cmd_clear(struct tl_cmd *c)
{
	out_buf_init(&c->ob, c->text, sizeof(c->text));
}

void tl_cmd_init(struct tl_cmd *c)
{
	tl_cmd_clear(c);
	c->sh = (struct shell_ctx){ .out = &c->ob.out, .remote = false };
}

int tl_cmd_run(struct tl_cmd *c, int (*cmd)(struct shell_ctx *, int, char **),
	       const char *line)
{
	static char copy[256];
	char *argv[SHELL_ARGS_MAX];
	int argc = 0;

	ck_assert_uint_lt(strlen(line), sizeof(copy));
	tl_cmd_clear(c);
	strcpy(copy, line);
	for (char *w = strtok(copy, " "); w && argc < SHELL_ARGS_MAX; w = strtok(NULL, " "))
		argv[argc++] = w;
	return cmd(&c->sh, argc, argv);
}
