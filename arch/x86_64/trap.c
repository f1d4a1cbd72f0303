/* SPDX-License-Identifier: BSD-2-Clause */
/* The IDT, the dispatch of every vector, and the panic for CPU
 * exceptions and unclaimed NMIs; hal/trap.h's accessors. */
#include "hal/trap.h"

#include "hal/cpu.h"
#include "hal/entry.h"
#include "kernel/backtrace.h"
#include "kernel/console.h"
#include "kernel/panic.h"
#include "kernel/stacktrace.h"
#include "kernel/task.h"
#include "lib/out.h"
#include "../common/netdev_hal.h"
#include "pmu_hw.h"
#include "x86.h"

struct idt_gate {
	uint16_t off_lo;
	uint16_t sel;
	uint8_t ist;
	uint8_t type;
	uint16_t off_mid;
	uint32_t off_hi;
	uint32_t reserved;
} __attribute__((packed));

struct idt_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

extern char x86_isr_stubs[];
#define ISR_STUB_SIZE 16

static struct idt_gate idt[256] __attribute__((aligned(16)));

static const char *const exception_names[32] = {
	[0] = "#DE divide error",
	[1] = "#DB debug",
	[2] = "NMI",
	[3] = "#BP breakpoint",
	[4] = "#OF overflow",
	[5] = "#BR bound range",
	[6] = "#UD invalid opcode",
	[7] = "#NM device not available",
	[8] = "#DF double fault",
	[9] = "coprocessor segment overrun",
	[10] = "#TS invalid TSS",
	[11] = "#NP segment not present",
	[12] = "#SS stack fault",
	[13] = "#GP general protection",
	[14] = "#PF page fault",
	[16] = "#MF x87 floating point",
	[17] = "#AC alignment check",
	[18] = "#MC machine check",
	[19] = "#XM SIMD floating point",
	[20] = "#VE virtualization",
	[21] = "#CP control protection",
	[28] = "#HV hypervisor injection",
	[29] = "#VC VMM communication",
	[30] = "#SX security",
};

static void idt_set(unsigned vec, unsigned ist)
{
	uintptr_t addr = (uintptr_t)x86_isr_stubs + vec * ISR_STUB_SIZE;

	idt[vec] = (struct idt_gate){
		.off_lo = addr & 0xffff,
		.sel = X86_SEL_CODE64,
		.ist = (uint8_t)ist,
		.type = 0x8e,		/* present, ring 0, interrupt gate */
		.off_mid = (addr >> 16) & 0xffff,
		.off_hi = (uint32_t)(addr >> 32),
	};
}

/* The 8259s may have been left live by the firmware, with their vectors
 * on top of the CPU exceptions: move them to X86_VEC_PIC_BASE and mask
 * every line.  Only a spurious IRQ 7 or 15 can still arrive. */
static void pic_disable(void)
{
	outb(0x20, 0x11);			/* ICW1: init, ICW4 follows */
	outb(0xa0, 0x11);
	outb(0x21, X86_VEC_PIC_BASE);		/* ICW2: vector base */
	outb(0xa1, X86_VEC_PIC_BASE + 8);
	outb(0x21, 0x04);			/* ICW3: slave on IRQ 2 */
	outb(0xa1, 0x02);
	outb(0x21, 0x01);			/* ICW4: 8086 mode */
	outb(0xa1, 0x01);
	outb(0x21, 0xff);			/* mask everything */
	outb(0xa1, 0xff);
}

void x86_idt_load(void)
{
	struct idt_ptr idtr = { .limit = sizeof(idt) - 1, .base = (uintptr_t)idt };

	__asm__ volatile("lidt %0" : : "m"(idtr));
}

void x86_idt_init(void)
{
	for (unsigned v = 0; v < 256; v++)
		idt_set(v, 0);
	idt_set(2, X86_IST_NMI);
	idt_set(8, X86_IST_DF);
	idt_set(18, X86_IST_MC);
	x86_idt_load();
	pic_disable();
}

/* One line of the register dump: three names, each with its value. */
static void print_regs3(struct out *o, const char *n1, uint64_t v1,
			const char *n2, uint64_t v2, const char *n3, uint64_t v3)
{
	out_printf(o, "%s %016lx  %s %016lx  %s %016lx\n", n1, (unsigned long)v1,
		   n2, (unsigned long)v2, n3, (unsigned long)v3);
}

static void print_regs(const struct trap_frame *tf)
{
	struct out *o = &out_console;

	print_regs3(o, "rip", tf->rip, "rsp", tf->rsp, "rflags", tf->rflags);
	print_regs3(o, "rax", tf->rax, "rbx", tf->rbx, "rcx", tf->rcx);
	print_regs3(o, "rdx", tf->rdx, "rsi", tf->rsi, "rdi", tf->rdi);
	print_regs3(o, "rbp", tf->rbp, "r8 ", tf->r8, "r9 ", tf->r9);
	print_regs3(o, "r10", tf->r10, "r11", tf->r11, "r12", tf->r12);
	print_regs3(o, "r13", tf->r13, "r14", tf->r14, "r15", tf->r15);
	out_printf(o, "cs %04lx  ss %04lx  cr3 %016lx\n",
		   (unsigned long)tf->cs, (unsigned long)tf->ss,
		   (unsigned long)read_cr3());
}

void x86_trap_panic(const struct trap_frame *tf, const char *what)
{
	struct out *o = &out_console;
	uint64_t cr2 = read_cr2();

	/* The other CPUs stop first, so this CPU's report is the only
	 * output; a CPU that loses that race parks inside, and a fault
	 * while printing a panic only stops. */
	panic_begin();
	out_printf(o, "\npanic on cpu %u: %s (vector %lu), error 0x%lx\n",
		   hal_cpu_id(), what, (unsigned long)tf->vector,
		   (unsigned long)tf->error);
	if (tf->vector == 14)
		out_printf(o, "cr2 0x%016lx (%s %s%s)\n", (unsigned long)cr2,
			   tf->error & 1 ? "protection" : "not present",
			   tf->error & 2 ? "write" : "read",
			   tf->error & 16 ? ", instruction fetch" : "");
	/* A task that runs into its guard page leaves no room to push the
	 * #PF's frame: that fault becomes a #DF on this CPU's IST stack,
	 * and CR2 holds the address of the push that failed. */
	if (tf->vector == 8)
		out_printf(o, "cr2 0x%016lx\n", (unsigned long)cr2);
	if (tf->vector == 14 || tf->vector == 8)
		task_report_guard_hit(o, cr2);
	print_regs(tf);
	out_puts(o, "backtrace:\n");
	backtrace_print_trap(o, tf);
	panic_end();
}

/* Every source, every time (pmu.c): the panic stop and the profiler's
 * overflow through kernel_nmi(), then port 0x61's hardware errors.  A
 * hardware error is reported even when an overflow came with it; an NMI
 * nobody claims is counted (lscpu) and panics -- unless this CPU's
 * counter has run, when it may be a PMI later than its credit: counted,
 * and the kernel goes on (doc/profiler.md, "Unknown NMIs"). */
static void trap_nmi(struct trap_frame *tf)
{
	unsigned found = x86_pmu_nmi(tf);

	if (found & X86_NMI_SERR)
		x86_trap_panic(tf, "NMI: PCI system error (SERR, port 0x61 bit 7)");
	if (found & X86_NMI_IOCHK)
		x86_trap_panic(tf, "NMI: I/O channel check (IOCHK, port 0x61 bit 6)");
	if (!found)
		x86_trap_panic(tf, "unclaimed NMI");
}

void x86_trap_dispatch(struct trap_frame *tf)
{
	uint64_t v = tf->vector;

	if (v >= 32)
		kernel_interrupt();
	if (v == X86_VEC_TIMER) {
		/* Acknowledge first: kernel_tick() may switch to another task,
		 * and the tick must keep coming while that task runs. */
		x86_lapic_eoi();
		kernel_tick(tf);
		return;
	}
	if (v == X86_VEC_NET) {
		kernel_irq_enter(X86_VEC_NET);
		arch_netdev_irq();	/* the one NIC driven, by MSI or INTx */
		kernel_irq_exit(X86_VEC_NET);
		x86_lapic_eoi();
		return;
	}
	if (v == 2) {
		trap_nmi(tf);
		return;
	}
	/* A _safe MSR access that faulted resumes at its fixup. */
	if (v == 13 && x86_extable_fixup(tf))
		return;
	/* A probe's entry being patched (arch/x86_64/probe.c). */
	if (v == 3 && x86_probe_int3(tf))
		return;
	if (v < 32) {
		const char *name = exception_names[v];

		x86_trap_panic(tf, name ? name : "reserved exception");
	}
	/* Spurious: the local APIC's, or a masked 8259's IRQ 7 / 15.  Neither
	 * takes an EOI. */
	if (v == X86_VEC_SPURIOUS || v == X86_VEC_PIC_BASE + 7 ||
	    v == X86_VEC_PIC_BASE + 15)
		return;
	x86_trap_panic(tf, "unexpected interrupt");
}

uintptr_t hal_trap_ip(const struct trap_frame *tf)
{
	return tf->rip;
}

uintptr_t hal_trap_fp(const struct trap_frame *tf)
{
	return tf->rbp;
}

uintptr_t hal_trap_sp(const struct trap_frame *tf)
{
	return tf->rsp;
}

uintptr_t hal_trap_lr(const struct trap_frame *tf)
{
	return 0;
}

/* The return address after entry.S's call of x86_trap_dispatch. */
extern const char x86_isr_dispatch_ret[];

/* entry.S calls the handler with %rbp = the frame + 1. */
const struct trap_frame *hal_trap_frame_at(uintptr_t ra, uintptr_t fp, size_t *size)
{
	return stacktrace_marked_frame(ra, fp, (uintptr_t)x86_isr_dispatch_ret,
				       sizeof(struct trap_frame), size);
}
