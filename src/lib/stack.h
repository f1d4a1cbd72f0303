/* SPDX-License-Identifier: BSD-2-Clause */
/* A new task's stack, as every platform's hal_context_prepare() starts
 * it. */
#ifndef KPROF_LIB_STACK_H
#define KPROF_LIB_STACK_H

#include <stddef.h>
#include <stdint.h>

/* The top of the @size-byte @stack, 16-byte aligned, with two zero words
 * at the very top: a terminating frame record {0, 0} that ends any stack
 * walk reaching it.  Returns the address just below them, where the
 * platform places its first switch frame. */
static inline uintptr_t stack_top_terminated(void *stack, size_t size)
{
	uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;

	top -= 16;
	((uint64_t *)top)[0] = 0;
	((uint64_t *)top)[1] = 0;
	return top;
}

#endif
