/* SPDX-License-Identifier: BSD-2-Clause */
/* Privileged x86 instructions as inline wrappers, and the few constants
 * the arch files share.  Only arch/x86_64/ includes this; the assembly
 * files (boot.S, trampoline.S) see the constants and the two steps into
 * long mode both of them take. */
#ifndef KPROF_ARCH_X86_64_X86_H
#define KPROF_ARCH_X86_64_X86_H

/* GDT selectors; the layout is fixed in boot.S. */
#define X86_SEL_CODE32	0x08
#define X86_SEL_DATA	0x10
#define X86_SEL_CODE64	0x18
#define X86_SEL_TSS	0x20
/* Entries of a CPU's GDT: the boot layout (boot.S) with a 16-byte TSS
 * descriptor at X86_SEL_TSS. */
#define X86_GDT_ENTRIES	(X86_SEL_TSS / 8 + 2)

/* Which loader entered the kernel (boot.S to x86_boot_main()). */
#define X86_BOOT_PVH	0
#define X86_BOOT_MB2	1
/* Multiboot2: the header's magic, and the one the loader leaves in %eax. */
#define MB2_HEADER_MAGIC 0xe85250d6
#define MB2_BOOT_MAGIC	0x36d76289

/* Where the application processors' real-mode entry (trampoline.S) is
 * copied: below 1 MiB, page-aligned. */
#define X86_TRAMPOLINE	0x8000

/* Interrupt vectors this kernel uses above the 32 CPU exceptions. */
#define X86_VEC_PIC_BASE	0x20	/* legacy 8259s, remapped and masked */
#define X86_VEC_TIMER		0x40	/* local APIC timer: the tick */
#define X86_VEC_NET		0x50	/* the NIC: INTx through the I/O APIC, or MSI */
#define X86_VEC_SPURIOUS	0xff	/* local APIC spurious vector */

/* IST slots in the TSS (1-based, as the IDT gate names them). */
#define X86_IST_NMI	1
#define X86_IST_DF	2
#define X86_IST_MC	3

#ifdef __ASSEMBLER__
/* From 32-bit protected mode, paging off, to 64-bit code at \target:
 * PAE, the page tables \pml4 (a movl source: $symbol or a variable),
 * EFER.LME, then paging and write protect.  Clobbers eax, ecx, edx. */
.macro X86_ENTER_LONG_MODE pml4, target
	movl %cr4, %eax
	orl $0x20, %eax			/* PAE */
	movl %eax, %cr4
	movl \pml4, %eax
	movl %eax, %cr3
	movl $0xc0000080, %ecx		/* EFER */
	rdmsr
	orl $0x100, %eax		/* LME */
	wrmsr
	movl %cr0, %eax
	orl $0x80010000, %eax		/* PG, WP */
	movl %eax, %cr0
	ljmp $X86_SEL_CODE64, $\target
.endm

/* First thing in 64-bit code: the data selector in ds, es, ss, the null
 * one in fs, gs.  Clobbers eax. */
.macro X86_LOAD_SEGMENTS64
	movl $X86_SEL_DATA, %eax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorl %eax, %eax
	movw %ax, %fs
	movw %ax, %gs
.endm
#else

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define X86_RFLAGS_IF	(1ul << 9)

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;

	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;

	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t read_rflags(void)
{
	uint64_t f;

	__asm__ volatile("pushfq; popq %0" : "=r"(f) : : "memory");
	return f;
}

static inline void cpu_pause(void)
{
	__asm__ volatile("pause" : : : "memory");
}

static inline void cli(void)
{
	__asm__ volatile("cli" : : : "memory");
}

static inline void sti(void)
{
	__asm__ volatile("sti" : : : "memory");
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

/* Drop the calling CPU's cached translation of the page holding @addr
 * (and every paging-structure cache entry). */
static inline void invlpg(uintptr_t addr)
{
	__asm__ volatile("invlpg (%0)" : : "r"(addr) : "memory");
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v),
			 "d"((uint32_t)(v >> 32)));
}

static inline uint32_t mmio_read32(uintptr_t addr)
{
	return *(volatile uint32_t *)addr;
}

static inline void mmio_write32(uintptr_t addr, uint32_t v)
{
	*(volatile uint32_t *)addr = v;
}

/* The registers the interrupt entry (entry.S) saves, lowest address
 * first: the general registers it pushes, the vector and error code, then
 * what the CPU pushed.  hal/trap.h's struct trap_frame on this platform. */
/* Probes (probe.c): the boot's rewrite of every patchable entry into
 * one 5-byte NOP, and the #BP of a CPU that met an entry being patched,
 * stepped over it (true) or not a probe's. */
void x86_probe_init(void);
struct trap_frame;
bool x86_probe_int3(struct trap_frame *tf);

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

/* The task-state segment: the IST stacks NMI, #DF and #MC switch to. */
struct x86_tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

#define X86_IST_STACK_SIZE 16384

/* Per-CPU data, found through the GS base (IA32_GS_BASE), which each CPU
 * sets to its own struct before anything asks hal_cpu_id(). */
struct x86_cpu {
	unsigned id;			/* first: hal_cpu_id() reads %gs:0 */
	uint32_t apic_id;
	struct x86_cpu *self;		/* for x86_this_cpu() */
	uintptr_t boot_stack_lo, boot_stack_hi;	/* its idle task's stack */
	uintptr_t ist_stacks;		/* 3 * X86_IST_STACK_SIZE bytes */
	bool started;			/* set by the AP once it is up */
	uint64_t gdt[X86_GDT_ENTRIES] __attribute__((aligned(16)));
	struct x86_tss tss __attribute__((aligned(16)));
};

static inline struct x86_cpu *x86_this_cpu(void)
{
	struct x86_cpu *c;

	__asm__ volatile("movq %%gs:%c1, %0" : "=r"(c)
			 : "i"(offsetof(struct x86_cpu, self)));
	return c;
}

/* The boot CPU's per-CPU data, GDT and TSS: first thing at boot. */
void x86_cpu_init_boot(void);

/* Load @c's GDT (a copy of the boot one with its own TSS) and its TSS. */
void x86_gdt_init_cpu(struct x86_cpu *c);

/* What the MADT (ACPI) says about the machine; false when no MADT was
 * found (then only the boot CPU runs). */
#define X86_MAX_APICS	64
struct x86_madt {
	unsigned ncpus;			/* enabled local APICs */
	uint32_t apic_ids[X86_MAX_APICS];	/* x2APIC entries: 32 bits */
	uint32_t lapic_addr;
	uint32_t ioapic_addr;		/* 0 when none listed */
	unsigned nioapics;
	unsigned disabled;		/* listed, but neither enabled nor online-capable */
};
bool x86_acpi_read_madt(uint64_t rsdp_hint, struct x86_madt *m);
/* The MADT's entries (@len bytes at @e) into @m: local APICs (types 0
 * and 9), I/O APICs, the local APIC address override. */
void x86_madt_entries(const uint8_t *e, size_t len, struct x86_madt *m);
/* The FADT's ACPI power-management timer (3.579545 MHz): its I/O port
 * and whether it counts 32 bits (else 24); false when there is none. */
bool x86_acpi_pm_timer(uint64_t rsdp_hint, uint16_t *port, bool *bits32);

/* Start the application processors the MADT lists, at most @max_cpus
 * CPUs in all; each is left waiting for kernel_cpus_ready().  Boot CPU,
 * before kernel_main(), interrupts off. */
void x86_smp_start(const struct x86_madt *m, unsigned max_cpus);

/* NMI every other CPU that was started.  Any context. */
void x86_smp_nmi_others(void);

/* CPUs up: the boot CPU and each application processor that answered. */
unsigned x86_smp_cpu_count(void);

/* Stop this CPU for good, silently: interrupts off, halted.  A real
 * function, so that a CPU's RIP names it (the SMP tests look). */
void x86_cpu_park(void) __attribute__((noreturn));

/* The local APIC (lapic.c), in the mode the firmware left it: xAPIC
 * (identity-mapped at its architectural address) or x2APIC (MSRs). */
#define X86_LVT_NMI	(4u << 8)	/* an LVT entry delivering an NMI */
#define X86_LVT_MASKED	(1u << 16)
/* Enable the calling CPU's APIC: LINT0 masked (the 8259s are unused),
 * LINT1 as @lint1, the timer masked. */
void x86_lapic_enable(uint32_t lint1);
/* Which mode: read once on the boot CPU, before anything else here. */
void x86_lapic_mode_init(void);
bool x86_lapic_x2apic(void);
uint32_t x86_lapic_id(void);
void x86_lapic_eoi(void);
/* Send an IPI: @icr_lo is the low ICR word (vector, delivery mode, ...),
 * to the APIC @apic_id.  xAPIC: waits (bounded) for the previous one to
 * go; false (nothing sent) for an ID past xAPIC's 8 bits. */
bool x86_lapic_send_ipi(uint32_t apic_id, uint32_t icr_lo);
/* The APIC timer, divided by 16: one count down from @initial (0 stops
 * it), its current count, or periodic at @count, delivering
 * X86_VEC_TIMER. */
void x86_lapic_timer_count_down(uint32_t initial);
uint32_t x86_lapic_timer_current(void);
void x86_lapic_timer_periodic(uint32_t count);

/* An application processor's APIC enabled (LINT0/LINT1 masked) and its
 * tick started with the boot CPU's calibration (hal_timer_init()). */
void x86_timer_init_ap(void);
/* Busy-wait at least @us microseconds (TSC; after hal_timer_init()). */
void x86_delay_us(uint64_t us);
/* TSC rate in Hz, known once hal_timer_init() has calibrated it. */
uint64_t x86_tsc_hz(void);
/* What it was calibrated by: "cpuid", "acpi pm timer" or "pit". */
const char *x86_timer_calibrated_by(void);
/* The TSC's rate from CPUID leaves 0, 0x15 and 0x16 (each EAX-EDX);
 * 0 when they do not state it. */
uint64_t x86_tsc_hz_from_cpuid(const uint32_t l0[4], const uint32_t l15[4],
			       const uint32_t l16[4]);

/* What the boot loader handed over (PVH or Multiboot2): bootinfo.h. */
#include "bootinfo.h"

/* Where the RAM ranges came from: "pvh memmap", "multiboot2 memmap" or
 * "cmos" (mem.c). */
const char *x86_mem_source(void);
/* Map RAM in 4 KiB pages, so that hal_mem_guard() can take one page
 * away: boot CPU, after page_init(), before any other CPU starts. */
void x86_mem_split_ram(void);

/* Set-up steps of the boot CPU, in the order hal_platform_early_init()
 * runs them. */
void x86_serial_init(void);
/* The framebuffer console (fbcon.c), once the loader's information is
 * read: nothing without a framebuffer.  x86_fbcon_write() draws what the
 * serial console writes. */
void x86_fbcon_init(void);
void x86_fbcon_write(const char *buf, size_t len);
void x86_idt_init(void);
/* Load the shared IDT on the calling CPU (an AP). */
void x86_idt_load(void);

/* Print an exception or an unclaimed NMI with the registers and a
 * backtrace, then stop.  Never returns. */
void x86_trap_panic(const struct trap_frame *tf, const char *what)
	__attribute__((noreturn));

/* A fault at an access with an exception-table entry (pmu_hw.c): move
 * @tf to its fixup and return true; false when the address has none. */
bool x86_extable_fixup(struct trap_frame *tf);

/* Called from entry.S for every vector. */
void x86_trap_dispatch(struct trap_frame *tf);

/* PCI configuration space through ports 0xcf8/0xcfc (mechanism #1),
 * bus 0 only: enough for QEMU's pc machine.  @off is 4-byte aligned. */
uint32_t x86_pci_read32(unsigned dev, unsigned fn, unsigned off);
void x86_pci_write32(unsigned dev, unsigned fn, unsigned off, uint32_t v);
/* A function on bus 0 as x86_pci_each() finds it. */
struct x86_pci_fn {
	unsigned dev, fn;
	uint16_t vendor, device;
	uint8_t class;		/* the base class: 0x02 a network controller */
};

#define X86_PCI_CLASS_NETWORK	0x02

/* Call @visit on each function present on bus 0, in slot order, until
 * it returns true: true then, false when it never does. */
bool x86_pci_each(bool (*visit)(const struct x86_pci_fn *f, void *ctx), void *ctx);

/* The first function on bus 0 with @vendor:@device, in *@f; false when
 * none. */
bool x86_pci_find(uint16_t vendor, uint16_t device, struct x86_pci_fn *f);

/* The port of I/O BAR @bar, assigned here when the firmware left it at
 * 0; 0 when it is a memory BAR or cannot be placed.  Boot CPU, once per
 * device. */
uint16_t x86_pci_io_bar(unsigned dev, unsigned fn, unsigned bar);

/* The ISA interrupt (= I/O APIC input) a function's INTx pin reaches;
 * 0 when it has none or it is not routed. */
uint8_t x86_pci_irq(unsigned dev, unsigned fn);

/* The base of 32-bit memory BAR @bar, assigned here (above RAM, from
 * 0xc0000000 up) when the firmware left it at 0, its size in *@size; 0 when it is
 * an I/O BAR, a 64-bit BAR placed above 4 GiB, or cannot be placed.
 * Boot CPU, once per device. */
uint32_t x86_pci_mem_bar(unsigned dev, unsigned fn, unsigned bar, uint32_t *size);

#define X86_PCI_CAP_MSI		0x05

/* The configuration-space offset of the function's first capability
 * @id, 0 when it has none (msi.c). */
unsigned x86_pci_cap_find(unsigned dev, unsigned fn, uint8_t id);

/* Point the function's MSI at @vector on the calling CPU, enable it and
 * turn its INTx off.  False (nothing changed) when it has no MSI
 * capability or the CPU's APIC ID does not fit an xAPIC message. */
bool x86_pci_msi_enable(unsigned dev, unsigned fn, uint8_t vector);

/* Mark [@lo, @hi) uncached (PCD, PWT) in the identity map's 2 MiB pages
 * below 4 GiB: device registers (mem.c). */
void x86_mem_uncached(uint64_t lo, uint64_t hi);

/* The NIC drivers' platform sides, each the attach of one entry of
 * netdev.c's PCI ID table: hand the driver function @f as its platform
 * struct and return what its probe returned (NULL having said why).
 * Task context, boot CPU, once.  virtio-net: netdev.c; 82574L:
 * e1000e.c. */
struct netdev;
struct netdev *x86_virtio_net_attach(const struct x86_pci_fn *f);
struct netdev *x86_e1000e_attach(const struct x86_pci_fn *f);

/* Route ISA/PCI interrupt line @gsi of the I/O APIC to @vector on the
 * calling CPU; level-triggered when @level.  False when the machine has
 * no I/O APIC the MADT named. */
bool x86_ioapic_route(unsigned gsi, uint8_t vector, bool level);

/* Bounds of the boot stack (boot.S), which CPU 0's idle task keeps. */
extern char x86_boot_stack[], x86_boot_stack_top[];
/* Start and end of the loaded image (kernel.ld). */
extern char __kernel_start[], __kernel_end[];

#endif /* !__ASSEMBLER__ */

#endif
