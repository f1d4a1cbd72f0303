/* hal/mem.h: the device tree's RAM, as far as the identity map reaches
 * (4 GiB), less the image, the device tree itself and its /memreserve/
 * entries. */
#include "hal/mem.h"

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
