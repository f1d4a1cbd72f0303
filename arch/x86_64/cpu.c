/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/cpu.h for x86_64: the CPUs themselves are smp.c's. */
#include "hal/cpu.h"

#include "hal/mem.h"
#include "kernel/console.h"
#include "lib/out.h"
#include "x86.h"

#define LAPIC_ADDR 0xfee00000u	/* the only window lapic.c maps */

unsigned hal_cpu_id(void)
{
	unsigned id;

	__asm__ volatile("movl %%gs:0, %0" : "=r"(id));
	return id;
}

unsigned hal_cpu_count(void)
{
	return x86_smp_cpu_count();
}

/* The MADT's CPUs, at most @max of them, each left waiting for the
 * scheduler; one line says what came up.  First, while this CPU is still
 * the only one, RAM's 4 KiB mappings (mem.c says why only then). */
void hal_cpus_start(unsigned max)
{
	static struct x86_madt madt;
	unsigned limit = max ? max : HAL_MAX_CPUS;

	x86_mem_split_ram();
	if (!x86_acpi_read_madt(x86_boot_rsdp(), &madt)) {
		out_puts(&out_console, "smp: no ACPI MADT; running on the boot cpu\n");
		return;
	}
	if (!x86_lapic_x2apic() && madt.lapic_addr != LAPIC_ADDR) {
		out_printf(&out_console, "smp: local APIC at 0x%x, not 0x%x; running on the boot cpu\n",
			   madt.lapic_addr, LAPIC_ADDR);
		return;
	}
	/* The APs start in real mode at X86_TRAMPOLINE: that page must be
	 * RAM the firmware left free.  (The loader's information may lie
	 * there: it was copied out in hal_platform_early_init().)  Without
	 * a memory map (the CMOS fallback) there is nothing to check. */
	if (x86_boot_ram_count() &&
	    !x86_boot_ram_holds(X86_TRAMPOLINE, X86_TRAMPOLINE + HAL_PAGE_SIZE)) {
		out_printf(&out_console, "smp: trampoline page 0x%x is not free RAM in the memory map; running on the boot cpu\n",
			   X86_TRAMPOLINE);
		return;
	}
	x86_smp_start(&madt, limit);
	out_printf(&out_console, "smp: %u of %u cpus up", hal_cpu_count(), madt.ncpus);
	if (limit < madt.ncpus)
		out_printf(&out_console, " (cpus=%u)", limit);
	/* Said only when the firmware left x2APIC on: QEMU's TCG never does,
	 * a real machine (tests/hw/kvm-pmu reports it) may. */
	if (x86_lapic_x2apic())
		out_puts(&out_console, " (x2APIC)");
	out_puts(&out_console, "\n");
}

unsigned long hal_irq_save(void)
{
	unsigned long flags = read_rflags() & X86_RFLAGS_IF;

	cli();
	return flags;
}

void hal_irq_restore(unsigned long flags)
{
	if (flags & X86_RFLAGS_IF)
		sti();
}

void hal_irq_enable(void)
{
	sti();
}

bool hal_irq_disabled(void)
{
	return !(read_rflags() & X86_RFLAGS_IF);
}

/* Not kept: a mask is one instruction, and a stamp at every
 * hal_irq_save() would cost a clock read each. */
uint64_t hal_irq_masked_ns(void)
{
	return UINT64_MAX;
}

void hal_cpu_relax(void)
{
	cpu_pause();
}

/* `sti; hlt` is one step: sti holds interrupts off for one more
 * instruction, so a wake-up cannot slip in between and be slept through.
 * Idle samples land on the instruction after the hlt, inside this
 * function. */
__attribute__((noinline)) void hal_cpu_idle(void)
{
	unsigned long flags = read_rflags();

	__asm__ volatile("sti; hlt" : : : "memory");
	if (!(flags & X86_RFLAGS_IF))
		cli();
}

/* An NMI is the one interrupt masking does not hold off. */
const char *hal_cpu_interrupt_others(void)
{
	x86_smp_nmi_others();
	return "nmi";
}

void hal_cpu_park(void)
{
	x86_cpu_park();
}

void hal_cpu_halt(void)
{
	x86_cpu_park();
}

uint64_t hal_cycles(void)
{
	return rdtsc();
}

uint64_t hal_cycles_per_sec(void)
{
	return x86_tsc_hz();
}
