/* SPDX-License-Identifier: BSD-2-Clause */
/* A modelled x86 CPU behind arch/x86_64/pmu_hw.h: CPUID, the perfmon
 * MSRs, the local APIC's LVT performance entry and port 0x61, as the
 * Intel SDM and the AMD APM describe them (sections cited in
 * x86_model.c).  The PMU backend (arch/x86_64/pmu.c) is compiled against
 * it by tests/arch/check_x86pmu.c. */
#ifndef KPROF_TESTS_X86_MODEL_H
#define KPROF_TESTS_X86_MODEL_H

#include <stdbool.h>
#include <stdint.h>

enum model_part {
	MODEL_INTEL_V2,		/* arch perfmon v2, 3 fixed counters */
	MODEL_INTEL_V4_FREEZE,	/* v4, firmware left FREEZE_PERFMON_ON_PMI set */
	MODEL_INTEL_V5,		/* v5, fixed counters enumerated by ECX only */
	MODEL_AMD_ZEN2,		/* core-ext counters, no PerfMonV2 */
	MODEL_AMD_ZEN4,		/* PerfMonV2 */
	MODEL_HV_IGNORES,	/* claims v4; the MSRs read 0, writes vanish */
	MODEL_MSR_FAULTS,	/* claims v4; every perfmon MSR raises #GP */
	MODEL_NO_PMU,		/* CPUID claims nothing (QEMU TCG) */
	MODEL_AMD_LEAF_A,	/* Zen 2 under a hypervisor that also answers
				 * Intel's leaf 0xA (arch perfmon v2) */
};

#define MODEL_CPUS 4

/* Intel's fixed counters' width (CPUID 0xA EDX[12:5]); 48 after
 * model_init(). */
extern unsigned model_fixed_width;

/* Set up @ncpus CPUs of @part; CPU 0 is current. */
void model_init(enum model_part part, unsigned ncpus);
/* Make CPU @cpu the one the backend runs on; the test's hal_cpu_id()
 * answers model_cpu() (the race test's fake platform keeps the two
 * equal). */
void model_set_cpu(unsigned cpu);
unsigned model_cpu(void);
unsigned model_ncpus(void);
/* Put CPU @cpu's local APIC in x2APIC mode. */
void model_x2apic(unsigned cpu);
/* Leave the counter the backend would use enabled, as firmware might. */
void model_firmware_uses_counter(unsigned cpu);

/* Let @cycles core cycles pass on the current CPU: enabled counters
 * advance, overflow, and may raise a PMI (pending until delivered). */
void model_run(uint64_t cycles);
/* Deliver the current CPU's pending NMI through x86_pmu_nmi() (with
 * model_nmi_tf), and then the one raised while it was handled, if any;
 * returns what the last one found, or -1 when none was pending or an
 * NMI is being handled (they do not nest). */
int model_deliver_nmi(void);
/* Raise an NMI on the current CPU from outside the PMU (with port 0x61
 * bits @reason), to be delivered by model_deliver_nmi(). */
void model_raise_nmi(uint8_t reason);
/* Deliver a pending NMI at the next TSC read (an instruction boundary
 * inside a loop the backend spins in). */
extern bool model_deliver_on_access;
/* An NMI handler runs on the current CPU. */
bool model_in_nmi(void);
/* ... for an NMI that holds our counter's PMI. */
bool model_in_our_nmi(void);
struct trap_frame;
extern struct trap_frame *model_nmi_tf;

/* ---- every interleaving (tests/arch/check_x86pmu_race.c) ---- */

/* Called before and after every MSR access, TSC read and APIC write, and
 * (through race_point()) at every store the NMI path reads: where the
 * sweep makes the counter overflow or an NMI land.  NULL: nothing. */
extern void (*model_point_hook)(void);
/* After each NMI the model delivered: whether our counter's PMI was in
 * it, the port 0x61 bits that came with it, and what x86_pmu_nmi()
 * found. */
extern void (*model_delivered_hook)(bool pmi, uint8_t reason, int found);
/* The sampling counter (Intel fixed counter 1, AMD counter 0) wraps now
 * if it is enabled: set to its last value, then one cycle passes. */
void model_force_overflow(void);
/* The sampling counter would count a cycle now. */
bool model_counter_enabled(void);
/* PMIs the sampling counter raised since model_init(). */
extern unsigned model_pmis;
/* Set: a PMI sets the status and masks the LVT entry as always, but its
 * NMI is in flight -- not pending until model_land_pmi() (Linux's
 * back-to-back case: another NMI may be taken meanwhile). */
extern bool model_defer_pmi;
void model_land_pmi(void);
/* The sampling counter shows an overflow (Intel and Zen 4: its global
 * status bit; Zen 2: armed to interrupt and past zero). */
bool model_our_status(void);
/* model_our_status() as the last NMI delivered was taken. */
extern bool model_entry_status;

/* The modelled state, for the tests to read and set. */
uint64_t model_msr(uint32_t msr);
void model_set_msr(uint32_t msr, uint64_t v);
uint32_t model_lvtpc(void);		/* xAPIC 0x340 or x2APIC 0x834 */
bool model_nmi_pending(void);
extern uint64_t model_tsc;
extern uint64_t model_tsc_hz;

/* Everything a real CPU would have faulted on or a rule the model
 * enforces: a plain access to an MSR the part lacks (#GP), a write of
 * reserved bits, an xAPIC MMIO write in x2APIC mode, a touch of AMD's
 * legacy counters.  The tests assert it stays empty. */
extern unsigned model_violations;
extern char model_violation[256];
/* MSRs accessed (plain or _safe), in order, for "never touched" checks. */
bool model_touched(uint32_t lo, uint32_t hi);

#endif
