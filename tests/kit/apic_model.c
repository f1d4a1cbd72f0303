/* SPDX-License-Identifier: BSD-2-Clause */
/* A modelled local APIC behind arch/x86_64/pmu_hw.h's MSR and xAPIC
 * accessors, in both of its modes, written from the Intel SDM Vol. 3A:
 *  - 11.4.4: IA32_APIC_BASE (MSR 1BH): bit 11 EN (global enable), bit 10
 *    EXTD (x2APIC mode), base address in bits 12 up.
 *  - 11.4.6: xAPIC ID register (offset 20H), the ID in bits 31:24.
 *  - 11.6.1: xAPIC ICR: the low word (300H) sends, the destination is
 *    bits 63:56 of the pair (310H bits 31:24); bit 12 delivery status.
 *  - 11.12.1.2: in x2APIC mode register offset X is MSR 800H + X/16;
 *    the MMIO page is not available (an access there is an error here);
 *    MSRs 800H-8FFH raise #GP in xAPIC mode.
 *  - 11.12.5 (Figure 11-27): xAPIC to x2APIC by setting EXTD with EN;
 *    x2APIC back to xAPIC while enabled is an invalid transition (#GP).
 *  - 11.12.5.1 / Table 11-6: x2APIC ID (802H), version (803H) and the
 *    timer's current count (839H) are read-only; the ID is 32 bits.
 *  - 11.12.9: the ICR is one 64-bit MSR (830H), destination in bits
 *    63:32, written at once; there is no delivery-status bit.
 *  - 11.12.1.3 / 11.8.5: a non-zero write to the x2APIC EOI register
 *    (80BH) raises #GP. */
#include "apic_model.h"

#include <stdio.h>
#include <string.h>

#include "../arch/x86_64/pmu_hw.h"

#define BASE_EXTD	(1ull << 10)
#define BASE_EN		(1ull << 11)

uint64_t apic_base;
uint32_t apic_id_now;
uint32_t apic_regs[64];		/* offset / 16 */
struct apic_ipi apic_ipis[APIC_IPIS_MAX];
unsigned apic_nipis;
unsigned apic_violations;
char apic_violation[256];
unsigned apic_msr_accesses, apic_mmio_accesses;

static uint32_t icr_hi;

static void violation(const char *what, unsigned long long where)
{
	apic_violations++;
	snprintf(apic_violation, sizeof(apic_violation), "%s 0x%llx", what, where);
}

static bool x2(void)
{
	return apic_base & BASE_EXTD;
}

void apic_model_init(bool x2apic, uint32_t id)
{
	apic_base = 0xfee00000ull | BASE_EN | (x2apic ? BASE_EXTD : 0);
	apic_id_now = id;
	memset(apic_regs, 0, sizeof(apic_regs));
	apic_nipis = apic_violations = apic_msr_accesses = apic_mmio_accesses = 0;
	apic_violation[0] = '\0';
	icr_hi = 0;
}

static void record_ipi(uint32_t dest, uint32_t lo)
{
	if (apic_nipis < APIC_IPIS_MAX)
		apic_ipis[apic_nipis] = (struct apic_ipi){ dest, lo };
	apic_nipis++;
}

uint64_t x86_hw_rdmsr(uint32_t msr)
{
	if (msr == 0x1b)
		return apic_base;
	if (msr < 0x800 || msr > 0x8ff || !x2()) {
		violation("rdmsr (#GP)", msr);
		return 0;
	}
	apic_msr_accesses++;
	if (msr == 0x802)
		return apic_id_now;
	return apic_regs[(msr - 0x800) & 63];
}

void x86_hw_wrmsr(uint32_t msr, uint64_t v)
{
	if (msr == 0x1b) {
		if ((v & BASE_EXTD) && !(v & BASE_EN))
			violation("APIC_BASE: EXTD without EN", v);
		else if (x2() && (v & BASE_EN) && !(v & BASE_EXTD))
			violation("APIC_BASE: x2APIC to xAPIC while enabled", v);
		apic_base = v;
		return;
	}
	if (msr < 0x800 || msr > 0x8ff || !x2()) {
		violation("wrmsr (#GP)", msr);
		return;
	}
	apic_msr_accesses++;
	if (msr == 0x802 || msr == 0x803 || msr == 0x839) {
		violation("wrmsr to a read-only x2APIC register", msr);
		return;
	}
	if (msr == 0x80b && v) {
		violation("non-zero EOI write", v);
		return;
	}
	if (msr == 0x830) {
		record_ipi((uint32_t)(v >> 32), (uint32_t)v);
		return;
	}
	if (v >> 32)
		violation("reserved bits 63:32", msr);
	apic_regs[(msr - 0x800) & 63] = (uint32_t)v;
}

uint32_t x86_hw_xapic_read(unsigned reg)
{
	if (x2()) {
		violation("xAPIC MMIO read in x2APIC mode", reg);
		return 0xffffffffu;
	}
	apic_mmio_accesses++;
	if (reg == 0x020)
		return apic_id_now << 24;
	if (reg == 0x300)
		return apic_regs[0x30];		/* never pending */
	return apic_regs[(reg / 16) & 63];
}

void x86_hw_xapic_write(unsigned reg, uint32_t v)
{
	if (x2()) {
		violation("xAPIC MMIO write in x2APIC mode", reg);
		return;
	}
	apic_mmio_accesses++;
	if (reg == 0x310) {
		icr_hi = v;
		return;
	}
	if (reg == 0x300) {
		record_ipi(icr_hi >> 24, v);
		return;
	}
	apic_regs[(reg / 16) & 63] = v;
}
