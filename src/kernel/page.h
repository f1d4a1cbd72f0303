/* SPDX-License-Identifier: BSD-2-Clause */
/* The page allocator: every page of RAM the platform reports
 * (hal_mem_ranges()), one bit each, first fit. */
#ifndef KPROF_KERNEL_PAGE_H
#define KPROF_KERNEL_PAGE_H

#include <stddef.h>

/* The boot story's memory step: ask the platform for its RAM and
 * reserved ranges and free what is RAM and not reserved.  Boot CPU,
 * interrupts off.  Builds the map once per address space: a platform
 * that boots the kernel again in the same process (ksim's Check suites
 * start machine after machine) keeps the heap's pages where they are. */
void page_init(void);

/* @npages physically and virtually contiguous pages, zeroed, aligned to
 * HAL_PAGE_SIZE, or NULL when no run that long is free.  Any context
 * but an NMI (takes a spinlock with interrupts off). */
void *page_alloc(size_t npages);

/* Return pages page_alloc() gave, with the same count. */
void page_free(void *pages, size_t npages);

/* Pages free now. */
size_t page_free_count(void);

#endif
