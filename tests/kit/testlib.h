/* SPDX-License-Identifier: BSD-2-Clause */
/* What the Check suites would each write again: a shell command run on a
 * line of words with its output kept (the fake platform's suites), and
 * loopback sockets, free ports and numbers read out of a program's text
 * (the suites that drive ksim over its sockets).  Linked from
 * tests/libtesthelp.la; each suite pulls in only the file it uses, so one
 * that runs ksim as a process links none of the kernel's code. */
#ifndef KPROF_TESTS_TESTLIB_H
#define KPROF_TESTS_TESTLIB_H

#include <stdint.h>

#include "lib/out.h"
#include "shell/shell.h"

#define TL_TEXT_MAX 65536

/* One command's output, as the serial console's shell would write it. */
struct tl_cmd {
	char text[TL_TEXT_MAX];
	struct out_buf ob;
	struct shell_ctx sh;		/* writes to ob, not remote */
};

/* Empty @c's output and point its shell at it. */
void tl_cmd_init(struct tl_cmd *c);

/* Empty @c's output only. */
void tl_cmd_clear(struct tl_cmd *c);

/* Run @cmd with the space-separated words of @line (at most 255 bytes,
 * SHELL_ARGS_MAX words) into @c's emptied output; its return value. */
int tl_cmd_run(struct tl_cmd *c, int (*cmd)(struct shell_ctx *, int, char **),
	       const char *line);

/* A UDP socket bound to a free port of 127.0.0.1; the port in @port. */
int tl_loopback_socket(int *port);

/* A UDP port of 127.0.0.1 that nobody uses now. */
int tl_free_port(void);

/* The number after @prefix in @text, or -1 when @prefix is not there. */
long long tl_number_after(const char *text, const char *prefix);

/* CLOCK_MONOTONIC in ms, and a sleep of @ms. */
uint64_t tl_now_ms(void);
void tl_sleep_ms(unsigned ms);

#endif
