/* The boot CPU's C entry, from boot.S in long mode on the boot stack, and
 * the platform's steps of the boot story (hal/platform.h): the story
 * itself is src/init/main.c. */
#include "hal/entry.h"

#include "hal/cpu.h"
#include "hal/mem.h"
#include "hal/platform.h"
#include "hal/timer.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "x86.h"

#define LAPIC_ADDR 0xfee00000u	/* the only window timer.c maps */

void x86_boot_main(uint32_t start_info_paddr) __attribute__((noreturn));

static uint32_t boot_start_info;	/* PVH start_info, physical */

void x86_boot_main(uint32_t start_info_paddr)
{
	boot_start_info = start_info_paddr;
	kernel_main();
}

/* The serial port first, so that every later step can report. */
void hal_platform_early_init(void)
{
	x86_cpu_init_boot();
	x86_serial_init();
	x86_idt_init();
}

void hal_mem_init(void)
{
	x86_mem_init(boot_start_info);
}

void hal_timer_init(void)
{
	x86_timer_init();
}

void hal_platform_banner(struct out *o)
{
	out_printf(o, "kprof x86_64: %zu MiB free (%s), tsc %lu MHz\n",
		   x86_mem_pages_free() * HAL_PAGE_SIZE >> 20, x86_mem_source(),
		   (unsigned long)(x86_tsc_hz() / 1000000));
	/* Said before the words are read: a cut cmd= would otherwise read
	 * only as an unterminated quote. */
	if (x86_boot_cmdline_given() > kstrlen(x86_boot_cmdline()))
		out_printf(o, "cmdline: cut to its first %zu of %zu bytes\n",
			   kstrlen(x86_boot_cmdline()), x86_boot_cmdline_given());
}

const char *hal_platform_cmdline(void)
{
	return x86_boot_cmdline();
}

/* The MADT's CPUs, at most @max of them, each left waiting for the
 * scheduler; one line says what came up. */
void hal_cpus_start(unsigned max)
{
	static struct x86_madt madt;
	unsigned limit = max ? max : HAL_MAX_CPUS;

	if (!x86_acpi_read_madt(x86_boot_rsdp(), &madt)) {
		out_puts(&out_console, "smp: no ACPI MADT; running on the boot cpu\n");
		return;
	}
	if (madt.lapic_addr != LAPIC_ADDR) {
		out_printf(&out_console, "smp: local APIC at 0x%x, not 0x%x; running on the boot cpu\n",
			   madt.lapic_addr, LAPIC_ADDR);
		return;
	}
	x86_smp_start(&madt, limit);
	out_printf(&out_console, "smp: %u of %u cpus up", hal_cpu_count(), madt.ncpus);
	if (limit < madt.ncpus)
		out_printf(&out_console, " (cpus=%u)", limit);
	out_puts(&out_console, "\n");
}

/* Nothing the x86 kernel serves outside the portable kernel. */
void hal_platform_late_init(void)
{
}
