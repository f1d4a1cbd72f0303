/* Memory: what RAM the machine has.  Which pages are free is the
 * kernel's business (kernel/page.c). */
#ifndef KPROF_HAL_MEM_H
#define KPROF_HAL_MEM_H

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

#endif
