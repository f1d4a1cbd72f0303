/* SPDX-License-Identifier: BSD-2-Clause */
/* The CPUs: per-CPU data behind the GS base, the application processors
 * started with INIT-SIPI-SIPI through the real-mode trampoline
 * (trampoline.S), and the NMI that reaches them all. */
#include "hal/cpu.h"

#include "hal/entry.h"
#include "hal/mem.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/page.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "x86.h"

#define MSR_GS_BASE		0xc0000101

#define ICR_INIT		(5u << 8)
#define ICR_STARTUP		(6u << 8)
#define ICR_NMI			(4u << 8)
#define ICR_ASSERT		(1u << 14)

#define AP_STACK_PAGES		(16384 / HAL_PAGE_SIZE)
#define AP_IST_PAGES		(3 * X86_IST_STACK_SIZE / HAL_PAGE_SIZE)
/* INIT to STARTUP, as the MP specification asks; then how long an AP
 * gets to answer the first STARTUP before the second, and the second. */
#define AP_INIT_DELAY_US	10000
#define AP_SIPI1_WAIT_US	200
#define AP_SIPI2_WAIT_US	2000000	/* TCG: a vCPU thread may start late */

/* The boot CPU's IST stacks (the APs' come from the page allocator). */
static char bsp_ist_stacks[3 * X86_IST_STACK_SIZE] __attribute__((aligned(16)));
static struct x86_cpu x86_cpus[HAL_MAX_CPUS];
static unsigned ncpus = 1;

/* The mailbox an AP reads on its way in (trampoline.S). */
uint32_t x86_ap_cr3;
uint64_t x86_ap_stack_top;
struct x86_cpu *x86_ap_cpu;
/* Set when the boot CPU gave up waiting: a latecomer parks at once. */
static bool ap_abandoned;

extern char x86_trampoline_start[], x86_trampoline_end[];
void x86_ap_main(struct x86_cpu *c) __attribute__((noreturn));

/* Make @c the calling CPU's per-CPU data (GS base). */
static void x86_cpu_set_self(struct x86_cpu *c)
{
	c->self = c;
	wrmsr(MSR_GS_BASE, (uintptr_t)c);
}

unsigned x86_smp_cpu_count(void)
{
	return __atomic_load_n(&ncpus, __ATOMIC_ACQUIRE);
}

/* The boot CPU's per-CPU data, GDT and TSS: the first thing
 * hal_platform_early_init() does, since the console already asks
 * hal_cpu_id(). */
void x86_cpu_init_boot(void)
{
	struct x86_cpu *c = &x86_cpus[0];

	c->id = 0;
	c->boot_stack_lo = (uintptr_t)x86_boot_stack;
	c->boot_stack_hi = (uintptr_t)x86_boot_stack_top;
	c->ist_stacks = (uintptr_t)bsp_ist_stacks;
	c->started = true;
	x86_cpu_set_self(c);
	x86_gdt_init_cpu(c);
}

void x86_cpu_park(void)
{
	for (;;)
		__asm__ volatile("cli; hlt" : : : "memory");
}

/* The C entry of an application processor, from trampoline.S in long
 * mode on its own stack, interrupts off. */
void x86_ap_main(struct x86_cpu *c)
{
	if (__atomic_load_n(&ap_abandoned, __ATOMIC_ACQUIRE))
		x86_cpu_park();
	x86_cpu_set_self(c);
	x86_gdt_init_cpu(c);
	x86_idt_load();
	x86_timer_init_ap();
	__atomic_store_n(&c->started, true, __ATOMIC_RELEASE);
	kernel_ap_main();
}

static bool ap_wait_started(struct x86_cpu *c, uint64_t us)
{
	uint64_t start = rdtsc(), limit = x86_tsc_hz() / 1000000 * us;

	while (!__atomic_load_n(&c->started, __ATOMIC_ACQUIRE))
		if (rdtsc() - start >= limit)
			return false;
	return true;
}

/* INIT, then STARTUP at most twice.  True once the AP says it is up. */
static bool ap_start(uint32_t apic_id)
{
	struct x86_cpu *c = &x86_cpus[ncpus];
	void *stack = page_alloc(AP_STACK_PAGES);
	void *ist = page_alloc(AP_IST_PAGES);

	if (!stack || !ist) {
		out_printf(&out_console, "smp: no memory for cpu %u's stacks\n", ncpus);
		return false;
	}
	c->id = ncpus;
	c->apic_id = apic_id;
	c->boot_stack_lo = (uintptr_t)stack;
	c->boot_stack_hi = (uintptr_t)stack + AP_STACK_PAGES * HAL_PAGE_SIZE;
	c->ist_stacks = (uintptr_t)ist;
	c->started = false;
	x86_ap_stack_top = c->boot_stack_hi;
	__atomic_store_n(&x86_ap_cpu, c, __ATOMIC_RELEASE);

	x86_lapic_send_ipi(apic_id, ICR_INIT | ICR_ASSERT);
	x86_delay_us(AP_INIT_DELAY_US);
	x86_lapic_send_ipi(apic_id, ICR_STARTUP | (X86_TRAMPOLINE >> 12));
	if (ap_wait_started(c, AP_SIPI1_WAIT_US))
		return true;
	x86_lapic_send_ipi(apic_id, ICR_STARTUP | (X86_TRAMPOLINE >> 12));
	if (ap_wait_started(c, AP_SIPI2_WAIT_US))
		return true;
	__atomic_store_n(&ap_abandoned, true, __ATOMIC_RELEASE);
	out_printf(&out_console, "smp: the cpu with APIC id %u did not start\n",
		   apic_id);
	return false;
}

void x86_smp_start(const struct x86_madt *m, unsigned max_cpus)
{
	uint32_t me = x86_lapic_id();

	x86_cpus[0].apic_id = me;
	if (max_cpus > HAL_MAX_CPUS)
		max_cpus = HAL_MAX_CPUS;
	kmemcpy((void *)X86_TRAMPOLINE, x86_trampoline_start,
		(size_t)(x86_trampoline_end - x86_trampoline_start));
	x86_ap_cr3 = (uint32_t)read_cr3();
	for (unsigned i = 0; i < m->ncpus && ncpus < max_cpus; i++) {
		if (m->apic_ids[i] == me)
			continue;
		/* Only x2APIC mode reaches past 8-bit IDs. */
		if (!x86_lapic_x2apic() && m->apic_ids[i] > 0xff) {
			out_printf(&out_console, "smp: the cpu with APIC id %u needs x2APIC mode, which the firmware left off; not started\n",
				   m->apic_ids[i]);
			continue;
		}
		/* A latecomer could still take the mailbox: stop here. */
		if (!ap_start(m->apic_ids[i]))
			break;
		__atomic_store_n(&ncpus, ncpus + 1, __ATOMIC_RELEASE);
	}
}

void x86_smp_nmi_others(void)
{
	unsigned me = x86_this_cpu()->id, n = x86_smp_cpu_count();

	for (unsigned i = 0; i < n; i++)
		if (i != me)
			x86_lapic_send_ipi(x86_cpus[i].apic_id, ICR_NMI | ICR_ASSERT);
}
