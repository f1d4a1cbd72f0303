/* SPDX-License-Identifier: BSD-2-Clause */
/* The console's writers: one CPU at a time, a line at a time. */
#ifndef KPROF_KERNEL_CONSOLE_H
#define KPROF_KERNEL_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

struct out;

/* The console as an output sink: writes go through console_write(). */
extern struct out out_console;

/* Write @len bytes to the console (hal_console_write()) as the one
 * writer: whole lines of one CPU are never interleaved with another's.
 * Any context, including a panic that interrupted the holder on this
 * CPU (it writes through) or that stopped the holder on another (see
 * console_break()). */
void console_write(const char *buf, size_t len);

/* After a panic stopped the other CPUs: one of them may have been
 * stopped holding the console and will never let go.  Only the CPU
 * that stopped the others calls it. */
void console_break(void);

/* True when the console shell must echo typed bytes (hal_console_info()).
 * Any context. */
bool console_wants_echo(void);

#endif
