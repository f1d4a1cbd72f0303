/* The boot CPU's C entry, from boot.S in long mode on the boot stack. */
#include "hal/entry.h"

#include "hal/cpu.h"
#include "hal/mem.h"
#include "kernel/cmdline.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "x86.h"

#define LAPIC_ADDR 0xfee00000u	/* the only window timer.c maps */

void x86_boot_main(uint32_t start_info_paddr) __attribute__((noreturn));

static void discard_write(struct out *o, const char *s, size_t n)
{
	(void)o;
	(void)s;
	(void)n;
}

/* cpus= from the command line, 0 for all.  Its problems are reported
 * once, by kernel_main()'s own reading of the line: this one is quiet. */
static unsigned boot_cpus_limit(const char *cmdline)
{
	static struct cmdline cl;
	struct out quiet = { .write = discard_write };

	cmdline_init(&cl);
	cmdline_parse(&cl, cmdline, &quiet);
	return cl.cpus ? cl.cpus : HAL_MAX_CPUS;
}

/* The MADT's CPUs, at most cpus= of them, each left waiting for
 * kernel_main(); one line says what came up. */
static void boot_start_cpus(const char *cmdline)
{
	static struct x86_madt madt;
	unsigned limit = boot_cpus_limit(cmdline);

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

void x86_boot_main(uint32_t start_info_paddr)
{
	x86_cpu_init_boot();
	x86_serial_init();
	x86_idt_init();
	x86_mem_init(start_info_paddr);
	x86_timer_init();
	out_printf(&out_console, "kprof x86_64: %zu MiB free (%s), tsc %lu MHz\n",
		   x86_mem_pages_free() * HAL_PAGE_SIZE >> 20, x86_mem_source(),
		   (unsigned long)(x86_tsc_hz() / 1000000));
	/* Said before the words are read: a cut cmd= would otherwise read
	 * only as an unterminated quote. */
	if (x86_boot_cmdline_given() > kstrlen(x86_boot_cmdline()))
		out_printf(&out_console, "cmdline: cut to its first %zu of %zu bytes\n",
			   kstrlen(x86_boot_cmdline()), x86_boot_cmdline_given());
	boot_start_cpus(x86_boot_cmdline());
	kernel_main(x86_boot_cmdline());
}
