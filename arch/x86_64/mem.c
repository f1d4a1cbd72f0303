/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/mem.h: the RAM the boot loader's memory map lists (or the CMOS, without
 * one), as far as the identity map reaches, less the first MiB and the
 * kernel image; RAM's 4 KiB mappings and the guard pages below task
 * stacks. */
#include "hal/mem.h"

#include <stdbool.h>
#include <stdint.h>

#include "kernel/console.h"
#include "kernel/page.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "x86.h"

/* The identity map reaches 4 GiB (boot.S); RAM above is not reported. */
#define MEM_LIMIT	(4ull << 30)
/* Below 1 MiB live the firmware's tables and the start info. */
#define MEM_LOW		(1ull << 20)

static const char *mem_source = "cmos";

const char *x86_mem_source(void)
{
	return mem_source;
}

/* The part of [addr, addr + size) below MEM_LIMIT, as a RAM range;
 * false when none is. */
static bool mem_clip(uint64_t addr, uint64_t size, struct hal_mem_range *r)
{
	if (addr >= MEM_LIMIT || !size)
		return false;
	if (size > MEM_LIMIT - addr)
		size = MEM_LIMIT - addr;
	r->addr = (uintptr_t)addr;
	r->size = (size_t)size;
	r->kind = HAL_MEM_RAM;
	return true;
}

/* Without a memory map: the CMOS says how much RAM sits above 16 MiB
 * (in 64 KiB units), as every PC BIOS records it. */
static uint64_t mem_cmos_ram_top(void)
{
	uint64_t above16;

	outb(0x70, 0x34);
	above16 = inb(0x71);
	outb(0x70, 0x35);
	above16 |= (uint64_t)inb(0x71) << 8;
	return (16ull << 20) + (above16 << 16);
}

static size_t mem_ram_ranges(struct hal_mem_range *r, size_t max)
{
	unsigned n = x86_boot_ram_count();
	size_t found = 0;

	if (!n) {
		if (max && mem_clip(MEM_LOW, mem_cmos_ram_top() - MEM_LOW, &r[0]))
			found = 1;
		return found;
	}
	mem_source = kstrcmp(x86_boot_loader(), "multiboot2") ? "pvh memmap"
							      : "multiboot2 memmap";
	for (unsigned i = 0; i < n; i++) {
		struct hal_mem_range one;
		uint64_t addr, size;

		x86_boot_ram(i, &addr, &size);
		if (!mem_clip(addr, size, &one))
			continue;
		if (found < max)
			r[found] = one;
		found++;
	}
	return found;
}

static void mem_reserve(struct hal_mem_range *r, size_t max, size_t *n,
			uintptr_t lo, uintptr_t hi)
{
	if (*n < max) {
		r[*n].addr = lo;
		r[*n].size = hi - lo;
		r[*n].kind = HAL_MEM_RESERVED;
	}
	(*n)++;
}

size_t hal_mem_ranges(struct hal_mem_range *r, size_t max)
{
	size_t n = mem_ram_ranges(r, max);

	mem_reserve(r, max, &n, 0, MEM_LOW);
	mem_reserve(r, max, &n, (uintptr_t)__kernel_start, (uintptr_t)__kernel_end);
	return n;
}

/* Guard pages.
 *
 * boot.S maps [2 MiB, 4 GiB) in 2 MiB pages.  x86_mem_split_ram() gives
 * every one of them that holds RAM a page table of 512 4 KiB entries
 * with the same frames and attributes, so any page page_alloc() hands
 * out has an entry of its own; hal_mem_guard() then only flips that
 * entry's present bit.
 *
 * Why no CPU ever sees a stale translation that matters:
 * - The split runs once, on the boot CPU, before the other CPUs start
 *   (hal_cpus_start()).  Until the CR3 reload at its end the boot CPU may
 *   use an old 2 MiB translation or a new 4 KiB one; both give the same
 *   frame with the same attributes, and the reload drops every TLB and
 *   paging-structure cache entry (no page is global).  The APs load the
 *   same CR3 afterwards, so no CPU ever holds a 2 MiB translation of a
 *   split region, and page directory entries never change again.
 * - Guarding (present 1 -> 0) must drop any cached translation of that
 *   page on a CPU that would otherwise still reach it.  The page is the
 *   one below a task stack, and it is there to catch that task, which is
 *   pinned to its CPU: the guarding CPU flushes its own entry here (it
 *   has just zeroed the page in page_alloc()), and the task's CPU flushes
 *   the same page in x86_context_start (entry.S) before the task's first
 *   instruction.  The run queue's lock orders that flush after the entry
 *   was cleared, and no CPU caches a not-present entry, so from then on
 *   the task's CPU faults on every access.  Another CPU may keep a stale
 *   translation until its TLB evicts it: a stray access from there reads
 *   or writes the zeroed page as before, which is what happened without
 *   a guard.  No IPI shootdown: it would have to wait for CPUs that hold
 *   interrupts off for seconds (test irqsoff), and two CPUs shooting at
 *   each other with interrupts off would deadlock.
 * - Unguarding (0 -> 1) needs no flush anywhere: x86 caches no
 *   not-present translation, so the next access walks the tables. */
#define PTE_P		0x001ull
#define PTE_RW		0x002ull
#define PTE_PS		0x080ull
#define PTE_PWT		0x008ull
#define PTE_PCD		0x010ull
#define PTE_ADDR	0x000ffffffffff000ull
/* The attributes a 2 MiB entry shares with a 4 KiB one: P, RW, US, PWT,
 * PCD (bit 7 is PS there and PAT here; neither is used). */
#define PTE_ATTRS	0x01full
#define BIG_PAGE	(2ull << 20)
#define SPLIT_RANGES_MAX 64

extern uint64_t x86_boot_pd[];		/* boot.S: 2048 entries, 4 GiB */

/* Give the 2 MiB page at @base a page table; false when no page was
 * free for it (the region stays one page, and unguardable). */
static bool mem_split_one(uint64_t base)
{
	uint64_t *pde = &x86_boot_pd[base / BIG_PAGE];
	uint64_t *pt;

	if ((*pde & (PTE_P | PTE_PS)) != (PTE_P | PTE_PS))
		return true;		/* split already (the first 2 MiB) */
	pt = page_alloc(1);
	if (!pt)
		return false;
	for (unsigned i = 0; i < 512; i++)
		pt[i] = (base + i * HAL_PAGE_SIZE) | (*pde & PTE_ATTRS);
	*pde = (uintptr_t)pt | PTE_P | PTE_RW;
	return true;
}

void x86_mem_split_ram(void)
{
	static struct hal_mem_range r[SPLIT_RANGES_MAX];
	size_t n = mem_ram_ranges(r, SPLIT_RANGES_MAX);
	unsigned failed = 0;

	if (n > SPLIT_RANGES_MAX)
		n = SPLIT_RANGES_MAX;	/* page.c used no more either */
	for (size_t i = 0; i < n; i++) {
		uint64_t end = r[i].addr + r[i].size;

		for (uint64_t b = r[i].addr & ~(BIG_PAGE - 1); b < end; b += BIG_PAGE)
			if (!mem_split_one(b))
				failed++;
	}
	write_cr3(read_cr3());
	if (failed)
		out_printf(&out_console, "mem: %u 2 MiB pages left whole (no page for their tables): no stack guard there\n",
			   failed);
}

/* Device windows are never RAM, so never split: their 2 MiB entries
 * take the bits themselves.  Only this CPU's TLB is flushed; the others
 * have had no reason to touch a device's window yet. */
void x86_mem_uncached(uint64_t lo, uint64_t hi)
{
	for (uint64_t a = lo & ~(BIG_PAGE - 1); a < hi && a < MEM_LIMIT; a += BIG_PAGE) {
		uint64_t *pde = &x86_boot_pd[a / BIG_PAGE];

		if (*pde & PTE_PS) {
			*pde |= PTE_PCD | PTE_PWT;
			invlpg((uintptr_t)a);
		}
	}
}

bool hal_mem_guard(uintptr_t page, bool guard)
{
	uint64_t pde, *pte;

	if (page >= MEM_LIMIT || page % HAL_PAGE_SIZE)
		return false;
	pde = x86_boot_pd[page / BIG_PAGE];
	if ((pde & (PTE_P | PTE_PS)) != PTE_P)
		return false;
	pte = (uint64_t *)(uintptr_t)(pde & PTE_ADDR) + (page / HAL_PAGE_SIZE) % 512;
	/* Atomic: the CPU may set the accessed and dirty bits meanwhile. */
	if (guard) {
		__atomic_fetch_and(pte, ~PTE_P, __ATOMIC_SEQ_CST);
		invlpg(page);
	} else {
		__atomic_fetch_or(pte, PTE_P, __ATOMIC_SEQ_CST);
	}
	return true;
}
