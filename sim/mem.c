/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/mem.h for ksim: the machine's RAM is one anonymous mapping of the
 * host, made once per process and reported whole; the kernel's page
 * allocator hands it out.  The Check suites start machine after machine
 * in one process, and the kernel keeps its map (page_init()) across
 * them, so the mapping must stay where it is. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hal/mem.h"

/* Room for every suite's tasks, buffers and rings; reserved, not
 * committed: the host backs only the pages the kernel touches. */
#define SIM_RAM_SIZE (1ul << 30)

size_t hal_mem_ranges(struct hal_mem_range *r, size_t max)
{
	static void *ram;

	if (!ram) {
		void *p = mmap(NULL, SIM_RAM_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED)
			return 0;
		ram = p;
	}
	if (max) {
		r[0].addr = (uintptr_t)ram;
		r[0].size = SIM_RAM_SIZE;
		r[0].kind = HAL_MEM_RAM;
	}
	return 1;
}

/* The page below a task stack, as on the kernels: PROT_NONE, so that
 * an overflow is a SIGSEGV reported on the CPU's alternate stack
 * (sim/fault.c) instead of a silent write into whatever the allocator put
 * there.  mprotect() acts on the whole process, so every CPU thread sees
 * the guard at once.  A host whose pages are not the kernel's size
 * cannot guard one of ours alone: refused, the page stays ordinary. */
bool hal_mem_guard(uintptr_t page, bool guard)
{
	if (sysconf(_SC_PAGESIZE) != HAL_PAGE_SIZE || page % HAL_PAGE_SIZE)
		return false;
	return mprotect((void *)page, HAL_PAGE_SIZE,
			guard ? PROT_NONE : PROT_READ | PROT_WRITE) == 0;
}
