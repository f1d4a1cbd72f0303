/* SPDX-License-Identifier: BSD-2-Clause */
#include "kernel/heap.h"
#include "kernel/heap_test.h"

#include <stdint.h>

#include "hal/mem.h"
#include "kernel/page.h"
#include "lib/kstring.h"
#include "lib/spinlock.h"

#define HEAP_MAGIC_SLAB 0x51ab51abu
#define HEAP_MAGIC_LARGE 0x1a4e1a4eu
#define HEAP_HDR 64		/* keeps objects 64-byte aligned */
#define HEAP_MIN_SHIFT 4	/* 16 bytes */
#define HEAP_MAX_SHIFT 11	/* 2048 bytes: larger goes to pages */
#define HEAP_CLASSES (HEAP_MAX_SHIFT - HEAP_MIN_SHIFT + 1)

/* The first HEAP_HDR bytes of every heap page: any pointer the heap
 * hands out rounds down to its page's header. */
struct page_hdr {
	uint32_t magic;
	uint32_t shift;		/* slab: object size class */
	size_t npages;		/* large: pages in the run */
};

struct free_obj {
	struct free_obj *next;
};

static struct spinlock heap_lock = SPINLOCK_INIT;
static struct free_obj *free_lists[HEAP_CLASSES];
static size_t heap_pages;
static size_t heap_in_use;

static unsigned size_class(size_t size)
{
	unsigned shift = HEAP_MIN_SHIFT;

	while (((size_t)1 << shift) < size)
		shift++;
	return shift;
}

static struct page_hdr *hdr_of(void *p)
{
	return (struct page_hdr *)((uintptr_t)p & ~(uintptr_t)(HAL_PAGE_SIZE - 1));
}

/* Called with heap_lock held: carve a fresh @page into objects. */
static void slab_add(char *page, unsigned shift)
{
	size_t objsz = (size_t)1 << shift;
	struct page_hdr *h = (struct page_hdr *)page;

	h->magic = HEAP_MAGIC_SLAB;
	h->shift = shift;
	heap_pages++;
	for (size_t off = HEAP_HDR; off + objsz <= HAL_PAGE_SIZE; off += objsz) {
		struct free_obj *o = (struct free_obj *)(page + off);
		o->next = free_lists[shift - HEAP_MIN_SHIFT];
		free_lists[shift - HEAP_MIN_SHIFT] = o;
	}
}

static void *alloc_large(size_t size)
{
	size_t npages = (size + HEAP_HDR + HAL_PAGE_SIZE - 1) / HAL_PAGE_SIZE;
	char *page = page_alloc(npages);
	struct page_hdr *h = (struct page_hdr *)page;
	unsigned long flags;

	if (!page)
		return NULL;
	h->magic = HEAP_MAGIC_LARGE;
	h->npages = npages;
	flags = spin_lock_irqsave(&heap_lock);
	heap_pages += npages;
	heap_in_use += npages * HAL_PAGE_SIZE - HEAP_HDR;
	spin_unlock_irqrestore(&heap_lock, flags);
	return page + HEAP_HDR;
}

void *kmalloc(size_t size)
{
	unsigned shift;
	unsigned long flags;
	struct free_obj *o;

	if (size == 0)
		size = 1;
	if (size > ((size_t)1 << HEAP_MAX_SHIFT))
		return alloc_large(size);
	shift = size_class(size);
	flags = spin_lock_irqsave(&heap_lock);
	if (!free_lists[shift - HEAP_MIN_SHIFT]) {
		char *page;

		/* Pages come with no spinlock held (hal/mem.h). */
		spin_unlock_irqrestore(&heap_lock, flags);
		page = page_alloc(1);
		if (!page)
			return NULL;
		flags = spin_lock_irqsave(&heap_lock);
		slab_add(page, shift);
	}
	o = free_lists[shift - HEAP_MIN_SHIFT];
	free_lists[shift - HEAP_MIN_SHIFT] = o->next;
	heap_in_use += (size_t)1 << shift;
	spin_unlock_irqrestore(&heap_lock, flags);
	kmemset(o, 0, (size_t)1 << shift);
	return o;
}

void *kzalloc(size_t size)
{
	return kmalloc(size);	/* kmalloc already zeroes */
}

void kfree(void *p)
{
	struct page_hdr *h;
	unsigned long flags;

	if (!p)
		return;
	h = hdr_of(p);
	if (h->magic == HEAP_MAGIC_LARGE) {
		size_t npages = h->npages;
		flags = spin_lock_irqsave(&heap_lock);
		heap_pages -= npages;
		heap_in_use -= npages * HAL_PAGE_SIZE - HEAP_HDR;
		spin_unlock_irqrestore(&heap_lock, flags);
		page_free(h, npages);
		return;
	}
	/* Slab pages are never returned: objects are few and long-lived. */
	flags = spin_lock_irqsave(&heap_lock);
	((struct free_obj *)p)->next = free_lists[h->shift - HEAP_MIN_SHIFT];
	free_lists[h->shift - HEAP_MIN_SHIFT] = p;
	heap_in_use -= (size_t)1 << h->shift;
	spin_unlock_irqrestore(&heap_lock, flags);
}

void heap_stats(size_t *pages, size_t *bytes_in_use)
{
	unsigned long flags = spin_lock_irqsave(&heap_lock);

	*pages = heap_pages;
	*bytes_in_use = heap_in_use;
	spin_unlock_irqrestore(&heap_lock, flags);
}
