/* SPDX-License-Identifier: BSD-2-Clause */
/* A modelled local APIC in xAPIC and x2APIC mode behind pmu_hw.h's
 * accessors (tests/kit/apic_model.c cites the SDM), for arch/x86_64/lapic.c
 * in tests/arch/check_x86boot.c. */
#ifndef KPROF_TESTS_APIC_MODEL_H
#define KPROF_TESTS_APIC_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define APIC_IPIS_MAX 16

struct apic_ipi {
	uint32_t dest;
	uint32_t lo;
};

/* One CPU's APIC, enabled, in x2APIC mode when @x2apic, with ID @id. */
void apic_model_init(bool x2apic, uint32_t id);

extern uint64_t apic_base;		/* IA32_APIC_BASE */
extern uint32_t apic_id_now;
extern uint32_t apic_regs[64];		/* by offset / 16, either mode */
extern struct apic_ipi apic_ipis[APIC_IPIS_MAX];
extern unsigned apic_nipis;
extern unsigned apic_msr_accesses, apic_mmio_accesses;
/* What a real CPU would have faulted on (the message names the last). */
extern unsigned apic_violations;
extern char apic_violation[256];

#endif
