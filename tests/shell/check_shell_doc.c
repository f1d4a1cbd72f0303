/* SPDX-License-Identifier: BSD-2-Clause */
/* doc/shell.md against the shell's own command table (shell/commands.c,
 * linked here as every platform links it): every command has its section
 * ("## `NAME`") and its usage line exactly as the table gives it, so a
 * command added or regrammared without its documentation fails here; and
 * `NAME --help` prints that usage for every command without running it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "lib/out.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "check_main.h"

static char *doc;

static char *read_doc(void)
{
	char path[4096];
	FILE *f;
	long n;
	char *s;

	snprintf(path, sizeof(path), "%s/doc/shell.md", KP_TEST_SRCDIR);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(fread(s, 1, (size_t)n, f), n);
	s[n] = '\0';
	fclose(f);
	return s;
}

static void setup(void)
{
	doc = read_doc();
}

static void teardown(void)
{
	free(doc);
}

CHECK_TEST("doc", test_every_command_has_a_section)
{
	unsigned n = 0;

	for (const struct shell_cmd *c = shell_commands; c->name; c++, n++) {
		char heading[128];

		snprintf(heading, sizeof(heading), "\n## `%s`\n", c->name);
		ck_assert_msg(strstr(doc, heading) != NULL,
			      "doc/shell.md has no section for the command '%s' (a line \"## `%s`\")",
			      c->name, c->name);
	}
	ck_assert_uint_ge(n, 10);
}
END_TEST

CHECK_TEST("doc", test_every_usage_line_is_documented)
{
	for (const struct shell_cmd *c = shell_commands; c->name; c++) {
		char block[1024];

		snprintf(block, sizeof(block), "```\n%s\n```", c->usage);
		ck_assert_msg(strstr(doc, block) != NULL,
			      "doc/shell.md does not give %s's grammar as the table does:\n%s",
			      c->name, c->usage);
	}
}
END_TEST

/* @line run on the real table, its output into @buf: its status. */
static int run_into(const char *line, char *buf, size_t len)
{
	struct out_buf ob;
	struct shell_ctx sh = { .remote = false };

	out_buf_init(&ob, buf, len);
	sh.out = &ob.out;
	return shell_run_line(&sh, line, strlen(line));
}

/* What `help work` offers runs: `work list` lists as `work` does. */
CHECK_TEST("doc", test_work_list_as_help_says)
{
	char a[4096] = "", b[4096] = "";

	ck_assert_ptr_nonnull(strstr(CMD_WORK_USAGE, "list"));
	ck_assert_int_eq(run_into("work list", a, sizeof(a)), 0);
	ck_assert_int_eq(run_into("work", b, sizeof(b)), 0);
	ck_assert_ptr_nonnull(strstr(a, "split"));
	ck_assert_str_eq(a, b);
	ck_assert_int_ne(run_into("work list x", a, sizeof(a)), 0);
	ck_assert_str_eq(a, "work: list takes no arguments\n");
}
END_TEST

CHECK_TEST("doc", test_every_command_answers_help)
{
	static char buf[4096];
	struct out_buf ob;
	struct shell_ctx sh = { .remote = false };

	for (const struct shell_cmd *c = shell_commands; c->name; c++) {
		char line[64], want[1024];

		for (int dash = 0; dash < 2; dash++) {
			out_buf_init(&ob, buf, sizeof(buf));
			sh.out = &ob.out;
			snprintf(line, sizeof(line), "%s %s", c->name, dash ? "-h" : "--help");
			ck_assert_int_eq(shell_run_line(&sh, line, strlen(line)), 0);
			snprintf(want, sizeof(want), "usage: %s\n%s%s\n", c->usage, c->summary,
				 c->serial_only ? " (serial only)" : "");
			ck_assert_str_eq(buf, want);
		}
	}
}
END_TEST

CHECK_CASE("doc", setup, teardown, 0);

int main(void)
{
	return check_run(check_suite("shell_doc", NULL, 0));
}
