/* SPDX-License-Identifier: BSD-2-Clause */
/* What the boot loader handed over, in the loader's own words turned
 * into ours: the command line, the RSDP, the RAM ranges of its memory
 * map and a linear framebuffer.  pvh.c and
 * multiboot2.c fill it on the boot CPU before memory is handed out (the
 * loader's copy may lie in RAM the page allocator takes); everything
 * else only reads it. */
#include "bootinfo.h"

#include "lib/kstring.h"

#define CMDLINE_MAX	1024
/* QEMU's PC map has a handful of RAM entries, OVMF's a few dozen once
 * GRUB has merged them; a firmware with more loses only the last ones. */
#define BOOT_RAM_MAX	64
#define RSDP_MAX	36		/* an ACPI 2.0 RSDP */

static const char *loader = "none";
static char cmdline[CMDLINE_MAX];
static size_t cmdline_len;		/* as the loader gave it: more when cut */
static uint8_t rsdp_copy[RSDP_MAX] __attribute__((aligned(16)));
static uint64_t rsdp;
static struct {
	uint64_t addr, size;
} ram[BOOT_RAM_MAX];
static unsigned ram_count;
static struct x86_boot_fb fb;

void x86_boot_set_loader(const char *name)
{
	loader = name;
}

void x86_boot_set_cmdline(const char *s)
{
	cmdline_len = kstrlcpy(cmdline, s, sizeof(cmdline));
}

void x86_boot_cmdline_cut(size_t given)
{
	if (given > cmdline_len)
		cmdline_len = given;
}

void x86_boot_set_rsdp(uint64_t addr)
{
	rsdp = addr;
}

/* Multiboot2 hands over a copy of the RSDP inside its information: kept
 * here, where the ACPI code finds it after that memory is reused. */
void x86_boot_copy_rsdp(const void *p, size_t len)
{
	if (len > sizeof(rsdp_copy))
		len = sizeof(rsdp_copy);
	kmemcpy(rsdp_copy, p, len);
	rsdp = (uintptr_t)rsdp_copy;
}

void x86_boot_add_ram(uint64_t addr, uint64_t size)
{
	if (ram_count >= BOOT_RAM_MAX || !size)
		return;
	ram[ram_count].addr = addr;
	ram[ram_count].size = size;
	ram_count++;
}

void x86_boot_set_fb(const struct x86_boot_fb *f)
{
	fb = *f;
}

const char *x86_boot_loader(void)
{
	return loader;
}

uint64_t x86_boot_rsdp(void)
{
	return rsdp;
}

const char *x86_boot_cmdline(void)
{
	return cmdline;
}

size_t x86_boot_cmdline_given(void)
{
	return cmdline_len;
}

unsigned x86_boot_ram_count(void)
{
	return ram_count;
}

void x86_boot_ram(unsigned i, uint64_t *addr, uint64_t *size)
{
	*addr = ram[i].addr;
	*size = ram[i].size;
}

bool x86_boot_ram_holds(uint64_t lo, uint64_t hi)
{
	for (unsigned i = 0; i < ram_count; i++)
		if (ram[i].addr <= lo && hi - ram[i].addr <= ram[i].size)
			return true;
	return false;
}

const struct x86_boot_fb *x86_boot_fb(void)
{
	return fb.addr ? &fb : NULL;
}
