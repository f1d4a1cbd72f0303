/* SPDX-License-Identifier: BSD-2-Clause */
/* The PVH entry's start info (struct hvm_start_info): the command line,
 * the RSDP and the memory map, read once on the boot CPU into bootinfo.c,
 * since SeaBIOS leaves it in page 0, which is mapped only while it is
 * read. */
#include <stdbool.h>
#include <stdint.h>

#include "bootinfo.h"
#include "x86.h"

#define HVM_START_MAGIC	0x336ec578
#define HVM_MEMMAP_RAM	1

struct hvm_start_info {
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr;
	uint64_t cmdline_paddr;
	uint64_t rsdp_paddr;
	uint64_t memmap_paddr;		/* version >= 1 */
	uint32_t memmap_entries;
	uint32_t reserved;
};

struct hvm_memmap_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
	uint32_t reserved;
};

/* Only the identity map's 4 GiB is readable here (boot.S). */
#define PVH_READABLE	(4ull << 30)

/* The first 2 MiB in 4 KiB pages (boot.S); entry 0, page 0, is left
 * out so that NULL faults. */
extern uint64_t x86_boot_pt0[];

static void pvh_map_page0(bool on)
{
	x86_boot_pt0[0] = on ? 0x1 : 0;		/* present, read-only */
	invlpg(0);
}

static void pvh_read_memmap(const struct hvm_start_info *si)
{
	const struct hvm_memmap_entry *e;

	if (si->version < 1 || !si->memmap_paddr || !si->memmap_entries ||
	    si->memmap_paddr >= PVH_READABLE)
		return;
	e = (const struct hvm_memmap_entry *)(uintptr_t)si->memmap_paddr;
	for (uint32_t i = 0; i < si->memmap_entries; i++)
		if (e[i].type == HVM_MEMMAP_RAM)
			x86_boot_add_ram(e[i].addr, e[i].size);
}

static void pvh_read_info(const struct hvm_start_info *si)
{
	if (!si || si->magic != HVM_START_MAGIC)
		return;
	x86_boot_set_loader("pvh");
	x86_boot_set_rsdp(si->rsdp_paddr);
	if (si->cmdline_paddr && si->cmdline_paddr < PVH_READABLE)
		x86_boot_set_cmdline((const char *)(uintptr_t)si->cmdline_paddr);
	pvh_read_memmap(si);
}

void x86_pvh_read(uint32_t start_info_paddr)
{
	pvh_map_page0(true);
	pvh_read_info((const struct hvm_start_info *)(uintptr_t)start_info_paddr);
	pvh_map_page0(false);
}
