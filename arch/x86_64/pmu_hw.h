/* SPDX-License-Identifier: BSD-2-Clause */
/* The one small layer between the PMU backend (pmu.c) and the machine:
 * CPUID, MSRs, port 0x61, the TSC and the local APIC's registers, each
 * an out-of-line function so that a test can put a modelled CPU behind
 * them (tests/kit/x86_model.c).  pmu.c holds no inline assembly; this is
 * where the instructions are (pmu_hw.c). */
#ifndef KPROF_ARCH_X86_64_PMU_HW_H
#define KPROF_ARCH_X86_64_PMU_HW_H

#include <stdint.h>

struct trap_frame;

void x86_hw_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]);

/* Plain accesses: for MSRs the probe has shown exist.  A #GP here is a
 * bug, and panics. */
uint64_t x86_hw_rdmsr(uint32_t msr);
void x86_hw_wrmsr(uint32_t msr, uint64_t v);

/* The same, with a #GP turned into -EIO (an exception-table fixup):
 * for MSRs a part may claim and still lack. */
int x86_hw_rdmsr_safe(uint32_t msr, uint64_t *v);
int x86_hw_wrmsr_safe(uint32_t msr, uint64_t v);

/* Port 0x61, the system control port: NMI reasons in bits 7 and 6. */
uint8_t x86_hw_inb(uint16_t port);

/* The time-stamp counter, and its rate (after hal_timer_init()). */
uint64_t x86_hw_tsc(void);
uint64_t x86_hw_tsc_hz(void);

/* A local APIC register through its xAPIC MMIO page (offset @reg); the
 * x2APIC's are MSRs 0x800 + @reg / 16, written with x86_hw_wrmsr(). */
void x86_hw_xapic_write(unsigned reg, uint32_t v);
uint32_t x86_hw_xapic_read(unsigned reg);

/* ---- what the backend offers the rest of arch/x86_64 ---- */

/* Sources an NMI was found to have (x86_pmu_nmi()). */
#define X86_NMI_STOP_OR_OVERFLOW 1u	/* kernel_nmi() claimed it */
#define X86_NMI_SERR		2u	/* port 0x61 bit 7 */
#define X86_NMI_IOCHK		4u	/* port 0x61 bit 6 */
#define X86_NMI_LATE		8u	/* an overflow after disarm */
#define X86_NMI_UNKNOWN		16u	/* no source, but this CPU's counter
					 * has run: counted, not fatal */

/* Every source of the NMI being handled, checked every time: x86 NMIs
 * collapse into one delivery, so one source never hides another.  When
 * none claimed it, counted as unknown, and 0 -- or X86_NMI_UNKNOWN where
 * this CPU's counter has been armed (a PMI later than its credit is then
 * possible, and harmless).  NMI context. */
unsigned x86_pmu_nmi(struct trap_frame *tf);

#endif
