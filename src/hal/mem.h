/* Pages for the kernel heap. */
#ifndef KPROF_HAL_MEM_H
#define KPROF_HAL_MEM_H

#include <stddef.h>

#define HAL_PAGE_SIZE 4096

/* The boot story's memory step: find the machine's RAM and make it what
 * hal_mem_alloc_pages() hands out.  Boot CPU, once, interrupts off. */
void hal_mem_init(void);

/* @npages physically and virtually contiguous pages, zeroed, aligned to
 * HAL_PAGE_SIZE, or NULL when memory is exhausted.  Task context
 * (callers hold no spinlock); may take the allocator's own lock. */
void *hal_mem_alloc_pages(size_t npages);

/* Return pages hal_mem_alloc_pages() gave, with the same count. */
void hal_mem_free_pages(void *pages, size_t npages);

#endif
