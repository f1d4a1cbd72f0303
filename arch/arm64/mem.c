/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/mem.h: the device tree's RAM, as far as the identity map reaches
 * (4 GiB), less the image, the device tree itself and its /memreserve/
 * entries. */
#include "hal/mem.h"

#include "kernel/page.h"
#include "lib/spinlock.h"
#include "a64.h"

#define MEM_LIMIT	(4ull << 30)

static void mem_add(struct hal_mem_range *r, size_t max, size_t *n,
		    uint64_t lo, uint64_t hi, enum hal_mem_kind kind)
{
	if (hi > MEM_LIMIT)
		hi = MEM_LIMIT;
	if (lo >= hi)
		return;
	if (*n < max) {
		r[*n].addr = (uintptr_t)lo;
		r[*n].size = (size_t)(hi - lo);
		r[*n].kind = kind;
	}
	(*n)++;
}

size_t hal_mem_ranges(struct hal_mem_range *r, size_t max)
{
	size_t n = 0;
	uint64_t addr, size;

	for (unsigned i = 0; i < a64_machine.nram; i++)
		mem_add(r, max, &n, a64_machine.ram_base[i],
			a64_machine.ram_base[i] + a64_machine.ram_size[i], HAL_MEM_RAM);
	mem_add(r, max, &n, (uintptr_t)__kernel_start, (uintptr_t)__kernel_end,
		HAL_MEM_RESERVED);
	mem_add(r, max, &n, a64_machine.dtb, a64_machine.dtb + a64_machine.dtb_size,
		HAL_MEM_RESERVED);
	for (unsigned i = 0; i < 64 && a64_dt_memreserve(i, &addr, &size); i++)
		mem_add(r, max, &n, addr, addr + size, HAL_MEM_RESERVED);
	return n;
}

/* Guard pages.  The first GiB of RAM is mapped through a level 2 table of
 * 2 MiB blocks (boot.S); the block holding a guard page is replaced, once,
 * by a level 3 table of the same pages with the same attributes, and the
 * guard's entry is then made invalid.  Replacing a live block by an
 * equivalent table without break-before-make is what FEAT_BBM level 2
 * permits and QEMU's TCG handles; on other hardware the split would have
 * to happen before the block is in use. */
#define L3_PAGE_NORMAL	(0x707ull | (1ull << 54))	/* page, attr 1, SH, AF, UXN */
#define L2_RAM_BASE	0x40000000ull
#define L2_RAM_END	0x80000000ull
#define DESC_ADDR(d)	((d) & 0x0000fffffffff000ull)

extern uint64_t a64_pt_l2_ram[512];
static struct spinlock mem_guard_lock = SPINLOCK_INIT;

static void tlb_flush_page(uintptr_t va)
{
	__asm__ volatile("dsb ishst\n\ttlbi vaae1is, %0\n\tdsb ish\n\tisb"
			 : : "r"(va >> 12) : "memory");
}

bool hal_mem_guard(uintptr_t page, bool guard)
{
	unsigned i2 = (unsigned)((page - L2_RAM_BASE) >> 21);
	uint64_t *spare, *l3;
	unsigned long flags;

	if (page < L2_RAM_BASE || page >= L2_RAM_END || page % HAL_PAGE_SIZE)
		return false;
	spare = page_alloc(1);		/* before the lock: it takes its own */
	flags = spin_lock_irqsave(&mem_guard_lock);
	if ((a64_pt_l2_ram[i2] & 3) == 1) {	/* still a block */
		uint64_t base = DESC_ADDR(a64_pt_l2_ram[i2]) & ~0x1fffffull;

		if (!spare) {
			spin_unlock_irqrestore(&mem_guard_lock, flags);
			return false;
		}
		for (unsigned j = 0; j < 512; j++)
			spare[j] = (base + (uint64_t)j * HAL_PAGE_SIZE) | L3_PAGE_NORMAL;
		__asm__ volatile("dsb ishst" : : : "memory");
		a64_pt_l2_ram[i2] = (uintptr_t)spare | 3;
		__asm__ volatile("dsb ishst\n\ttlbi vmalle1is\n\tdsb ish\n\tisb" : : : "memory");
		spare = NULL;
	}
	l3 = (uint64_t *)(uintptr_t)DESC_ADDR(a64_pt_l2_ram[i2]);
	l3[(page >> 12) & 511] = guard ? 0 : (page | L3_PAGE_NORMAL);
	tlb_flush_page(page);
	spin_unlock_irqrestore(&mem_guard_lock, flags);
	if (spare)
		page_free(spare, 1);
	return true;
}
