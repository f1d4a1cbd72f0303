/* SPDX-License-Identifier: BSD-2-Clause */
/* The console: bytes out, bytes in. */
#ifndef KPROF_HAL_CONSOLE_H
#define KPROF_HAL_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

/* Write @len bytes to the console as they are, waiting (bounded) for the
 * device.  Only moves bytes: which CPU writes when, and CR LF for a
 * terminal, are kernel/console.c's, which calls this with interrupts
 * off, at most a line at a time.  Any context, including a panic. */
void hal_console_write(const char *buf, size_t len);

/* The next received byte, or -1 when none is waiting.  Task context;
 * never blocks (the console shell polls and sleeps in between). */
int hal_console_getc(void);

/* What is at the far end of the console, as data for the kernel. */
struct hal_console_info {
	/* It shows only what the kernel sends back (a serial line to a raw
	 * terminal), so the shell must echo typed bytes; false where the
	 * host already echoes (the simulator's stdin). */
	bool echo;
	/* It starts a new line on CR LF, not on LF alone (a terminal). */
	bool crlf;
};

/* Fill @info.  Any context. */
void hal_console_info(struct hal_console_info *info);

#endif
