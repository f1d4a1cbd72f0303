/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot CPU's C entry, from boot.S with the MMU on, on the boot
 * stack, and the platform's steps of the boot story (hal/platform.h):
 * the story itself is src/init/main.c. */
#include "hal/entry.h"

#include "hal/cpu.h"
#include "hal/mem.h"
#include "hal/platform.h"
#include "kernel/console.h"
#include "kernel/page.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "a64.h"

void a64_boot_main(uintptr_t dtb, uint64_t entry_el) __attribute__((noreturn));
size_t a64_dt_cmdline_given(void);

static uintptr_t boot_dtb;
static unsigned boot_el;

void a64_boot_main(uintptr_t dtb, uint64_t entry_el)
{
	boot_dtb = dtb;
	boot_el = (unsigned)(entry_el >> 2) & 3;
	a64_cpu_init(0);
	kernel_main();
}

/* The device tree first (the console's address is in it), then the
 * GIC, so that any later step can report and the tick can start. */
void hal_platform_early_init(void)
{
	a64_dt_read(boot_dtb);
	a64_gic_init();
	a64_gic_init_cpu();
}

void hal_platform_banner(struct out *o)
{
	out_printf(o, "kprof arm64: %zu MiB free (device tree), %s, timer %lu kHz, entered at el%u\n",
		   page_free_count() * HAL_PAGE_SIZE >> 20, a64_gic_name(),
		   (unsigned long)(a64_timer_hz() / 1000), boot_el);
	if (a64_dt_cmdline_given() > kstrlen(a64_machine.cmdline))
		out_printf(o, "cmdline: cut to its first %zu of %zu bytes\n",
			   kstrlen(a64_machine.cmdline), a64_dt_cmdline_given());
}

const char *hal_platform_cmdline(void)
{
	return a64_machine.cmdline ? a64_machine.cmdline : "";
}

/* Nothing the arm64 kernel serves outside the portable kernel. */
void hal_platform_late_init(void)
{
}
