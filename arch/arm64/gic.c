/* SPDX-License-Identifier: BSD-2-Clause */
/* The GIC, v2 or v3, as the device tree says.  QEMU's virt without EL3
 * has one security state, and after reset every interrupt is Group 0
 * (an FIQ on v3) with the priority mask at 0: every interrupt goes to
 * Group 1, Group 1 is enabled and the mask set.  Every priority is set
 * from the one table below.  On GICv3 the kernel masks interrupts by
 * priority (irqflags.h): the CPU interface's PMR starts at "off", the
 * PMU overflow and the panic stop sit above it as pseudo-NMIs.  On GICv2
 * the ICC_* registers are undefined and never touched; its PMR stays
 * open and DAIF.I masks. */
#include "a64.h"

#include "hal/cpu.h"
#include "irqflags.h"

/* Distributor. */
#define GICD_CTLR		0x0000
#define GICD_TYPER		0x0004
#define GICD_IGROUPR		0x0080
#define GICD_ISENABLER		0x0100
#define GICD_ICENABLER		0x0180
#define GICD_ISPENDR		0x0200
#define GICD_IPRIORITYR		0x0400
#define GICD_ITARGETSR		0x0800
#define GICD_SGIR		0x0f00
#define GICD_IROUTER		0x6000
#define GICD_CTLR_RWP		(1u << 31)
#define GICD_CTLR_ARE		(1u << 4)	/* ARE_NS / ARE with one state */
#define GICD_CTLR_GRP1		(1u << 1)
#define GICD_CTLR_GRP0		(1u << 0)

/* GICv2 CPU interface. */
#define GICC_CTLR		0x0000
#define GICC_PMR		0x0004
#define GICC_BPR		0x0008
#define GICC_IAR		0x000c
#define GICC_EOIR		0x0010
/* Without security extensions: both groups on, and AckCtl so that IAR
 * acknowledges Group 1 too (else it reads 1022 for them). */
#define GICC_CTLR_ENABLE	0x7

/* GICv3 redistributor: RD frame then SGI frame, 64 KiB each. */
#define GICR_STRIDE		0x20000
#define GICR_TYPER		0x0008
#define GICR_WAKER		0x0014
#define GICR_SGI		0x10000
#define GICR_IGROUPR0		(GICR_SGI + 0x0080)
#define GICR_ISENABLER0		(GICR_SGI + 0x0100)
#define GICR_ISPENDR0		(GICR_SGI + 0x0200)
#define GICR_IPRIORITYR		(GICR_SGI + 0x0400)
#define GICR_ICFGR1		(GICR_SGI + 0x0c04)	/* the PPIs' triggers */
#define GICR_ICENABLER0		(GICR_SGI + 0x0180)
#define GICR_WAKER_SLEEP	(1u << 1)
#define GICR_WAKER_ASLEEP	(1u << 2)
#define GICR_TYPER_LAST		(1u << 4)

/* GICv3 CPU interface, by encoding. */
#define ICC_PMR_EL1		S3_0_C4_C6_0
#define ICC_IAR1_EL1		S3_0_C12_C12_0
#define ICC_EOIR1_EL1		S3_0_C12_C12_1
#define ICC_BPR1_EL1		S3_0_C12_C12_3
#define ICC_CTLR_EL1		S3_0_C12_C12_4
#define ICC_CTLR_PMHE		(1u << 6)
#define ICC_SRE_EL1		S3_0_C12_C12_5
#define ICC_IGRPEN1_EL1		S3_0_C12_C12_7
#define ICC_SGI1R_EL1		S3_0_C12_C11_5
#define SYSREG_READ(n)		A64_SYSREG_READ(n)
#define SYSREG_WRITE(n, v)	A64_SYSREG_WRITE(n, v)

/* Bound on waiting for the GIC to finish a register write. */
#define GIC_SPINS		1000000

/* Priorities of the interrupts this kernel uses: the one table.  The
 * pseudo-NMIs are the ones at A64_PRIO_NMI: trap.c handles them with
 * DAIF.I still set and never switches tasks in them.  The PMU's INTID
 * comes from the device tree; everything else is at A64_PRIO_IRQ. */
static const struct {
	unsigned intid;
	uint8_t prio;
} gic_prio_table[] = {
	{ A64_SGI_STOP, A64_PRIO_NMI },		/* the panic stop */
	{ A64_PPI_VTIMER, A64_PRIO_IRQ },	/* the tick */
};

static unsigned gic_lines;	/* interrupt IDs the distributor has */
static uintptr_t gicr_this[HAL_MAX_CPUS];
static bool gic_pmhe;		/* ICC_CTLR_EL1.PMHE, the boot CPU's */

static uint8_t gic_prio_of(unsigned intid)
{
	if (a64_machine.pmu_intid && intid == a64_machine.pmu_intid)
		return A64_PRIO_NMI;	/* the PMU overflow */
	for (size_t i = 0; i < sizeof(gic_prio_table) / sizeof(gic_prio_table[0]); i++)
		if (gic_prio_table[i].intid == intid)
			return gic_prio_table[i].prio;
	return A64_PRIO_IRQ;
}

bool a64_gic_is_nmi(unsigned intid)
{
	return gic_prio_of(intid) == A64_PRIO_NMI;
}

bool a64_gic_pmhe(void)
{
	return gic_pmhe;
}

static bool gic_v3(void)
{
	return a64_machine.gic_version == 3;
}

const char *a64_gic_name(void)
{
	return gic_v3() ? "gicv3" : "gicv2";
}

static void gicd_wait_rwp(void)
{
	for (int i = 0; i < GIC_SPINS; i++)
		if (!(mmio_read32(a64_machine.gicd + GICD_CTLR) & GICD_CTLR_RWP))
			return;
}

static void gic_set_prio(uintptr_t base, unsigned intid, uint8_t prio)
{
	uintptr_t reg = base + (intid & ~3u);
	unsigned shift = (intid & 3) * 8;
	uint32_t v = mmio_read32(reg);

	v = (v & ~(0xffu << shift)) | (uint32_t)prio << shift;
	mmio_write32(reg, v);
}

/* The distributor: every SPI in Group 1, disabled, at the IRQ priority,
 * to the boot CPU; then Group 1 (and 0) on, with affinity routing on v3. */
void a64_gic_init(void)
{
	uintptr_t d = a64_machine.gicd;

	gic_lines = ((mmio_read32(d + GICD_TYPER) & 0x1f) + 1) * 32;
	if (gic_lines > 1020)
		gic_lines = 1020;
	mmio_write32(d + GICD_CTLR, 0);
	gicd_wait_rwp();
	if (gic_v3()) {
		mmio_write32(d + GICD_CTLR, GICD_CTLR_ARE);
		gicd_wait_rwp();
	}
	for (unsigned i = 32; i < gic_lines; i += 32) {
		mmio_write32(d + GICD_ICENABLER + i / 8, 0xffffffffu);
		mmio_write32(d + GICD_IGROUPR + i / 8, 0xffffffffu);
	}
	for (unsigned i = 32; i < gic_lines; i++) {
		gic_set_prio(d + GICD_IPRIORITYR, i, gic_prio_of(i));
		if (gic_v3())
			mmio_write64(d + GICD_IROUTER + 8 * i,
				     a64_cpus[0].mpidr & 0xff00ffffffull);
		else
			mmio_write8(d + GICD_ITARGETSR + i, 1);
	}
	gicd_wait_rwp();
	mmio_write32(d + GICD_CTLR, (gic_v3() ? GICD_CTLR_ARE : 0) |
		     GICD_CTLR_GRP1 | GICD_CTLR_GRP0);
	gicd_wait_rwp();
	/* On the boot CPU, before any other starts: every CPU's interface
	 * then comes up masking by priority (gic_init_cpu_v3). */
	a64_irq_by_pmr = gic_v3();
}

/* This CPU's redistributor: the one whose GICR_TYPER affinity is our
 * MPIDR's, walking the frames until the one marked last. */
static uintptr_t gicr_find(void)
{
	uint64_t mpidr = a64_this_cpu()->mpidr;
	uint32_t aff = (uint32_t)((mpidr & 0xffffff) | ((mpidr >> 32) & 0xff) << 24);
	uintptr_t r = a64_machine.gicr;

	for (unsigned i = 0; i < 64; i++, r += GICR_STRIDE) {
		uint64_t typer = *(volatile uint64_t *)(r + GICR_TYPER);

		if ((uint32_t)(typer >> 32) == aff)
			return r;
		if (typer & GICR_TYPER_LAST)
			break;
	}
	return 0;
}

static void gic_init_cpu_v3(void)
{
	uintptr_t r = gicr_find();

	gicr_this[hal_cpu_id()] = r;
	if (!r)
		return;
	mmio_write32(r + GICR_WAKER, mmio_read32(r + GICR_WAKER) & ~GICR_WAKER_SLEEP);
	for (int i = 0; i < GIC_SPINS; i++)
		if (!(mmio_read32(r + GICR_WAKER) & GICR_WAKER_ASLEEP))
			break;
	mmio_write32(r + GICR_IGROUPR0, 0xffffffffu);
	for (unsigned i = 0; i < 32; i++)
		gic_set_prio(r + GICR_IPRIORITYR, i, gic_prio_of(i));
	mmio_write32(r + GICR_ISENABLER0, 1u << A64_SGI_STOP);
	SYSREG_WRITE(ICC_SRE_EL1, SYSREG_READ(ICC_SRE_EL1) | 1);
	isb();
	/* Masked by priority from the first moment the interface is on:
	 * "off" lets only the pseudo-NMIs through. */
	SYSREG_WRITE(ICC_PMR_EL1, A64_PMR_OFF);
	SYSREG_WRITE(ICC_BPR1_EL1, 0);
	/* EOImode 0: an EOI both drops the running priority and
	 * deactivates, so nested acknowledgements end in reverse order. */
	SYSREG_WRITE(ICC_CTLR_EL1, 0);
	SYSREG_WRITE(ICC_IGRPEN1_EL1, 1);
	isb();
	if (hal_cpu_id() == 0)
		gic_pmhe = SYSREG_READ(ICC_CTLR_EL1) & ICC_CTLR_PMHE;
	a64_irq_pmr_takeover();
}

static void gic_init_cpu_v2(void)
{
	uintptr_t d = a64_machine.gicd, c = a64_machine.gicc;

	/* SGIs and PPIs: banked per CPU in the distributor. */
	mmio_write32(d + GICD_IGROUPR, 0xffffffffu);
	for (unsigned i = 0; i < 32; i++)
		gic_set_prio(d + GICD_IPRIORITYR, i, gic_prio_of(i));
	mmio_write32(d + GICD_ISENABLER, 1u << A64_SGI_STOP);
	mmio_write32(c + GICC_PMR, A64_PMR_ON);
	mmio_write32(c + GICC_BPR, 0);
	mmio_write32(c + GICC_CTLR, GICC_CTLR_ENABLE);
}

void a64_gic_init_cpu(void)
{
	if (gic_v3())
		gic_init_cpu_v3();
	else
		gic_init_cpu_v2();
}

#define GICD_ICFGR		0x0c00

/* This CPU's PPI trigger register (ICFGR1: two bits per PPI, the upper
 * one set for edge): the redistributor's on v3, the distributor's
 * per-CPU bank on v2. */
static uintptr_t gic_ppi_cfg(void)
{
	if (!gic_v3())
		return a64_machine.gicd + GICD_ICFGR + 4;
	return gicr_this[hal_cpu_id()] ? gicr_this[hal_cpu_id()] + GICR_ICFGR1 : 0;
}

/* A PPI of this CPU (banked: each CPU's redistributor on v3, the
 * distributor's per-CPU bank on v2): disabled, its trigger as the
 * device tree says (whether a PPI's is programmable is the
 * implementation's choice; QEMU's is), its priority from the table,
 * then enabled. */
void a64_gic_enable_ppi(unsigned intid, bool edge)
{
	uintptr_t base = gic_v3() ? gicr_this[hal_cpu_id()] : a64_machine.gicd;
	uintptr_t cfg = gic_ppi_cfg();
	uint32_t bit = 2u << ((intid - 16) * 2);

	if (!base || intid < 16 || intid > 31)
		return;
	mmio_write32(base + (gic_v3() ? GICR_ICENABLER0 : GICD_ICENABLER), 1u << intid);
	mmio_write32(cfg, edge ? mmio_read32(cfg) | bit : mmio_read32(cfg) & ~bit);
	gic_set_prio(base + (gic_v3() ? GICR_IPRIORITYR : GICD_IPRIORITYR), intid,
		     gic_prio_of(intid));
	mmio_write32(base + (gic_v3() ? GICR_ISENABLER0 : GICD_ISENABLER), 1u << intid);
}

bool a64_gic_ppi_edge(unsigned intid)
{
	uintptr_t cfg = gic_ppi_cfg();

	if (!cfg || intid < 16 || intid > 31)
		return false;
	return mmio_read32(cfg) & (2u << ((intid - 16) * 2));
}

/* Whether this CPU's PPI @intid is pending at the GIC. */
bool a64_gic_ppi_pending(unsigned intid)
{
	uintptr_t reg;

	if (gic_v3()) {
		uintptr_t r = gicr_this[hal_cpu_id()];

		if (!r)
			return false;
		reg = r + GICR_ISPENDR0;
	} else {
		reg = a64_machine.gicd + GICD_ISPENDR;
	}
	return mmio_read32(reg) & (1u << intid);
}

/* The raw acknowledge value: GICv2's carries an SGI's source CPU,
 * which its EOI must give back. */
unsigned a64_gic_ack(void)
{
	unsigned iar;

	if (!gic_v3())
		return mmio_read32(a64_machine.gicc + GICC_IAR);
	iar = (unsigned)SYSREG_READ(ICC_IAR1_EL1);
	/* As Linux's gic_read_iar_common(): the acknowledge completes
	 * before the handler reads the state of the device that raised it
	 * (a system register read is not ordered with memory accesses). */
	dsb_sy();
	return iar;
}

void a64_gic_eoi(unsigned iar)
{
	if (!gic_v3()) {
		mmio_write32(a64_machine.gicc + GICC_EOIR, iar);
		return;
	}
	SYSREG_WRITE(ICC_EOIR1_EL1, iar);
	/* As Linux's gic_eoi_irq(): the priority drop takes effect before
	 * what follows -- the tick goes on to switch tasks and unmask, and
	 * an interrupt of this priority must be taken from then on. */
	isb();
}

/* To every CPU but this one. */
void a64_gic_send_sgi_others(unsigned intid)
{
	dsb_sy();
	if (gic_v3()) {
		SYSREG_WRITE(ICC_SGI1R_EL1, (1ull << 40) | (uint64_t)intid << 24);
		isb();
	} else {
		mmio_write32(a64_machine.gicd + GICD_SGIR, (1u << 24) | intid);
	}
}

/* A device's SPI: its trigger as the device tree says (GICD_ICFGR, two
 * bits per INTID, the upper one set for edge), its priority from the
 * table, routed to
 * this CPU (v3: our affinity in GICD_IROUTER; v2: GICD_ITARGETSR0-7 read
 * back this CPU's own target bit), then enabled.  A line the distributor
 * does not have is left alone. */
void a64_gic_enable_spi(unsigned intid, bool edge)
{
	uintptr_t d = a64_machine.gicd;
	uintptr_t cfg = d + GICD_ICFGR + (intid / 16) * 4;
	uint32_t bit = 2u << ((intid % 16) * 2);

	if (intid < 32 || intid >= gic_lines)
		return;
	mmio_write32(d + GICD_ICENABLER + (intid / 32) * 4, 1u << (intid % 32));
	gicd_wait_rwp();
	mmio_write32(cfg, edge ? mmio_read32(cfg) | bit : mmio_read32(cfg) & ~bit);
	gic_set_prio(d + GICD_IPRIORITYR, intid, gic_prio_of(intid));
	if (gic_v3())
		mmio_write64(d + GICD_IROUTER + 8 * intid,
			     a64_this_cpu()->mpidr & 0xff00ffffffull);
	else
		mmio_write8(d + GICD_ITARGETSR + intid,
			    (uint8_t)mmio_read32(d + GICD_ITARGETSR));
	mmio_write32(d + GICD_ISENABLER + (intid / 32) * 4, 1u << (intid % 32));
	gicd_wait_rwp();
}
