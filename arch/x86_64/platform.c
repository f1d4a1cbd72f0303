/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot CPU's C entry, from boot.S in long mode on the boot stack, and
 * the platform's steps of the boot story (hal/platform.h): the story
 * itself is src/init/main.c. */
#include "hal/entry.h"

#include "hal/cpu.h"
#include "hal/mem.h"
#include "hal/platform.h"
#include "x86.h"

void x86_boot_main(uint32_t info_paddr, uint32_t how) __attribute__((noreturn));

/* Only the identity map's 4 GiB less page 0 is readable here (boot.S);
 * the Multiboot2 parser reads at most 1 MiB from the start. */
#define MB2_READABLE_LO	0x1000u
#define MB2_READABLE_HI	((4ull << 30) - (1u << 20))

static uint32_t boot_info;		/* the loader's information, physical */
static uint32_t boot_how;		/* X86_BOOT_PVH or X86_BOOT_MB2 */
static bool boot_info_bad;

void x86_boot_main(uint32_t info_paddr, uint32_t how)
{
	boot_info = info_paddr;
	boot_how = how;
	kernel_main();
}

static void x86_mb2_read(uint32_t paddr)
{
	boot_info_bad = paddr < MB2_READABLE_LO || paddr >= MB2_READABLE_HI ||
			(paddr & 7) || !x86_mb2_parse((const void *)(uintptr_t)paddr);
}

/* The serial port first, so that every later step can report; the
 * loader's information before memory is asked for. */
void hal_platform_early_init(void)
{
	x86_cpu_init_boot();
	x86_probe_init();	/* before any other CPU runs (arch/x86_64/probe.c) */
	x86_serial_init();
	x86_idt_init();
	x86_lapic_mode_init();
	if (boot_how == X86_BOOT_MB2)
		x86_mb2_read(boot_info);
	else
		x86_pvh_read(boot_info);
	x86_fbcon_init();
}

void hal_platform_facts(struct hal_platform_facts *f)
{
	f->arch = "x86_64";
	f->mem_source = x86_mem_source();
	f->clock = "tsc";
	f->clock_hz = x86_tsc_hz();
	f->clock_by = x86_timer_calibrated_by();
	f->entry_el = -1;
	if (boot_info_bad) {
		f->bad_boot_info = "multiboot2";
		f->bad_boot_info_at = boot_info;
	}
	f->cmdline_given = x86_boot_cmdline_given();
}

const char *hal_platform_cmdline(void)
{
	return x86_boot_cmdline();
}

/* Nothing the x86 kernel serves outside the portable kernel. */
void hal_platform_late_init(void)
{
}
