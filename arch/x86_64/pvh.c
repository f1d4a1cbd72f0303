/* SPDX-License-Identifier: BSD-2-Clause */
/* The PVH start info (struct hvm_start_info) the loader leaves for the
 * kernel: the command line, the RSDP and the memory map, read once on
 * the boot CPU and kept, since SeaBIOS leaves it in page 0, which is
 * mapped only while it is read. */
#include <stdbool.h>
#include <stdint.h>

#include "lib/kstring.h"
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
#define CMDLINE_MAX	1024
/* QEMU's PC map has a handful of RAM entries; a firmware with more
 * loses only the last ones. */
#define PVH_RAM_MAX	32

static char cmdline[CMDLINE_MAX];
static size_t cmdline_len;		/* as the loader gave it: more when cut */
static uint64_t rsdp;
static struct {
	uint64_t addr, size;
} ram[PVH_RAM_MAX];
static unsigned ram_count;

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
	for (uint32_t i = 0; i < si->memmap_entries && ram_count < PVH_RAM_MAX; i++) {
		if (e[i].type != HVM_MEMMAP_RAM)
			continue;
		ram[ram_count].addr = e[i].addr;
		ram[ram_count].size = e[i].size;
		ram_count++;
	}
}

static void pvh_read_info(const struct hvm_start_info *si)
{
	if (!si || si->magic != HVM_START_MAGIC)
		return;
	rsdp = si->rsdp_paddr;
	if (si->cmdline_paddr && si->cmdline_paddr < PVH_READABLE)
		cmdline_len = kstrlcpy(cmdline, (const char *)(uintptr_t)si->cmdline_paddr,
				       sizeof(cmdline));
	pvh_read_memmap(si);
}

void x86_pvh_read(uint32_t start_info_paddr)
{
	pvh_map_page0(true);
	pvh_read_info((const struct hvm_start_info *)(uintptr_t)start_info_paddr);
	pvh_map_page0(false);
}

uint64_t x86_pvh_rsdp(void)
{
	return rsdp;
}

const char *x86_pvh_cmdline(void)
{
	return cmdline;
}

size_t x86_pvh_cmdline_given(void)
{
	return cmdline_len;
}

unsigned x86_pvh_ram_count(void)
{
	return ram_count;
}

void x86_pvh_ram(unsigned i, uint64_t *addr, uint64_t *size)
{
	*addr = ram[i].addr;
	*size = ram[i].size;
}
