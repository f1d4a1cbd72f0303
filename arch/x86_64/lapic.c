/* SPDX-License-Identifier: BSD-2-Clause */
/* The local APIC (xAPIC), identity-mapped at its architectural address:
 * enabling it, the end of an interrupt, IPIs, and its timer's registers
 * for timer.c. */
#include "x86.h"

#define LAPIC_BASE	0xfee00000ul
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

static uint32_t lapic_read(unsigned reg)
{
	return mmio_read32(LAPIC_BASE + reg);
}

static void lapic_write(unsigned reg, uint32_t v)
{
	mmio_write32(LAPIC_BASE + reg, v);
}

void x86_lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

void x86_lapic_enable(uint32_t lint1)
{
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_SVR, 0x100 | X86_VEC_SPURIOUS);	/* enable */
	lapic_write(LAPIC_LVT_LINT0, X86_LVT_MASKED);	/* the 8259s are unused */
	lapic_write(LAPIC_LVT_LINT1, lint1);
	lapic_write(LAPIC_LVT_TIMER, X86_LVT_MASKED | X86_VEC_TIMER);
}

uint32_t x86_lapic_id(void)
{
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

void x86_lapic_send_ipi(unsigned apic_id, uint32_t icr_lo)
{
	lapic_icr_wait();
	lapic_write(LAPIC_ICR_HI, apic_id << 24);
	lapic_write(LAPIC_ICR_LO, icr_lo);	/* this write sends it */
	lapic_icr_wait();
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
