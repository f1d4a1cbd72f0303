/* SPDX-License-Identifier: BSD-2-Clause */
/* The page allocator behind the heap and the drivers' rings.  A platform
 * only reports its memory (hal_mem_ranges()); what is free is decided
 * here, so every platform hands out pages the same way.
 *
 * One bit per page of a window of PAGE_WINDOW pages that starts at the
 * lowest RAM reported: 4 GiB, as far as the x86 identity map reaches and
 * more than the arm64 board is given.  RAM beyond the window is not
 * used. */
#include "kernel/page.h"

#include <stdbool.h>
#include <stdint.h>

#include "hal/mem.h"
#include "kernel/console.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/spinlock.h"

#define PAGE_WINDOW	(1u << 20)		/* pages: 4 GiB */
#define PAGE_RANGES_MAX	64
#define PAGE_NONE	((size_t)-1)

static uint64_t used_map[PAGE_WINDOW / 64];	/* 1 = not free */
static uintptr_t window_base;			/* address of page 0 */
static size_t pages_free;
static size_t scan_hint;			/* where the next search starts */
static bool page_ready;
static struct spinlock page_lock = SPINLOCK_INIT;

static bool page_used(size_t pfn)
{
	return used_map[pfn / 64] >> (pfn % 64) & 1;
}

static void page_mark(size_t pfn, bool used)
{
	if (used)
		used_map[pfn / 64] |= 1ull << (pfn % 64);
	else
		used_map[pfn / 64] &= ~(1ull << (pfn % 64));
}

/* The window's pages wholly inside [addr, addr + size): [*lo, *hi). */
static bool range_pages(uintptr_t addr, size_t size, size_t *lo, size_t *hi,
			bool whole)
{
	uint64_t first, end;

	if (addr + size <= window_base)
		return false;
	if (addr < window_base) {
		size -= window_base - addr;
		addr = window_base;
	}
	first = (addr - window_base + (whole ? HAL_PAGE_SIZE - 1 : 0)) / HAL_PAGE_SIZE;
	end = (addr - window_base + size + (whole ? 0 : HAL_PAGE_SIZE - 1)) / HAL_PAGE_SIZE;
	if (end > PAGE_WINDOW)
		end = PAGE_WINDOW;
	if (first >= end)
		return false;
	*lo = first;
	*hi = end;
	return true;
}

/* RAM: only whole pages.  Reserved: every page it touches. */
static void page_mark_range(const struct hal_mem_range *r)
{
	bool ram = r->kind == HAL_MEM_RAM;
	size_t lo, hi;

	if (!range_pages(r->addr, r->size, &lo, &hi, ram))
		return;
	for (size_t pfn = lo; pfn < hi; pfn++) {
		if (page_used(pfn) == !ram)
			continue;
		page_mark(pfn, !ram);
		if (ram)
			pages_free++;
		else
			pages_free--;
	}
}

/* Reserved ranges are applied after every RAM range, so the platform may
 * list them in any order. */
static void page_apply_ranges(const struct hal_mem_range *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].kind == HAL_MEM_RAM)
			page_mark_range(&r[i]);
	for (size_t i = 0; i < n; i++)
		if (r[i].kind != HAL_MEM_RAM)
			page_mark_range(&r[i]);
	/* Address 0 is NULL: never handed out. */
	if (window_base == 0 && !page_used(0)) {
		page_mark(0, true);
		pages_free--;
	}
}

static uintptr_t lowest_ram(const struct hal_mem_range *r, size_t n)
{
	uintptr_t low = UINTPTR_MAX;

	for (size_t i = 0; i < n; i++)
		if (r[i].kind == HAL_MEM_RAM && r[i].size && r[i].addr < low)
			low = r[i].addr;
	return low == UINTPTR_MAX ? 0 : low & ~(uintptr_t)(HAL_PAGE_SIZE - 1);
}

void page_init(void)
{
	static struct hal_mem_range ranges[PAGE_RANGES_MAX];
	size_t n;

	if (page_ready)
		return;
	n = hal_mem_ranges(ranges, PAGE_RANGES_MAX);
	if (n > PAGE_RANGES_MAX) {
		out_printf(&out_console, "mem: %zu ranges reported; the first %u used\n",
			   n, PAGE_RANGES_MAX);
		n = PAGE_RANGES_MAX;
	}
	kmemset(used_map, 0xff, sizeof(used_map));
	window_base = lowest_ram(ranges, n);
	page_apply_ranges(ranges, n);
	page_ready = true;
}

/* First fit from the hint, wrapping once.  Returns the first pfn of a
 * free run of @n pages, or PAGE_NONE. */
static size_t page_find_run(size_t n)
{
	size_t run = 0;

	for (size_t i = 0; i < PAGE_WINDOW; i++) {
		size_t pfn = (scan_hint + i) % PAGE_WINDOW;

		if (pfn == 0)
			run = 0;	/* a run may not wrap around */
		if ((pfn % 64) == 0 && used_map[pfn / 64] == ~0ull &&
		    i + 64 <= PAGE_WINDOW) {
			run = 0;
			i += 63;
			continue;
		}
		if (page_used(pfn)) {
			run = 0;
			continue;
		}
		if (++run == n)
			return pfn + 1 - n;
	}
	return PAGE_NONE;
}

static void *page_addr(size_t pfn)
{
	return (void *)(window_base + pfn * HAL_PAGE_SIZE);
}

void *page_alloc(size_t npages)
{
	unsigned long flags;
	size_t pfn;

	if (npages == 0)
		return NULL;
	flags = spin_lock_irqsave(&page_lock);
	pfn = npages <= pages_free ? page_find_run(npages) : PAGE_NONE;
	if (pfn != PAGE_NONE) {
		for (size_t i = 0; i < npages; i++)
			page_mark(pfn + i, true);
		pages_free -= npages;
		scan_hint = pfn + npages;
	}
	spin_unlock_irqrestore(&page_lock, flags);
	if (pfn == PAGE_NONE)
		return NULL;
	kmemset(page_addr(pfn), 0, npages * HAL_PAGE_SIZE);
	return page_addr(pfn);
}

void page_free(void *pages, size_t npages)
{
	size_t pfn = ((uintptr_t)pages - window_base) / HAL_PAGE_SIZE;
	unsigned long flags;

	if (!pages)
		return;
	flags = spin_lock_irqsave(&page_lock);
	for (size_t i = 0; i < npages; i++)
		page_mark(pfn + i, false);
	pages_free += npages;
	if (pfn < scan_hint)
		scan_hint = pfn;
	spin_unlock_irqrestore(&page_lock, flags);
}

size_t page_free_count(void)
{
	return __atomic_load_n(&pages_free, __ATOMIC_RELAXED);
}
