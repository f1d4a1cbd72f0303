/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/mem.h: the device tree's RAM, as far as the identity map reaches
 * (4 GiB), less the image, the device tree itself and its /memreserve/
 * entries. */
#include "hal/mem.h"

#include "kernel/page.h"
#include "kernel/kernel.h"
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

/* Guard pages.  boot.S maps the GiB where RAM starts through a level 2
 * table of 2 MiB blocks; a guard page needs 4 KiB entries.  Turning a live
 * block into a table changes the translation's size, which the architecture
 * allows only by break-before-make (or with FEAT_BBM level 2, which QEMU
 * happens to tolerate and most hardware lacks), and break-before-make would
 * unmap the very code and stack doing it.  So a64_mem_split_ram() gives every
 * block that holds RAM its level 3 table once, on the boot CPU before any
 * other starts, in copies of the level 1 and 2 tables, and moves to them in
 * a window with the MMU off (mem_ttbr0_switch), where no translation or TLB
 * entry of the old tables can be in use.  After that the tables never change
 * shape: hal_mem_guard only makes a level 3 entry invalid or valid again,
 * which needs no break-before-make. */
#define L3_PAGE_NORMAL	(0x707ull | (1ull << 54))	/* page, attr 1, SH, AF, UXN */
#define L2_RAM_BASE	0x40000000ull
#define L2_RAM_END	0x80000000ull
#define DESC_ADDR(d)	((d) & 0x0000fffffffff000ull)
#define DESC_IS_TABLE(d) (((d) & 3) == 3)

extern uint64_t a64_pt_l1[512], a64_pt_l2_ram[512];
extern uint64_t a64_ttbr0;		/* boot.S: the root every CPU loads */
static uint64_t *mem_l2_ram = a64_pt_l2_ram;	/* the level 2 table in use */
static struct spinlock mem_guard_lock = SPINLOCK_INIT;

static void tlb_flush_page(uintptr_t va)
{
	__asm__ volatile("dsb ishst\n\ttlbi vaae1is, %0\n\tdsb ish\n\tisb"
			 : : "r"(va >> 12) : "memory");
}

/* Only registers are touched between MMU off and on: with the MMU off every
 * data access is Device memory, and instruction fetch still finds this code
 * at the same address (the map is an identity map).  Every exception is
 * masked: the vectors' stacks are fine, but nothing may run half-way. */
static void mem_ttbr0_switch(uint64_t root)
{
	uint64_t sctlr, daif;

	__asm__ volatile(
		"mrs %1, daif\n\t"
		"msr daifset, #0xf\n\t"
		"dsb ish\n\t"			/* the new tables, visible to the walker */
		"mrs %0, sctlr_el1\n\t"
		"bic x9, %0, #1\n\t"
		"msr sctlr_el1, x9\n\t"
		"isb\n\t"
		"msr ttbr0_el1, %2\n\t"
		"tlbi vmalle1\n\t"
		"dsb nsh\n\t"
		"isb\n\t"
		"msr sctlr_el1, %0\n\t"
		"isb\n\t"
		"msr daif, %1"
		: "=&r"(sctlr), "=&r"(daif) : "r"(root) : "x9", "memory");
}

static bool mem_block_holds_ram(uint64_t base)
{
	for (unsigned i = 0; i < a64_machine.nram; i++)
		if (base < a64_machine.ram_base[i] + a64_machine.ram_size[i] &&
		    base + (2ull << 20) > a64_machine.ram_base[i])
			return true;
	return false;
}

void a64_mem_split_ram(void)
{
	uint64_t *l1 = page_alloc(1), *l2 = page_alloc(1);

	if (!l1 || !l2)
		panic("mem: no page for the level 1 and 2 tables");
	for (unsigned i = 0; i < 512; i++) {
		uint64_t base = L2_RAM_BASE + ((uint64_t)i << 21);
		uint64_t *l3;

		l2[i] = a64_pt_l2_ram[i];
		if (!mem_block_holds_ram(base))
			continue;
		l3 = page_alloc(1);
		if (!l3)
			panic("mem: no page for a level 3 table");
		for (unsigned j = 0; j < 512; j++)
			l3[j] = (base + (uint64_t)j * HAL_PAGE_SIZE) | L3_PAGE_NORMAL;
		l2[i] = (uintptr_t)l3 | 3;
	}
	for (unsigned i = 0; i < 512; i++)
		l1[i] = a64_pt_l1[i];
	l1[1] = (uintptr_t)l2 | 3;
	mem_ttbr0_switch((uintptr_t)l1);
	mem_l2_ram = l2;
	/* The other CPUs read the root with their MMU off, from memory, not
	 * from this CPU's cache: clean it to the point of coherency. */
	a64_ttbr0 = (uintptr_t)l1;
	__asm__ volatile("dc cvac, %0\n\tdsb sy" : : "r"(&a64_ttbr0) : "memory");
}

bool hal_mem_guard(uintptr_t page, bool guard)
{
	unsigned i2 = (unsigned)((page - L2_RAM_BASE) >> 21);
	unsigned long flags;
	uint64_t *l3;

	if (page < L2_RAM_BASE || page >= L2_RAM_END || page % HAL_PAGE_SIZE ||
	    !DESC_IS_TABLE(mem_l2_ram[i2]))
		return false;
	l3 = (uint64_t *)(uintptr_t)DESC_ADDR(mem_l2_ram[i2]);
	flags = spin_lock_irqsave(&mem_guard_lock);
	l3[(page >> 12) & 511] = guard ? 0 : (page | L3_PAGE_NORMAL);
	tlb_flush_page(page);
	spin_unlock_irqrestore(&mem_guard_lock, flags);
	return true;
}

/* Device windows.  The low GiB is a level 2 table of 2 MiB blocks
 * (boot.S): Device-nGnRnE from 128 MiB, nothing below (QEMU's flash), so
 * that NULL and small offsets fault.  A device the tree places below
 * 128 MiB gets its blocks mapped here, Device and never executable, as
 * boot.S maps the rest; the block at address 0 never is.  An invalid
 * entry made valid needs no TLB invalidation, only the barriers. */
#define L2_BLOCK_DEVICE	0x0060000000000401ull	/* boot.S's DESC_DEVICE */
#define L2_BLOCK	(2ull << 20)
#define L2_LOW_END	0x40000000ull

extern uint64_t a64_pt_l2_low[512];

bool a64_mem_map_device(uint64_t addr, uint64_t size)
{
	uint64_t end = addr + size;
	unsigned long flags;

	if (size == 0 || end < addr || end > L2_LOW_END || addr < L2_BLOCK)
		return false;
	flags = spin_lock_irqsave(&mem_guard_lock);
	for (uint64_t b = addr & ~(L2_BLOCK - 1); b < end; b += L2_BLOCK) {
		uint64_t *e = &a64_pt_l2_low[b >> 21];

		if ((*e & 3) == 0)
			*e = b | L2_BLOCK_DEVICE;
	}
	__asm__ volatile("dsb ishst\n\tisb" : : : "memory");
	spin_unlock_irqrestore(&mem_guard_lock, flags);
	return true;
}
