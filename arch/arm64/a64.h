/* SPDX-License-Identifier: BSD-2-Clause */
/* System registers as inline wrappers, the trap frame, per-CPU data and
 * the constants the arch files share.  Only arch/arm64/ includes this;
 * the assembly files see the constants. */
#ifndef KPROF_ARCH_ARM64_A64_H
#define KPROF_ARCH_ARM64_A64_H

/* Where QEMU's virt machine starts RAM, and where it writes the device
 * tree for an ELF -kernel (only when the blob fits below the image). */
#define A64_RAM_BASE		0x40000000
#define A64_DTB_DEFAULT		0x40000000

/* Stacks: each CPU's boot stack (its idle task keeps it) and the stack
 * every exception is taken on (SP_EL1). */
#define A64_BOOT_STACK_SIZE	16384
#define A64_EXC_STACK_SIZE	16384

/* The trap frame (entry.S), in bytes: x0-x30, sp, elr, spsr, esr, far,
 * kind, padding to 16. */
#define A64_TF_X29	(29 * 8)
#define A64_TF_SP	(31 * 8)
#define A64_TF_ELR	(32 * 8)
#define A64_TF_SPSR	(33 * 8)
#define A64_TF_ESR	(34 * 8)
#define A64_TF_FAR	(35 * 8)
#define A64_TF_KIND	(36 * 8)
#define A64_TF_SIZE	(38 * 8)

/* Which vector an exception came through (the frame's kind). */
#define A64_EXC_SYNC_SP0	0
#define A64_EXC_IRQ_SP0		1
#define A64_EXC_FIQ_SP0		2
#define A64_EXC_SERROR_SP0	3
#define A64_EXC_SYNC_SPX	4
#define A64_EXC_IRQ_SPX		5
#define A64_EXC_FIQ_SPX		6
#define A64_EXC_SERROR_SPX	7
#define A64_EXC_LOWER		8	/* from EL0 or AArch32: never used */

#ifndef __ASSEMBLER__

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define A64_SYSREG_READ(name) ({ uint64_t v_; \
	__asm__ volatile("mrs %0, " #name : "=r"(v_)); v_; })
#define A64_SYSREG_WRITE(name, v) \
	__asm__ volatile("msr " #name ", %0" : : "r"((uint64_t)(v)) : "memory")

static inline void isb(void)
{
	__asm__ volatile("isb" : : : "memory");
}

static inline void dsb_sy(void)
{
	__asm__ volatile("dsb sy" : : : "memory");
}

static inline uint32_t mmio_read32(uintptr_t addr)
{
	uint32_t v = *(volatile uint32_t *)addr;

	__asm__ volatile("" : : : "memory");
	return v;
}

static inline void mmio_write32(uintptr_t addr, uint32_t v)
{
	__asm__ volatile("" : : : "memory");
	*(volatile uint32_t *)addr = v;
}

static inline void mmio_write64(uintptr_t addr, uint64_t v)
{
	__asm__ volatile("" : : : "memory");
	*(volatile uint64_t *)addr = v;
}

static inline void mmio_write8(uintptr_t addr, uint8_t v)
{
	__asm__ volatile("" : : : "memory");
	*(volatile uint8_t *)addr = v;
}

/* DAIF.I: the one mask bit the kernel toggles (D, A, F stay masked). */
#define A64_DAIF_I	(1ul << 7)

static inline uint64_t a64_daif(void)
{
	return A64_SYSREG_READ(daif);
}

/* The registers the exception entry (entry.S) saves, lowest address
 * first; hal/trap.h's struct trap_frame on this platform. */
struct trap_frame {
	uint64_t x[31];
	uint64_t sp, elr, spsr, esr, far;
	uint64_t kind, pad;
};
_Static_assert(sizeof(struct trap_frame) == A64_TF_SIZE, "entry.S's frame");

/* Per-CPU data, found through TPIDR_EL1. */
struct a64_cpu {
	unsigned id;			/* first: hal_cpu_id() reads it */
	uint64_t mpidr;
	uintptr_t boot_stack_lo, boot_stack_hi;	/* its idle task's stack */
	uintptr_t exc_stack_lo, exc_stack_hi;	/* SP_EL1 */
	volatile bool started;
};

static inline struct a64_cpu *a64_this_cpu(void)
{
	return (struct a64_cpu *)A64_SYSREG_READ(tpidr_el1);
}

/* Every CPU's per-CPU data, by index (cpu.c). */
extern struct a64_cpu a64_cpus[];

/* The stacks (boot.S), HAL_MAX_CPUS of each, lowest first. */
extern char a64_boot_stacks[], a64_exc_stacks[];

/* Start and end of the loaded image (kernel.ld). */
extern char __kernel_start[], __kernel_end[];

/* boot.S: the entry PSCI CPU_ON starts a secondary CPU at, with its
 * index as the context id. */
void a64_secondary_entry(void);

/* Point TPIDR_EL1 at CPU @id's data and fill in its stacks (cpu.c). */
void a64_cpu_init(unsigned id);

/* The PL011 (console.c): the address from the device tree. */
void a64_uart_init(uintptr_t base);

/* The device tree (dt.c), read once by hal_platform_early_init(). */
void a64_dt_read(uintptr_t boot_x0);

/* What the device tree said. */
struct a64_machine {
	uintptr_t dtb;
	size_t dtb_size;
	const char *cmdline;
	uint64_t ram_base[4], ram_size[4];
	unsigned nram;
	unsigned gic_version;		/* 2 or 3 */
	uintptr_t gicd, gicc, gicr;	/* gicc: v2; gicr: v3 */
	uint64_t cpu_mpidr[16];
	unsigned ncpus;
	bool psci_smc;			/* conduit: smc, else hvc */
	bool psci;			/* a PSCI node was found */
	uintptr_t uart;
};
extern struct a64_machine a64_machine;
/* The device tree's /memreserve/ entries, one at a time. */
bool a64_dt_memreserve(unsigned i, uint64_t *addr, uint64_t *size);

/* The GIC (gic.c): priorities from one table, v2 or v3. */
void a64_gic_init(void);		/* distributor; boot CPU */
void a64_gic_init_cpu(void);		/* this CPU's interface */
void a64_gic_enable_ppi(unsigned intid, uint8_t prio);
unsigned a64_gic_ack(void);		/* INTID, 1020-1023 spurious */
void a64_gic_eoi(unsigned intid);
void a64_gic_send_sgi_others(unsigned intid);
const char *a64_gic_name(void);

/* GIC priorities, in one place: lower is more urgent, multiples of
 * 0x20 so that a mask between two levels holds one back.  0x20 is kept
 * for the pseudo-NMI (the panic stop now, the PMU overflow later); the
 * mask for "interrupts off" by priority would then be 0x60, for "on"
 * 0xE0. */
#define A64_PRIO_NMI		0x20
#define A64_PRIO_IRQ		0xa0
#define A64_PRIO_MASK_OPEN	0xf0

/* Interrupt numbers. */
#define A64_SGI_STOP		1	/* the panic stop: kernel_nmi() */
#define A64_PPI_VTIMER		27	/* the generic virtual timer */

/* PSCI (psci.c). */
int64_t a64_psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3);
#define PSCI_CPU_ON		0xc4000003ull
#define PSCI_SYSTEM_OFF		0x84000008ull

/* The timer (timer.c): this CPU's tick started; the tick's work. */
void a64_timer_start_cpu(void);
void a64_timer_irq(struct trap_frame *tf);
uint64_t a64_timer_hz(void);
void a64_delay_us(uint64_t us);

/* Called from entry.S for every exception. */
void a64_trap_dispatch(struct trap_frame *tf);

/* Semihosting (power.c): whether the probe found it, set by the fault
 * handler when the HLT trapped instead. */
extern volatile bool a64_semihosting_absent;
extern volatile uintptr_t a64_semihosting_probe_pc;

/* Stop this CPU for good (cpu.c). */
void a64_cpu_park(void) __attribute__((noreturn));

/* Secondary CPUs (smp.c). */
unsigned a64_smp_cpu_count(void);
void a64_smp_start(unsigned max);

#endif /* !__ASSEMBLER__ */

#endif
