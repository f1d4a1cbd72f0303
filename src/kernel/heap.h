/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel heap: small objects from per-size slabs, large ones as
 * whole pages from page_alloc(). */
#ifndef KPROF_KERNEL_HEAP_H
#define KPROF_KERNEL_HEAP_H

#include <stddef.h>

/* Zeroed memory of at least @size bytes, or NULL.  Task context or
 * interrupts off; never from the profiler's sampling path. */
void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(void *p);

struct out;

#endif
