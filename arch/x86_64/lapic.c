/* SPDX-License-Identifier: BSD-2-Clause */
/* The local APIC, in whichever mode the firmware left it: xAPIC, its
 * registers in the MMIO page at the architectural address, or x2APIC
 * (IA32_APIC_BASE bit 10), where the MMIO page is gone and register
 * @reg is MSR 0x800 + @reg / 16, the ID is 32 bits and the ICR one
 * 64-bit MSR (Intel SDM Vol. 3A, 11.12).  Firmware that hands over
 * x2APIC mode (common on servers, required past APIC ID 254) could not
 * be booted before.  The mode is the boot CPU's; an application
 * processor found in xAPIC mode is switched to it (xAPIC to x2APIC is a
 * transition the SDM allows, 11.12.5).  Every access goes through
 * pmu_hw.h, so that tests/arch/check_x86boot.c runs this file against a model
 * of both modes.  Enabling it, the end of an interrupt, IPIs, and the
 * timer's registers for timer.c. */
#include "pmu_hw.h"
#include "x86.h"

#define MSR_APIC_BASE	0x1b
#define APIC_BASE_EXTD	(1ull << 10)	/* x2APIC mode */
#define APIC_BASE_EN	(1ull << 11)
#define X2APIC_MSR(reg)	(0x800u + (reg) / 16)

#define LAPIC_ID	0x020
#define LAPIC_TPR	0x080
#define LAPIC_EOI	0x0b0
#define LAPIC_SVR	0x0f0
#define LAPIC_LVT_TIMER	0x320
#define LAPIC_LVT_LINT0	0x350
#define LAPIC_LVT_LINT1	0x360
#define LAPIC_ICR_LO	0x300
#define LAPIC_ICR_HI	0x310
#define ICR_PENDING	(1u << 12)
#define ICR_SPINS	1000000
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR	0x390
#define LAPIC_TIMER_DIV	0x3e0
#define LVT_PERIODIC	(1u << 17)
#define TIMER_DIV_16	0x3
#define XAPIC_ID_MAX	0xff

static bool x2apic;

bool x86_lapic_x2apic(void)
{
	return x2apic;
}

void x86_lapic_mode_init(void)
{
	x2apic = x86_hw_rdmsr(MSR_APIC_BASE) & APIC_BASE_EXTD;
}

static uint32_t lapic_read(unsigned reg)
{
	if (x2apic)
		return (uint32_t)x86_hw_rdmsr(X2APIC_MSR(reg));
	return x86_hw_xapic_read(reg);
}

static void lapic_write(unsigned reg, uint32_t v)
{
	if (x2apic)
		x86_hw_wrmsr(X2APIC_MSR(reg), v);
	else
		x86_hw_xapic_write(reg, v);
}

void x86_lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

/* The calling CPU in the boot CPU's mode: only xAPIC to x2APIC can be
 * done in one step; the other way would need the APIC disabled, and no
 * firmware hands over a boot CPU in xAPIC mode with its APs in x2APIC. */
static void lapic_match_mode(void)
{
	uint64_t base = x86_hw_rdmsr(MSR_APIC_BASE);

	if (x2apic && !(base & APIC_BASE_EXTD))
		x86_hw_wrmsr(MSR_APIC_BASE, base | APIC_BASE_EN | APIC_BASE_EXTD);
}

void x86_lapic_enable(uint32_t lint1)
{
	lapic_match_mode();
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_SVR, 0x100 | X86_VEC_SPURIOUS);	/* enable */
	lapic_write(LAPIC_LVT_LINT0, X86_LVT_MASKED);	/* the 8259s are unused */
	lapic_write(LAPIC_LVT_LINT1, lint1);
	lapic_write(LAPIC_LVT_TIMER, X86_LVT_MASKED | X86_VEC_TIMER);
}

uint32_t x86_lapic_id(void)
{
	if (x2apic)
		return lapic_read(LAPIC_ID);
	return lapic_read(LAPIC_ID) >> 24;
}

static void lapic_icr_wait(void)
{
	for (int i = 0; i < ICR_SPINS; i++) {
		if (!(lapic_read(LAPIC_ICR_LO) & ICR_PENDING))
			return;
		__asm__ volatile("pause");
	}
}

/* x2APIC's ICR is one MSR, written at once, and has no delivery-status
 * bit to wait on (11.12.9); xAPIC's destination is 8 bits. */
bool x86_lapic_send_ipi(uint32_t apic_id, uint32_t icr_lo)
{
	if (x2apic) {
		x86_hw_wrmsr(X2APIC_MSR(LAPIC_ICR_LO), (uint64_t)apic_id << 32 | icr_lo);
		return true;
	}
	if (apic_id > XAPIC_ID_MAX)
		return false;
	lapic_icr_wait();
	lapic_write(LAPIC_ICR_HI, apic_id << 24);
	lapic_write(LAPIC_ICR_LO, icr_lo);	/* this write sends it */
	lapic_icr_wait();
	return true;
}

void x86_lapic_timer_count_down(uint32_t initial)
{
	lapic_write(LAPIC_TIMER_DIV, TIMER_DIV_16);
	lapic_write(LAPIC_TIMER_INIT, initial);
}

uint32_t x86_lapic_timer_current(void)
{
	return lapic_read(LAPIC_TIMER_CUR);
}

void x86_lapic_timer_periodic(uint32_t count)
{
	lapic_write(LAPIC_TIMER_DIV, TIMER_DIV_16);
	lapic_write(LAPIC_LVT_TIMER, LVT_PERIODIC | X86_VEC_TIMER);
	lapic_write(LAPIC_TIMER_INIT, count);
}
