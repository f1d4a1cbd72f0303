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
 * kind, and the interrupted ICC_PMR_EL1 (exception entry sets DAIF but
 * leaves the priority mask as it was: the exit puts it back). */
#define A64_TF_X29	(29 * 8)
#define A64_TF_SP	(31 * 8)
#define A64_TF_ELR	(32 * 8)
#define A64_TF_SPSR	(33 * 8)
#define A64_TF_ESR	(34 * 8)
#define A64_TF_FAR	(35 * 8)
#define A64_TF_KIND	(36 * 8)
#define A64_TF_PMR	(37 * 8)
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
	uint64_t kind, pmr;
};
_Static_assert(sizeof(struct trap_frame) == A64_TF_SIZE, "entry.S's frame");

/* Per-CPU data, found through TPIDR_EL1. */
struct a64_cpu {
	unsigned id;			/* first: hal_cpu_id() reads it */
	uint64_t mpidr;
	uintptr_t boot_stack_lo, boot_stack_hi;	/* its idle task's stack */
	uintptr_t exc_stack_lo, exc_stack_hi;	/* SP_EL1 */
	volatile bool started;
	uint64_t spurious;		/* acknowledged as 1020-1023 */
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
	uintptr_t fw_cfg;		/* QEMU's fw_cfg, MMIO; 0: none */
	unsigned pmu_intid;		/* arm,armv8-pmuv3's PPI; 0: none */
	bool pmu_edge;			/* its flags say edge-triggered */
};
extern struct a64_machine a64_machine;
/* The device tree's /memreserve/ entries, one at a time. */
bool a64_dt_memreserve(unsigned i, uint64_t *addr, uint64_t *size);
/* The device tree's virtio-mmio slots ("virtio,mmio" nodes with a
 * register window and a GIC interrupt), one at a time, in the tree's
 * order; how many such nodes lacked either and were left out. */
#define A64_VMMIO_MAX	64
struct a64_vmmio_slot {
	uint64_t base, size;
	unsigned intid;		/* GIC INTID: an SPI is 32 + its number */
	bool edge;		/* edge-triggered, else level */
};
bool a64_dt_virtio_mmio(unsigned i, struct a64_vmmio_slot *slot);
unsigned a64_dt_virtio_mmio_bad(void);
/* Make [addr, addr + size) reachable as Device memory (mem.c): true when
 * it already is (128 MiB - 1 GiB) or a 2 MiB block of the low GiB could
 * be mapped for it; false anywhere else (RAM, above the map). */
bool a64_mem_map_device(uint64_t addr, uint64_t size);

/* The GIC (gic.c): priorities from one table, v2 or v3. */
void a64_gic_init(void);		/* distributor; boot CPU */
void a64_gic_init_cpu(void);		/* this CPU's interface */
/* At its table priority, level- or edge-triggered. */
void a64_gic_enable_ppi(unsigned intid, bool edge);
/* Whether the GIC holds this CPU's PPI @intid as edge-triggered. */
bool a64_gic_ppi_edge(unsigned intid);
bool a64_gic_ppi_pending(unsigned intid);	/* this CPU's */
bool a64_gic_is_nmi(unsigned intid);	/* at A64_PRIO_NMI in the table */
unsigned a64_gic_ack(void);		/* INTID, 1020-1023 spurious */
void a64_gic_eoi(unsigned intid);
void a64_gic_send_sgi_others(unsigned intid);
/* Enable SPI @intid at its priority from the table, edge- or
 * level-triggered, routed to the calling CPU. */
void a64_gic_enable_spi(unsigned intid, bool edge);
const char *a64_gic_name(void);
bool a64_gic_pmhe(void);		/* ICC_CTLR_EL1.PMHE (GICv3) */

/* GIC priorities, in one place: lower is more urgent.  Linux's values,
 * which survive a GIC that implements only 5 bits and the non-secure
 * view's halving: the pseudo-NMI (the PMU overflow, the panic stop) at
 * 0x20, every other interrupt at 0xA0; "interrupts off" on GICv3 is the
 * priority mask 0x60, which only the pseudo-NMI passes, "on" 0xE0. */
#define A64_PRIO_NMI		0x20
#define A64_PRIO_IRQ		0xa0
#define A64_PMR_OFF		0x60
#define A64_PMR_ON		0xe0

/* Interrupt numbers. */
#define A64_SGI_STOP		1	/* the panic stop: kernel_nmi() */
#define A64_PPI_VTIMER		27	/* the generic virtual timer */
#define A64_PPI_PMU_DEFAULT	23	/* the PMU on QEMU's virt (PPI 7) */

/* PSCI (psci.c). */
int64_t a64_psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3);
#define PSCI_CPU_ON		0xc4000003ull
#define PSCI_SYSTEM_OFF		0x84000008ull

/* The timer (timer.c): this CPU's tick started; the tick's work. */
void a64_timer_start_cpu(void);
void a64_timer_irq(struct trap_frame *tf);
uint64_t a64_timer_hz(void);
void a64_delay_us(uint64_t us);

/* The network device's interrupt (netdev.c), from the IRQ path before
 * the EOI: true when @intid was its own. */
bool a64_netdev_irq(unsigned intid);
/* The PMU's overflow interrupt (pmu.c), from trap.c before its EOI:
 * the pseudo-NMI on GICv3, a plain IRQ on GICv2; DAIF.I set. */
void a64_pmu_irq(struct trap_frame *tf);

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
/* Once, on the boot CPU before the others start: RAM in 4 KiB pages. */
void a64_mem_split_ram(void);

#endif /* !__ASSEMBLER__ */

#endif
