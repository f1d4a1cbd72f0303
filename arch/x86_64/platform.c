/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot CPU's C entry, from boot.S in long mode on the boot stack, and
 * the platform's steps of the boot story (hal/platform.h): the story
 * itself is src/init/main.c. */
#include "hal/entry.h"

#include "hal/cpu.h"
#include "hal/mem.h"
#include "hal/platform.h"
#include "kernel/console.h"
#include "kernel/page.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "x86.h"

void x86_boot_main(uint32_t start_info_paddr) __attribute__((noreturn));

static uint32_t boot_start_info;	/* PVH start_info, physical */

void x86_boot_main(uint32_t start_info_paddr)
{
	boot_start_info = start_info_paddr;
	kernel_main();
}

/* The serial port first, so that every later step can report; the
 * start info before memory is asked for. */
void hal_platform_early_init(void)
{
	x86_cpu_init_boot();
	x86_serial_init();
	x86_idt_init();
	x86_pvh_read(boot_start_info);
}

void hal_platform_banner(struct out *o)
{
	out_printf(o, "kprof x86_64: %zu MiB free (%s), tsc %lu MHz\n",
		   page_free_count() * HAL_PAGE_SIZE >> 20, x86_mem_source(),
		   (unsigned long)(x86_tsc_hz() / 1000000));
	/* Said before the words are read: a cut cmd= would otherwise read
	 * only as an unterminated quote. */
	if (x86_pvh_cmdline_given() > kstrlen(x86_pvh_cmdline()))
		out_printf(o, "cmdline: cut to its first %zu of %zu bytes\n",
			   kstrlen(x86_pvh_cmdline()), x86_pvh_cmdline_given());
}

const char *hal_platform_cmdline(void)
{
	return x86_pvh_cmdline();
}

/* Nothing the x86 kernel serves outside the portable kernel. */
void hal_platform_late_init(void)
{
}
