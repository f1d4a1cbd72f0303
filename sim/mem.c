/* hal/mem.h for ksim: pages are the host's anonymous mappings. */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "hal/mem.h"

/* Pages come from the host's allocator (hal_mem_alloc_pages()). */
void hal_mem_init(void)
{
}

/* Anonymous mappings come zeroed and page aligned; mmap needs no lock. */
void *hal_mem_alloc_pages(size_t npages)
{
	void *p = mmap(NULL, npages * HAL_PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void hal_mem_free_pages(void *pages, size_t npages)
{
	munmap(pages, npages * HAL_PAGE_SIZE);
}
