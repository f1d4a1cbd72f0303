/* SPDX-License-Identifier: BSD-2-Clause */
/* Memory: what RAM the machine has.  Which pages are free is the
 * kernel's business (kernel/page.c). */
#ifndef KPROF_HAL_MEM_H
#define KPROF_HAL_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HAL_PAGE_SIZE 4096

enum hal_mem_kind {
	HAL_MEM_RAM,		/* usable once the kernel is up */
	HAL_MEM_RESERVED,	/* inside RAM but never to be handed out: the
				 * kernel image, firmware tables, a device tree */
};

struct hal_mem_range {
	uintptr_t addr;		/* as the kernel addresses it */
	size_t size;
	enum hal_mem_kind kind;
};

/* Fill @r with at most @max ranges, RAM and reserved in any order
 * (reserved wins where they overlap), and return how many the platform
 * has: more than @max means some were left out.  RAM the kernel cannot
 * address (beyond the platform's mapping) is not reported.  Boot CPU,
 * once, interrupts off, after hal_platform_early_init(). */
size_t hal_mem_ranges(struct hal_mem_range *r, size_t max);

/* Make the page at @page (page-aligned, from page_alloc()) fault on every
 * access (@guard true), or ordinary memory again (false), so that a task
 * stack running into the page below it faults onto a good stack instead
 * of overwriting memory.  "Every access" holds at least on the calling
 * CPU and, from its first instruction on, on the CPU of the task whose
 * stack sits above the page; a platform may let another CPU's stale
 * translation expire (x86: mem.c says why).  Returns true when the
 * platform guards the page, false when it cannot (the page stays
 * ordinary memory).  Task context; may allocate a page for its page
 * tables; never sleeps. */
bool hal_mem_guard(uintptr_t page, bool guard);

#endif
