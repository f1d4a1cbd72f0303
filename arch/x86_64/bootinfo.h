/* SPDX-License-Identifier: BSD-2-Clause */
/* What the boot loader handed over (bootinfo.c), filled by the entry
 * that ran (pvh.c, multiboot2.c).  Free of instructions, so that the
 * parsers can be tested on the host (tests/arch/check_x86boot.c). */
#ifndef KPROF_ARCH_X86_64_BOOTINFO_H
#define KPROF_ARCH_X86_64_BOOTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A linear framebuffer with direct colour: each field's shift and width
 * in bits. */
struct x86_boot_fb {
	uint64_t addr;			/* physical; 0: none */
	uint32_t pitch;			/* bytes per line */
	uint32_t width, height;		/* pixels */
	uint8_t bpp;
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

/* ---- the parsers' side ---- */
/* The loader's name, once its information has been found sound. */
void x86_boot_set_loader(const char *name);
void x86_boot_set_cmdline(const char *s);
/* The loader's line was @given bytes, more than could be taken. */
void x86_boot_cmdline_cut(size_t given);
void x86_boot_set_rsdp(uint64_t addr);
void x86_boot_copy_rsdp(const void *p, size_t len);
void x86_boot_add_ram(uint64_t addr, uint64_t size);
void x86_boot_set_fb(const struct x86_boot_fb *f);

/* PVH: read the start info at @paddr (pvh.c).  Multiboot2: parse the
 * boot information at @mbi (multiboot2.c), which the caller has made
 * readable; false (and nothing recorded) when it is malformed. */
void x86_pvh_read(uint32_t start_info_paddr);
bool x86_mb2_parse(const void *mbi);
/* GRUB quotes a word that holds a blank as a whole ("cmd=a b"), with
 * backslashes before its quotes; the kernel's parser wants key="a b".
 * Rewrite @in into @out (@size bytes, NUL-terminated, cut to fit). */
void x86_mb2_unquote(const char *in, char *out, size_t size);

/* ---- everyone else's ---- */
/* "pvh", "multiboot2" or "none". */
const char *x86_boot_loader(void);
/* The RSDP's address, 0 when the loader gave none. */
uint64_t x86_boot_rsdp(void);
const char *x86_boot_cmdline(void);
/* The command line's length as the loader gave it: longer than
 * x86_boot_cmdline() when that had to be cut. */
size_t x86_boot_cmdline_given(void);
/* The memory map: the number of RAM entries, and entry @i's range. */
unsigned x86_boot_ram_count(void);
void x86_boot_ram(unsigned i, uint64_t *addr, uint64_t *size);
/* Whether one RAM entry holds all of [lo, hi). */
bool x86_boot_ram_holds(uint64_t lo, uint64_t hi);
/* The framebuffer the loader set up, NULL when none. */
const struct x86_boot_fb *x86_boot_fb(void);

#endif
