/* hal/mem.h: the RAM the PVH memory map lists (or the CMOS, without
 * one), as far as the identity map reaches, less the first MiB and the
 * kernel image. */
#include "hal/mem.h"

#include <stdbool.h>
#include <stdint.h>

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
	unsigned n = x86_pvh_ram_count();
	size_t found = 0;

	if (!n) {
		if (max && mem_clip(MEM_LOW, mem_cmos_ram_top() - MEM_LOW, &r[0]))
			found = 1;
		return found;
	}
	mem_source = "pvh memmap";
	for (unsigned i = 0; i < n; i++) {
		struct hal_mem_range one;
		uint64_t addr, size;

		x86_pvh_ram(i, &addr, &size);
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

/* No guard pages here yet: the page below a task stack stays ordinary
 * memory (test overflow refuses to run). */
bool hal_mem_guard(uintptr_t page, bool guard)
{
	(void)page;
	(void)guard;
	return false;
}
