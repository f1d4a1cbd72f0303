/* SPDX-License-Identifier: BSD-2-Clause */
/* The shell: line checks and word splitting, the command table lookup,
 * refusals, help, byte-stream line assembly and the console loop.  Runs
 * against a command table of its own, so outputs are known exactly. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "kernel/console.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "shell/commands.h"
#include "shell/shell.h"
#include "check_main.h"
#include "shell_testcmds.h"

unsigned crash_runs, args_runs;

static int tcmd_fail(struct shell_ctx *sh, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	out_puts(sh->out, "fail: it failed\n");
	return -EIO;
}

const struct shell_cmd shell_commands[] = {
	{ "help", "help [command]", "list commands, or show one's usage", cmd_help, false, true },
	{ "args", "args [word]...", "print the words", tcmd_args, false, true },
	{ "crash", "crash", "stop the machine", tcmd_crash, true, false },
	{ "fail", "fail", "always fails", tcmd_fail, false, true },
	{ NULL, NULL, NULL, NULL, false, false },
};

static char outbuf[16384];
static struct out_buf ob;
static struct shell_ctx sh;

static void setup(void)
{
	out_buf_init(&ob, outbuf, sizeof(outbuf));
	sh.out = &ob.out;
	sh.remote = false;
	crash_runs = 0;
}

static int run(const char *line)
{
	return shell_run_line(&sh, line, strlen(line));
}

/* A line of @len bytes: "args " and then x's. */
static char *long_args_line(size_t len)
{
	char *s = malloc(len + 1);

	memset(s, 'x', len);
	memcpy(s, "args ", 5);
	s[len] = '\0';
	return s;
}

/* --- shell_run_line ------------------------------------------------- */

CHECK_TEST("run_line", test_run_line_words_split_on_spaces_and_tabs)
{
	ck_assert_int_eq(run("args  a\tb \t c "), 0);
	ck_assert_str_eq(outbuf, "4 [args] [a] [b] [c]\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_leading_blanks_ignored)
{
	ck_assert_int_eq(run(" \t args x"), 0);
	ck_assert_str_eq(outbuf, "2 [args] [x]\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_empty_prints_nothing)
{
	ck_assert_int_eq(shell_run_line(&sh, "", 0), 0);
	ck_assert_str_eq(outbuf, "");
}
END_TEST

CHECK_TEST("run_line", test_run_line_blank_prints_nothing)
{
	ck_assert_int_eq(run(" \t  \t"), 0);
	ck_assert_str_eq(outbuf, "");
}
END_TEST

CHECK_TEST("run_line", test_run_line_uses_len_not_terminator)
{
	ck_assert_int_eq(shell_run_line(&sh, "args abcdef", 7), 0);
	ck_assert_str_eq(outbuf, "2 [args] [ab]\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_255_bytes_runs)
{
	char *line = long_args_line(255);
	char want[300];

	ck_assert_int_eq(run(line), 0);
	snprintf(want, sizeof(want), "2 [args] [%s]\n", line + 5);
	ck_assert_str_eq(outbuf, want);
	free(line);
}
END_TEST

CHECK_TEST("run_line", test_run_line_256_bytes_refused)
{
	char *line = long_args_line(256);

	ck_assert_int_eq(run(line), -EINVAL);
	ck_assert_str_eq(outbuf, "line longer than 255 bytes (got 256); not run\n");
	free(line);
}
END_TEST

CHECK_TEST("run_line", test_run_line_300_bytes_refused)
{
	char *line = long_args_line(300);

	ck_assert_int_eq(run(line), -EINVAL);
	ck_assert_str_eq(outbuf, "line longer than 255 bytes (got 300); not run\n");
	free(line);
}
END_TEST

CHECK_TEST("run_line", test_run_line_nul_refused)
{
	ck_assert_int_eq(shell_run_line(&sh, "args a\0b", 8), -EINVAL);
	ck_assert_str_eq(outbuf, "line holds control byte 0x00 at column 7; not run\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_leading_nul_refused)
{
	ck_assert_int_eq(shell_run_line(&sh, "\0", 1), -EINVAL);
	ck_assert_str_eq(outbuf, "line holds control byte 0x00 at column 1; not run\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_control_bytes_refused)
{
	static const char bytes[] = { 0x01, 0x08, '\n', '\r', 0x1b, 0x1f, 0x7f };

	for (size_t i = 0; i < sizeof(bytes); i++) {
		char line[] = "args ?";
		char want[80];

		setup();
		line[5] = bytes[i];
		ck_assert_int_eq(shell_run_line(&sh, line, 6), -EINVAL);
		snprintf(want, sizeof(want),
			 "line holds control byte 0x%02x at column 6; not run\n",
			 (unsigned char)bytes[i]);
		ck_assert_str_eq(outbuf, want);
	}
}
END_TEST

CHECK_TEST("run_line", test_run_line_high_bytes_pass_through)
{
	ck_assert_int_eq(run("args \xc3\xa9"), 0);
	ck_assert_str_eq(outbuf, "2 [args] [\xc3\xa9]\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_16_words_run)
{
	ck_assert_int_eq(run("args 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"), 0);
	ck_assert_str_eq(outbuf, "16 [args] [1] [2] [3] [4] [5] [6] [7] [8] [9] [10] "
			 "[11] [12] [13] [14] [15]\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_17_words_refused)
{
	ck_assert_int_eq(run("args 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"), -EINVAL);
	ck_assert_str_eq(outbuf, "too many words (got 17, at most 16); not run\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_many_words_counted)
{
	char line[256];

	memset(line, ' ', sizeof(line));
	memcpy(line, "args", 4);
	for (int i = 5; i < 255; i += 2)
		line[i] = 'w';
	ck_assert_int_eq(shell_run_line(&sh, line, 255), -EINVAL);
	ck_assert_str_eq(outbuf, "too many words (got 126, at most 16); not run\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_unknown_command_refused)
{
	ck_assert_int_eq(run("foo bar"), -ENOENT);
	ck_assert_str_eq(outbuf, "unknown command 'foo'; try help\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_names_are_case_sensitive)
{
	ck_assert_int_eq(run("ARGS"), -ENOENT);
	ck_assert_str_eq(outbuf, "unknown command 'ARGS'; try help\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_prefix_is_not_a_command)
{
	ck_assert_int_eq(run("arg"), -ENOENT);
	ck_assert_int_eq(run("argss"), -ENOENT);
	ck_assert_str_eq(outbuf, "unknown command 'arg'; try help\n"
			 "unknown command 'argss'; try help\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_failing_command_returns_failed)
{
	ck_assert_int_eq(run("fail"), SHELL_CMD_FAILED);
	ck_assert_str_eq(outbuf, "fail: it failed\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_serial_only_runs_locally)
{
	ck_assert_int_eq(run("crash"), 0);
	ck_assert_uint_eq(crash_runs, 1);
	ck_assert_str_eq(outbuf, "crashed\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_serial_only_refused_remote)
{
	sh.remote = true;
	ck_assert_int_eq(run("crash now"), -EPERM);
	ck_assert_uint_eq(crash_runs, 0);
	ck_assert_str_eq(outbuf, "crash: serial console only; not run over the network\n");
}
END_TEST

CHECK_TEST("run_line", test_run_line_remote_runs_ordinary_commands)
{
	sh.remote = true;
	ck_assert_int_eq(run("args r"), 0);
	ck_assert_str_eq(outbuf, "2 [args] [r]\n");
}
END_TEST

/* The library's `test` command, called directly: its argument errors. */
static int run_test_cmd(int argc, char **argv)
{
	out_buf_init(&ob, outbuf, sizeof(outbuf));
	return cmd_test(&sh, argc, argv);
}

CHECK_TEST("run_line", test_test_recurse_without_depth_is_usage_error)
{
	char *none[] = { "test", "recurse", NULL };
	char *two[] = { "test", "recurse", "10", "20", NULL };
	char *junk[] = { "test", "recurse", "deep", NULL };

	ck_assert_int_ne(run_test_cmd(2, none), 0);
	ck_assert_str_eq(outbuf, "test: usage: test recurse N\n");
	ck_assert_int_ne(run_test_cmd(4, two), 0);
	ck_assert_str_eq(outbuf, "test: usage: test recurse N\n");
	ck_assert_int_ne(run_test_cmd(3, junk), 0);
	ck_assert_str_eq(outbuf, "test: recurse depth must be 1-100000 (got deep)\n");
}
END_TEST

CHECK_TEST("run_line", test_find_exact_names_only)
{
	ck_assert_ptr_eq(shell_find("args"), &shell_commands[1]);
	ck_assert_ptr_eq(shell_find("crash"), &shell_commands[2]);
	ck_assert_ptr_null(shell_find("arg"));
	ck_assert_ptr_null(shell_find(""));
}
END_TEST

/* --- help ----------------------------------------------------------- */

CHECK_TEST("help", test_help_lists_every_command_serial_marked)
{
	ck_assert_int_eq(run("help"), 0);
	ck_assert_str_eq(outbuf,
			 "help   list commands, or show one's usage\n"
			 "args   print the words\n"
			 "crash  stop the machine (serial only)\n"
			 "fail   always fails\n");
}
END_TEST

CHECK_TEST("help", test_help_remote_omits_serial_only)
{
	sh.remote = true;
	ck_assert_int_eq(run("help"), 0);
	ck_assert_str_eq(outbuf,
			 "help  list commands, or show one's usage\n"
			 "args  print the words\n"
			 "fail  always fails\n");
}
END_TEST

CHECK_TEST("help", test_help_command_prints_usage)
{
	ck_assert_int_eq(run("help args"), 0);
	ck_assert_str_eq(outbuf, "usage: args [word]...\nprint the words\n");
}
END_TEST

CHECK_TEST("help", test_help_serial_only_command_marked)
{
	ck_assert_int_eq(run("help crash"), 0);
	ck_assert_str_eq(outbuf, "usage: crash\nstop the machine (serial only)\n");
}
END_TEST

CHECK_TEST("help", test_help_unknown_command_error)
{
	ck_assert_int_eq(run("help nope"), SHELL_CMD_FAILED);
	ck_assert_str_eq(outbuf, "help: no command 'nope'; help lists them\n");
}
END_TEST

CHECK_TEST("help", test_help_two_names_usage_error)
{
	ck_assert_int_eq(run("help args fail"), SHELL_CMD_FAILED);
	ck_assert_str_eq(outbuf, "help: usage: help [command]\n");
}
END_TEST

/* --- shell_input: byte streams -------------------------------------- */

static struct shell_input in;

static void input_setup(void)
{
	setup();
	shell_input_init(&in, false);
}

static unsigned feed(const char *s)
{
	return shell_input_feed(&in, &sh, s, strlen(s));
}

CHECK_TEST("input", test_input_lf_ends_line)
{
	ck_assert_uint_eq(feed("args a\n"), 1);
	ck_assert_str_eq(outbuf, "2 [args] [a]\n> ");
}
END_TEST

CHECK_TEST("input", test_input_cr_ends_line)
{
	ck_assert_uint_eq(feed("args a\r"), 1);
	ck_assert_str_eq(outbuf, "2 [args] [a]\n> ");
}
END_TEST

CHECK_TEST("input", test_input_crlf_is_one_end)
{
	ck_assert_uint_eq(feed("args a\r\nargs b\r\n"), 2);
	ck_assert_str_eq(outbuf, "2 [args] [a]\n> 2 [args] [b]\n> ");
}
END_TEST

CHECK_TEST("input", test_input_crlf_split_across_feeds)
{
	ck_assert_uint_eq(feed("args a\r"), 1);
	ck_assert_uint_eq(feed("\n"), 0);
	ck_assert_uint_eq(feed("args b\r"), 1);
	ck_assert_uint_eq(feed("\nargs c\n"), 1);
	ck_assert_str_eq(outbuf, "2 [args] [a]\n> 2 [args] [b]\n> 2 [args] [c]\n> ");
}
END_TEST

CHECK_TEST("input", test_input_cr_cr_is_two_lines)
{
	ck_assert_uint_eq(feed("args a\r\r"), 2);
	ck_assert_str_eq(outbuf, "2 [args] [a]\n> > ");
}
END_TEST

CHECK_TEST("input", test_input_lf_lf_is_two_lines)
{
	ck_assert_uint_eq(feed("args a\n\n"), 2);
	ck_assert_str_eq(outbuf, "2 [args] [a]\n> > ");
}
END_TEST

CHECK_TEST("input", test_input_lf_cr_is_two_lines)
{
	ck_assert_uint_eq(feed("args a\n\r"), 2);
	ck_assert_str_eq(outbuf, "2 [args] [a]\n> > ");
}
END_TEST

CHECK_TEST("input", test_input_crlf_after_other_byte_only)
{
	/* A CR, a byte, then an LF: the LF ends a second line. */
	ck_assert_uint_eq(feed("args a\rx\n"), 2);
	ck_assert_str_eq(outbuf, "2 [args] [a]\n> unknown command 'x'; try help\n> ");
}
END_TEST

CHECK_TEST("input", test_input_line_split_across_feeds)
{
	ck_assert_uint_eq(feed("ar"), 0);
	ck_assert_str_eq(outbuf, "");
	ck_assert_uint_eq(feed("gs x"), 0);
	ck_assert_uint_eq(feed(" y\n"), 1);
	ck_assert_str_eq(outbuf, "3 [args] [x] [y]\n> ");
}
END_TEST

CHECK_TEST("input", test_input_empty_feed_does_nothing)
{
	ck_assert_uint_eq(shell_input_feed(&in, &sh, "", 0), 0);
	ck_assert_str_eq(outbuf, "");
}
END_TEST

CHECK_TEST("input", test_input_prompt_after_each_line)
{
	ck_assert_uint_eq(feed("fail\nnope\n\nargs\n"), 4);
	ck_assert_str_eq(outbuf, "fail: it failed\n> "
			 "unknown command 'nope'; try help\n> "
			 "> "
			 "1 [args]\n> ");
}
END_TEST

CHECK_TEST("input", test_input_255_bytes_runs)
{
	char *line = long_args_line(255);
	char want[300];

	feed(line);
	ck_assert_uint_eq(feed("\n"), 1);
	snprintf(want, sizeof(want), "2 [args] [%s]\n> ", line + 5);
	ck_assert_str_eq(outbuf, want);
	free(line);
}
END_TEST

CHECK_TEST("input", test_input_256_bytes_discarded)
{
	char *line = long_args_line(256);

	feed(line);
	ck_assert_str_eq(outbuf, "");
	ck_assert_uint_eq(feed("\n"), 1);
	ck_assert_str_eq(outbuf, "line longer than 255 bytes (got 256); discarded\n> ");
	free(line);
}
END_TEST

CHECK_TEST("input", test_input_300_bytes_in_pieces_one_error)
{
	char *line = long_args_line(300);

	for (size_t i = 0; i < 300; i += 7)
		shell_input_feed(&in, &sh, line + i, 300 - i < 7 ? 300 - i : 7);
	ck_assert_uint_eq(feed("\r\nargs ok\r\n"), 2);
	ck_assert_str_eq(outbuf, "line longer than 255 bytes (got 300); discarded\n> "
			 "2 [args] [ok]\n> ");
	free(line);
}
END_TEST

CHECK_TEST("input", test_input_nul_refused)
{
	ck_assert_uint_eq(shell_input_feed(&in, &sh, "args \0x\n", 8), 1);
	ck_assert_str_eq(outbuf, "line holds control byte 0x00 at column 6; not run\n> ");
}
END_TEST

CHECK_TEST("input", test_input_escape_sequence_refused)
{
	ck_assert_uint_eq(feed("args \x1b[A\n"), 1);
	ck_assert_str_eq(outbuf, "line holds control byte 0x1b at column 6; not run\n> ");
}
END_TEST

CHECK_TEST("input", test_input_backspace_erases)
{
	ck_assert_uint_eq(feed("argz\bs a\n"), 1);
	ck_assert_str_eq(outbuf, "2 [args] [a]\n> ");
}
END_TEST

CHECK_TEST("input", test_input_del_erases)
{
	ck_assert_uint_eq(feed("args abc\x7f\x7f\n"), 1);
	ck_assert_str_eq(outbuf, "2 [args] [a]\n> ");
}
END_TEST

CHECK_TEST("input", test_input_erase_on_empty_line_ignored)
{
	ck_assert_uint_eq(feed("\b\x7f\bargs\n"), 1);
	ck_assert_str_eq(outbuf, "1 [args]\n> ");
}
END_TEST

CHECK_TEST("input", test_input_erase_whole_line_is_blank)
{
	ck_assert_uint_eq(feed("ab\b\b\n"), 1);
	ck_assert_str_eq(outbuf, "> ");
}
END_TEST

CHECK_TEST("input", test_input_overlong_erased_back_runs)
{
	char *line = long_args_line(260);

	feed(line);
	feed("\b\b\b\b\b");
	ck_assert_uint_eq(feed("\n"), 1);
	line[255] = '\0';
	{
		char want[300];

		snprintf(want, sizeof(want), "2 [args] [%s]\n> ", line + 5);
		ck_assert_str_eq(outbuf, want);
	}
	free(line);
}
END_TEST

CHECK_TEST("input", test_input_no_echo_by_default)
{
	ck_assert_uint_eq(feed("ab"), 0);
	ck_assert_str_eq(outbuf, "");
}
END_TEST

CHECK_TEST("input", test_input_echo_typed_bytes)
{
	shell_input_init(&in, true);
	ck_assert_uint_eq(feed("args\tb"), 0);
	ck_assert_str_eq(outbuf, "args\tb");
	ck_assert_uint_eq(feed("c\b\r\n"), 1);
	ck_assert_str_eq(outbuf, "args\tbc\b \b\r\n2 [args] [b]\n> ");
}
END_TEST

CHECK_TEST("input", test_input_echo_erase_on_empty_silent)
{
	shell_input_init(&in, true);
	ck_assert_uint_eq(feed("\b\x7f"), 0);
	ck_assert_str_eq(outbuf, "");
}
END_TEST

CHECK_TEST("input", test_input_echo_skips_control_bytes)
{
	shell_input_init(&in, true);
	ck_assert_uint_eq(shell_input_feed(&in, &sh, "a\0\x1b" "b", 4), 0);
	ck_assert_str_eq(outbuf, "ab");
}
END_TEST

/* --- the console shell ---------------------------------------------- */

static void console_setup(void)
{
	setup();
	fake_console_clear();
}

CHECK_TEST("console", test_console_init_prints_prompt)
{
	struct shell_console con;

	shell_console_init(&con, &out_console, false);
	ck_assert_str_eq(fake_console_out, "> ");
	ck_assert(!con.sh.remote);
}
END_TEST

CHECK_TEST("console", test_console_poll_nothing_waiting)
{
	struct shell_console con;

	shell_console_init(&con, &out_console, false);
	fake_console_clear();
	ck_assert_uint_eq(shell_console_poll(&con), 0);
	ck_assert_str_eq(fake_console_out, "");
}
END_TEST

CHECK_TEST("console", test_console_poll_runs_lines)
{
	struct shell_console con;

	shell_console_init(&con, &out_console, false);
	fake_console_input("args a\r\nar", 10);
	ck_assert_uint_eq(shell_console_poll(&con), 10);
	ck_assert_str_eq(fake_console_out, "> 2 [args] [a]\n> ");
	fake_console_input("gs b\r", 5);
	ck_assert_uint_eq(shell_console_poll(&con), 5);
	ck_assert_str_eq(fake_console_out, "> 2 [args] [a]\n> 2 [args] [b]\n> ");
}
END_TEST

CHECK_TEST("console", test_console_poll_takes_more_than_a_chunk)
{
	struct shell_console con;
	char bytes[200];
	char want[2048];
	size_t wlen = 2;

	/* 40 lines "args\n" = 200 bytes, more than the 64-byte chunk. */
	for (int i = 0; i < 40; i++)
		memcpy(bytes + 5 * i, "args\n", 5);
	memcpy(want, "> ", 2);
	for (int i = 0; i < 40; i++) {
		memcpy(want + wlen, "1 [args]\n> ", 11);
		wlen += 11;
	}
	want[wlen] = '\0';
	shell_console_init(&con, &out_console, false);
	fake_console_input(bytes, sizeof(bytes));
	ck_assert_uint_eq(shell_console_poll(&con), 200);
	ck_assert_str_eq(fake_console_out, want);
}
END_TEST

CHECK_TEST("console", test_console_echo_flag)
{
	struct shell_console con;

	shell_console_init(&con, &out_console, true);
	fake_console_input("args\r", 5);
	shell_console_poll(&con);
	ck_assert_str_eq(fake_console_out, "> args\r\n1 [args]\n> ");
}
END_TEST

CHECK_CASE("input", input_setup, NULL, 0);
CHECK_CASE("console", console_setup, NULL, 0);

int main(void)
{
	return check_run(check_suite("shell", setup, 0));
}
