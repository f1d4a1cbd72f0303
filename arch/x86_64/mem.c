/* Boot information (struct hvm_start_info from the PVH loader) and the
 * page allocator behind hal/mem.h: one bit per 4 KiB page of the
 * identity-mapped first 4 GiB, set while the page is in use. */
#include "hal/mem.h"

#include <stdbool.h>
#include <stdint.h>

#include "lib/kstring.h"
#include "lib/spinlock.h"
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

/* The identity map reaches 4 GiB (boot.S); RAM above is not used. */
#define MEM_LIMIT	(4ull << 30)
#define MEM_PAGES	(MEM_LIMIT / HAL_PAGE_SIZE)
/* Below 1 MiB live the firmware's tables and the start info. */
#define MEM_LOW		(1ull << 20)
#define CMDLINE_MAX	1024

static uint64_t used_map[MEM_PAGES / 64];	/* 1 = not free */
static size_t pages_free;
static size_t scan_hint;			/* where the next search starts */
static struct spinlock mem_lock = SPINLOCK_INIT;
static char cmdline[CMDLINE_MAX];
static size_t cmdline_len;		/* as QEMU gave it: more when cut */
static const char *mem_source = "cmos";
static uint64_t boot_rsdp;

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

/* Free the whole pages of RAM inside [addr, addr + size). */
static void mem_add_ram(uint64_t addr, uint64_t size)
{
	uint64_t lo = (addr + HAL_PAGE_SIZE - 1) / HAL_PAGE_SIZE;
	uint64_t hi = (addr + size) / HAL_PAGE_SIZE;
	uint64_t kernel_lo = (uintptr_t)__kernel_start / HAL_PAGE_SIZE;
	uint64_t kernel_hi = ((uintptr_t)__kernel_end + HAL_PAGE_SIZE - 1) / HAL_PAGE_SIZE;

	if (lo < MEM_LOW / HAL_PAGE_SIZE)
		lo = MEM_LOW / HAL_PAGE_SIZE;
	if (hi > MEM_PAGES)
		hi = MEM_PAGES;
	for (uint64_t pfn = lo; pfn < hi; pfn++) {
		if (pfn >= kernel_lo && pfn < kernel_hi)
			continue;
		if (page_used(pfn)) {
			page_mark(pfn, false);
			pages_free++;
		}
	}
}

/* Without a memory map: the CMOS says how much RAM sits above 16 MiB
 * (in 64 KiB units), as every PC BIOS records it. */
static void mem_add_cmos_ram(void)
{
	uint64_t above16;

	outb(0x70, 0x34);
	above16 = inb(0x71);
	outb(0x70, 0x35);
	above16 |= (uint64_t)inb(0x71) << 8;
	mem_add_ram(MEM_LOW, (15ull << 20) + (above16 << 16));
}

/* The first 2 MiB in 4 KiB pages (boot.S); entry 0, page 0, is left
 * out so that NULL faults. */
extern uint64_t x86_boot_pt0[];

/* SeaBIOS's PVH option ROM leaves the start info (and its memory map)
 * inside page 0: map it, read-only, while the boot information is read. */
static void mem_map_page0(bool on)
{
	x86_boot_pt0[0] = on ? 0x1 : 0;		/* present, read-only */
	__asm__ volatile("invlpg (%0)" : : "r"((uintptr_t)0) : "memory");
}

static void mem_read_start_info(const struct hvm_start_info *si)
{
	if (!si || si->magic != HVM_START_MAGIC) {
		mem_add_cmos_ram();
		return;
	}
	boot_rsdp = si->rsdp_paddr;
	if (si->cmdline_paddr && si->cmdline_paddr < MEM_LIMIT)
		cmdline_len = kstrlcpy(cmdline, (const char *)(uintptr_t)si->cmdline_paddr,
				       sizeof(cmdline));
	if (si->version >= 1 && si->memmap_paddr && si->memmap_entries) {
		const struct hvm_memmap_entry *e =
			(const struct hvm_memmap_entry *)(uintptr_t)si->memmap_paddr;

		mem_source = "pvh memmap";
		for (uint32_t i = 0; i < si->memmap_entries; i++)
			if (e[i].type == HVM_MEMMAP_RAM)
				mem_add_ram(e[i].addr, e[i].size);
	} else {
		mem_add_cmos_ram();
	}
}

void x86_mem_init(uint32_t start_info_paddr)
{
	kmemset(used_map, 0xff, sizeof(used_map));
	mem_map_page0(true);
	mem_read_start_info((const struct hvm_start_info *)(uintptr_t)start_info_paddr);
	mem_map_page0(false);
}

const char *x86_boot_cmdline(void)
{
	return cmdline;
}

size_t x86_boot_cmdline_given(void)
{
	return cmdline_len;
}

uint64_t x86_boot_rsdp(void)
{
	return boot_rsdp;
}

const char *x86_mem_source(void)
{
	return mem_source;
}

size_t x86_mem_pages_free(void)
{
	return pages_free;
}

/* First fit from the hint, wrapping once.  Returns the first pfn of a
 * free run of @n pages, or 0 (page 0 is never free). */
static size_t mem_find_run(size_t n)
{
	size_t run = 0;

	for (size_t i = 0; i < MEM_PAGES; i++) {
		size_t pfn = (scan_hint + i) % MEM_PAGES;

		if (pfn == 0) {
			run = 0;	/* a run may not wrap around */
			continue;
		}
		if ((pfn % 64) == 0 && used_map[pfn / 64] == ~0ull &&
		    i + 64 <= MEM_PAGES) {
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
	return 0;
}

void *hal_mem_alloc_pages(size_t npages)
{
	unsigned long flags;
	size_t pfn;

	if (npages == 0)
		return NULL;
	flags = spin_lock_irqsave(&mem_lock);
	pfn = npages <= pages_free ? mem_find_run(npages) : 0;
	if (pfn) {
		for (size_t i = 0; i < npages; i++)
			page_mark(pfn + i, true);
		pages_free -= npages;
		scan_hint = pfn + npages;
	}
	spin_unlock_irqrestore(&mem_lock, flags);
	if (!pfn)
		return NULL;
	kmemset((void *)(pfn * HAL_PAGE_SIZE), 0, npages * HAL_PAGE_SIZE);
	return (void *)(pfn * HAL_PAGE_SIZE);
}

void hal_mem_free_pages(void *pages, size_t npages)
{
	size_t pfn = (uintptr_t)pages / HAL_PAGE_SIZE;
	unsigned long flags;

	if (!pages)
		return;
	flags = spin_lock_irqsave(&mem_lock);
	for (size_t i = 0; i < npages; i++)
		page_mark(pfn + i, false);
	pages_free += npages;
	spin_unlock_irqrestore(&mem_lock, flags);
}
