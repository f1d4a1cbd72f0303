/* SPDX-License-Identifier: BSD-2-Clause */
#include "kernel/backtrace.h"

#include "kernel/stacktrace.h"
#include "kernel/symbols.h"
#include "lib/out.h"

void backtrace_print_caller(struct out *o, uintptr_t ra)
{
	char name[96];

	sym_format(name, sizeof(name), ra, true);
	out_printf(o, BACKTRACE_INDENT "<- %s\n", name);
}

void backtrace_print_trap(struct out *o, const struct trap_frame *tf)
{
	uintptr_t frames[BACKTRACE_MAX];
	size_t n = stacktrace_from_trap(tf, frames, BACKTRACE_MAX);
	char name[96];

	if (n == 0)
		return;
	sym_format(name, sizeof(name), frames[0], false);
	out_printf(o, "at %s\n", name);
	for (size_t i = 1; i < n; i++)
		backtrace_print_caller(o, frames[i]);
}

__attribute__((noinline)) void backtrace_print_here(struct out *o)
{
	uintptr_t frames[BACKTRACE_MAX];
	struct stack_bounds b;
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	size_t n = 0;

	if (stacktrace_bounds_for(fp, &b))
		n = stacktrace_from_fp(fp, &b, frames, BACKTRACE_MAX);
	out_puts(o, "backtrace:\n");
	for (size_t i = 0; i < n; i++)
		backtrace_print_caller(o, frames[i]);
}
