/* SPDX-License-Identifier: BSD-2-Clause */
/* Backtraces for panics, printed exactly as the profile report prints
 * callers: one "        <- symbol+0xoff" line per return address. */
#ifndef KPROF_KERNEL_BACKTRACE_H
#define KPROF_KERNEL_BACKTRACE_H

#include <stddef.h>
#include <stdint.h>

struct out;
struct trap_frame;

#define BACKTRACE_MAX 16
/* The indent before "<- " on caller lines, shared with the report. */
#define BACKTRACE_INDENT "        "

/* One caller line for return address @ra. */
void backtrace_print_caller(struct out *o, uintptr_t ra);

/* The interrupted instruction then its callers. */
void backtrace_print_trap(struct out *o, const struct trap_frame *tf);

/* The callers of the function calling this. */
void backtrace_print_here(struct out *o);

#endif
