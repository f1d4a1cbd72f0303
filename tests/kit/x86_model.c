/* SPDX-License-Identifier: BSD-2-Clause */
/* The modelled CPU (x86_model.h): an implementation of pmu_hw.h written
 * from the manuals, not from the backend.
 *
 * Intel SDM Vol. 3B (Order 253669):
 *  - 20.2.1 / Table 20-2 (CPUID leaf 0AH): EAX[7:0] version, EAX[15:8]
 *    general counters; EDX[4:0] fixed counters, EDX[12:5] their width;
 *    from version 5, ECX bit i also says fixed counter i exists
 *    ("FxCtr[i]_is_supported = ECX[i] || (EDX[4:0] > i)").
 *  - 20.2.2 (version 2): IA32_FIXED_CTR_CTRL (38DH) has 4 bits per fixed
 *    counter: bit 0 OS, bit 1 USR, bit 3 PMI; IA32_PERF_GLOBAL_CTRL (38FH)
 *    bit 32+i enables fixed counter i; a fixed counter counts only when
 *    both say so.  IA32_PERF_GLOBAL_STATUS (38EH, read-only) bit 32+i is
 *    set when fixed counter i overflows; IA32_PERF_GLOBAL_OVF_CTRL (390H)
 *    clears status bits written as 1 (named IA32_PERF_GLOBAL_STATUS_RESET
 *    from version 4, 20.2.4.2).
 *  - 20.2.1.1 / 20.2.2: fixed counters are width bits wide; writing bits
 *    above the width raises #GP (the model's rule; the SDM allows only the
 *    implemented width to be written).
 *  - 18.4.7 / 20.2.4.1: IA32_DEBUGCTL (1D9H) bit 12 FREEZE_PERFMON_ON_PMI:
 *    on a PMI the processor clears IA32_PERF_GLOBAL_CTRL (the counters
 *    freeze until software re-enables them).
 *  - Vol. 3A 11.5.1 (LVT): the performance-counter entry (xAPIC 340H,
 *    x2APIC MSR 834H, 11.12.1.2): bits 10:8 delivery mode (100b NMI), bit
 *    16 mask; "when a performance-monitoring counters interrupt is
 *    generated, the local APIC sets the mask bit".  11.12.1.2: in x2APIC
 *    mode (IA32_APIC_BASE bit 10) the MMIO page is not available; the MSRs
 *    raise #GP in xAPIC mode.
 *  - 8.4 of the AT reference (port 61H, system control port B): bit 7
 *    SERR# (PCI system error), bit 6 IOCHK (I/O channel check).
 *
 * AMD APM Vol. 2 (Pub. 24593):
 *  - 13.2.1: PerfEvtSeln / PerfCtrn as pairs at C001_0200h + 2n /
 *    C001_0201h + 2n when CPUID Fn8000_0001 ECX[PerfCtrExtCore] (bit 23);
 *    EventSelect bits 7:0, OS bit 17, INT bit 20, EN bit 22.  Counters
 *    are 48 bits; a write sets all 48; INT raises the APIC's LVT
 *    performance-counter interrupt when the counter overflows (wraps).
 *    The legacy C001_0000h..0007h pairs alias counters 0-3 (never used
 *    by the backend: no CPUID bit promises them).
 *  - 13.2.2 (PerfMonV2, CPUID Fn8000_0022 EAX bit 0):
 *    PerfCntrGlobalStatus C000_0300h (read-only; bit n: counter n
 *    overflowed), PerfCntrGlobalCtl C000_0301h (bit n enables counter n,
 *    AND-ed with PerfEvtSeln.EN), PerfCntrGlobalStatusClr C000_0302h
 *    (write 1 to clear).
 *  - Appendix / PPR event list: PMCx076 cycles not halted, PMCx0C0
 *    retired instructions.  The model retires one instruction every two
 *    cycles (Intel fixed counter 0 likewise). */
#include "x86_model.h"

#include <stdio.h>
#include <string.h>

#include "hal/cpu.h"
#include "lib/errno.h"
#include "../arch/x86_64/pmu_hw.h"

#define NMSRS 40

struct model_cpu {
	uint32_t msr_id[NMSRS];
	uint64_t msr_val[NMSRS];
	unsigned nmsrs;
	uint32_t xapic_lvtpc;
	bool nmi_pending, in_nmi;
	bool pmi;		/* a PMI is in the pending NMI */
	bool pmi_parked;	/* raised, its NMI not yet pending */
	uint8_t reason;		/* port 0x61 bits of the pending NMI */
	uint8_t reason_now;	/* ... of the NMI being handled */
	bool pmi_now;		/* our PMI is in the NMI being handled */
};

static struct model_cpu cpus[MODEL_CPUS];
static unsigned cur, ncpu;
static enum model_part part;
static uint32_t touched[4096];
static unsigned ntouched;

uint64_t model_tsc;
uint64_t model_tsc_hz = 2000000000ull;
unsigned model_pmis;
bool model_defer_pmi;
bool model_entry_status;
bool model_deliver_on_access;
void (*model_point_hook)(void);
void (*model_delivered_hook)(bool pmi, uint8_t reason, int found);
struct trap_frame *model_nmi_tf;
unsigned model_violations;
char model_violation[256];

static void violation(const char *what, uint32_t msr)
{
	model_violations++;
	snprintf(model_violation, sizeof(model_violation), "%s 0x%x", what, msr);
}

static bool is_intel(void)
{
	return part <= MODEL_INTEL_V5 || part == MODEL_HV_IGNORES ||
	       part == MODEL_MSR_FAULTS || part == MODEL_NO_PMU;
}

unsigned model_fixed_width = 48;

static unsigned fixed_width(void)
{
	return model_fixed_width;
}

/* Which MSRs the modelled part implements (a plain access to any other
 * is a #GP). */
static bool model_has(uint32_t m)
{
	if (m == 0x1b || m == 0x1d9)
		return true;
	if (m == 0x834)
		return (model_msr(0x1b) >> 10) & 1;
	if (part == MODEL_MSR_FAULTS || part == MODEL_NO_PMU)
		return false;
	if (is_intel())
		return m == 0x309 || m == 0x30a || m == 0x30b ||
		       (m >= 0x38d && m <= 0x390);
	if (m >= 0xc0010200 && m <= 0xc001020b)
		return true;
	if (m >= 0xc0010000 && m <= 0xc0010007)
		return true;	/* exist, but the backend must not touch them */
	return part == MODEL_AMD_ZEN4 && m >= 0xc0000300 && m <= 0xc0000302;
}

static uint64_t *slot(struct model_cpu *c, uint32_t m)
{
	for (unsigned i = 0; i < c->nmsrs; i++)
		if (c->msr_id[i] == m)
			return &c->msr_val[i];
	c->msr_id[c->nmsrs] = m;
	c->msr_val[c->nmsrs] = 0;
	return &c->msr_val[c->nmsrs++];
}

uint64_t model_msr(uint32_t m)
{
	return *slot(&cpus[cur], m);
}

void model_set_msr(uint32_t m, uint64_t v)
{
	*slot(&cpus[cur], m) = v;
}

bool model_touched(uint32_t lo, uint32_t hi)
{
	for (unsigned i = 0; i < ntouched; i++)
		if (touched[i] >= lo && touched[i] <= hi)
			return true;
	return false;
}

void model_init(enum model_part p, unsigned n)
{
	memset(cpus, 0, sizeof(cpus));
	part = p;
	ncpu = n;
	cur = 0;
	ntouched = 0;
	model_violations = 0;
	model_violation[0] = '\0';
	model_tsc = 1000000;
	model_deliver_on_access = false;
	model_defer_pmi = false;
	model_fixed_width = 48;
	model_pmis = 0;
	model_entry_status = false;
	model_point_hook = NULL;
	model_delivered_hook = NULL;
	for (unsigned i = 0; i < n; i++) {
		cur = i;
		cpus[i].xapic_lvtpc = 1u << 16;		/* masked at reset */
		model_set_msr(0x1b, 0xfee00000ull | (1ull << 11));
		if (p == MODEL_INTEL_V4_FREEZE)
			model_set_msr(0x1d9, 1ull << 12);
	}
	cur = 0;
}

void model_set_cpu(unsigned cpu)
{
	cur = cpu;
}

unsigned model_cpu(void)
{
	return cur;
}

unsigned model_ncpus(void)
{
	return ncpu;
}

void model_x2apic(unsigned cpu)
{
	unsigned was = cur;

	cur = cpu;
	model_set_msr(0x1b, model_msr(0x1b) | (1ull << 10));
	model_set_msr(0x834, 1u << 16);
	cur = was;
}

void model_firmware_uses_counter(unsigned cpu)
{
	unsigned was = cur;

	cur = cpu;
	if (is_intel())
		model_set_msr(0x38d, model_msr(0x38d) | 0x3ull << 4);
	else
		model_set_msr(0xc0010200, 0x76 | 1ull << 17 | 1ull << 22);
	cur = was;
}

uint32_t model_lvtpc(void)
{
	return (model_msr(0x1b) >> 10) & 1 ? (uint32_t)model_msr(0x834)
					    : cpus[cur].xapic_lvtpc;
}

bool model_nmi_pending(void)
{
	return cpus[cur].nmi_pending;
}

/* ---- counting ---- */

/* A PMI through the LVT entry: only when unmasked and delivering NMI;
 * the APIC masks the entry as it delivers. */
static void pmi(void)
{
	bool x2 = (model_msr(0x1b) >> 10) & 1;
	uint32_t lvt = model_lvtpc();

	if (part == MODEL_INTEL_V4_FREEZE && (model_msr(0x1d9) >> 12 & 1))
		model_set_msr(0x38f, 0);	/* frozen */
	if (lvt & (1u << 16) || ((lvt >> 8) & 7) != 4)
		return;
	if (x2)
		model_set_msr(0x834, lvt | 1u << 16);
	else
		cpus[cur].xapic_lvtpc = lvt | 1u << 16;
	model_pmis++;
	if (model_defer_pmi) {
		cpus[cur].pmi_parked = true;
		return;
	}
	cpus[cur].nmi_pending = true;
	cpus[cur].pmi = true;
}

void model_land_pmi(void)
{
	if (!cpus[cur].pmi_parked)
		return;
	cpus[cur].pmi_parked = false;
	cpus[cur].nmi_pending = true;
	cpus[cur].pmi = true;
}

bool model_our_status(void)
{
	if (is_intel())
		return model_msr(0x38e) >> 33 & 1;
	if (part == MODEL_AMD_ZEN4)
		return model_msr(0xc0000300) & 1;
	/* Zen 2 has no status: an overflow is a counter armed to interrupt
	 * that has passed zero (its top bit clear). */
	return (model_msr(0xc0010200) >> 20 & 1) && !(model_msr(0xc0010201) >> 47 & 1);
}

/* Add @n to counter MSR @ctr of @bits; true when it wrapped. */
static bool advance(uint32_t ctr, uint64_t n, unsigned bits)
{
	uint64_t mask = (1ull << bits) - 1, v = model_msr(ctr);

	model_set_msr(ctr, (v + n) & mask);
	return v + n > mask;
}

void model_run(uint64_t cycles)
{
	if (part == MODEL_HV_IGNORES || part == MODEL_MSR_FAULTS || part == MODEL_NO_PMU)
		return;
	if (is_intel()) {
		uint64_t ctrl = model_msr(0x38d), g = model_msr(0x38f);

		for (unsigned i = 0; i < 2; i++) {
			uint64_t field = ctrl >> (4 * i) & 0xf;

			if (!(field & 3) || !(g >> (32 + i) & 1))
				continue;
			if (advance(0x309 + i, i ? cycles : cycles / 2, fixed_width())) {
				model_set_msr(0x38e, model_msr(0x38e) | 1ull << (32 + i));
				if (field & 8)
					pmi();
			}
		}
		return;
	}
	for (unsigned i = 0; i < 6; i++) {
		uint64_t ctl = model_msr(0xc0010200 + 2 * i);
		bool on = ctl >> 22 & 1;
		uint64_t ev = ctl & 0xff;

		if (part == MODEL_AMD_ZEN4)
			on = on && (model_msr(0xc0000301) >> i & 1);
		if (!on || (ev != 0x76 && ev != 0xc0))
			continue;
		if (advance(0xc0010201 + 2 * i, ev == 0x76 ? cycles : cycles / 2, 48)) {
			if (part == MODEL_AMD_ZEN4)
				model_set_msr(0xc0000300, model_msr(0xc0000300) | 1ull << i);
			if (ctl >> 20 & 1)
				pmi();
		}
	}
}

void model_raise_nmi(uint8_t reason)
{
	cpus[cur].reason |= reason;
	cpus[cur].nmi_pending = true;
}

/* One NMI: whatever is pending collapses into it (x86 NMIs are edge
 * events); one raised while it is handled stays pending and is taken
 * when the handler returns (SDM 3A 6.7.1: NMIs are blocked until IRET). */
int model_deliver_nmi(void)
{
	struct model_cpu *c = &cpus[cur];
	int found = -1;

	if (c->in_nmi)
		return -1;
	while (c->nmi_pending) {
		bool pmi = c->pmi;
		uint8_t reason = c->reason;

		c->nmi_pending = false;
		c->pmi = false;
		c->reason = 0;
		c->reason_now = reason;
		model_entry_status = model_our_status();
		c->pmi_now = pmi;
		c->in_nmi = true;
		found = (int)x86_pmu_nmi(model_nmi_tf);
		c->in_nmi = false;
		c->reason_now = 0;
		if (model_delivered_hook)
			model_delivered_hook(pmi, reason, found);
	}
	return found;
}

bool model_in_nmi(void)
{
	return cpus[cur].in_nmi;
}

bool model_in_our_nmi(void)
{
	return cpus[cur].in_nmi && cpus[cur].pmi_now;
}

bool model_counter_enabled(void)
{
	if (is_intel())
		return (model_msr(0x38d) >> 4 & 3) && (model_msr(0x38f) >> 33 & 1);
	if (part == MODEL_AMD_ZEN4 && !(model_msr(0xc0000301) & 1))
		return false;
	return model_msr(0xc0010200) >> 22 & 1;
}

void model_force_overflow(void)
{
	uint64_t mask48 = (1ull << 48) - 1;

	if (!model_counter_enabled())
		return;
	if (is_intel()) {
		model_set_msr(0x30a, mask48 >> (48 - fixed_width()));
	} else {
		model_set_msr(0xc0010201, mask48);
	}
	model_run(1);
}


/* Every access takes time: enabled counters move with it. */
static void tick(void)
{
	model_tsc += 40;
	model_run(40);
}

/* Before and after each access: where a test may make the counter
 * overflow or an NMI land. */
static void point(void)
{
	if (model_point_hook)
		model_point_hook();
}

/* ---- pmu_hw.h ---- */



static void note(uint32_t m)
{
	if (ntouched < sizeof(touched) / sizeof(touched[0]))
		touched[ntouched++] = m;
	if (m >= 0xc0010000 && m <= 0xc0010007)
		violation("legacy AMD counter MSR touched:", m);
}

void x86_hw_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	const char *vendor = is_intel() ? "GenuineIntel" : "AuthenticAMD";

	(void)sub;
	memset(r, 0, 4 * sizeof(r[0]));
	if (leaf == 0) {
		r[0] = is_intel() ? 0x1f : 0x10;
		memcpy(&r[1], vendor, 4);
		memcpy(&r[3], vendor + 4, 4);
		memcpy(&r[2], vendor + 8, 4);
	} else if (leaf == 0xa && ((is_intel() && part != MODEL_NO_PMU) ||
				   part == MODEL_AMD_LEAF_A)) {
		unsigned v = part == MODEL_INTEL_V2 ? 2 : part == MODEL_INTEL_V5 ? 5 : 4;

		r[0] = v | 4u << 8 | 48u << 16;
		if (part == MODEL_INTEL_V5) {
			r[2] = 0x7;			/* fixed 0-2 by ECX */
			r[3] = 0 | fixed_width() << 5;	/* EDX[4:0] = 0 */
		} else {
			r[3] = 3 | fixed_width() << 5;
		}
	} else if (leaf == 0x80000000) {
		r[0] = is_intel() ? 0x80000008 : 0x80000022 + (part == MODEL_AMD_ZEN4 ? 6 : 0);
		if (part == MODEL_AMD_ZEN2 || part == MODEL_AMD_LEAF_A)
			r[0] = 0x80000020;
	} else if (leaf == 0x80000001 && !is_intel()) {
		r[2] = 1u << 23;			/* PerfCtrExtCore */
	} else if (leaf == 0x80000022 && part == MODEL_AMD_ZEN4) {
		r[0] = 1;				/* PerfMonV2 */
		r[1] = 6;
	}
}

static int rd_now(uint32_t m, uint64_t *v)
{
	tick();
	note(m);
	if (!model_has(m))
		return -EIO;
	*v = part == MODEL_HV_IGNORES && m != 0x1b && m != 0x1d9 ? 0 : model_msr(m);
	return 0;
}

static int wr_now(uint32_t m, uint64_t v)
{
	tick();
	note(m);
	if (!model_has(m))
		return -EIO;
	if (part == MODEL_HV_IGNORES && m != 0x1b && m != 0x1d9 && m != 0x834)
		return 0;
	if ((m == 0x309 || m == 0x30a || m == 0x30b) && v >> fixed_width()) {
		violation("fixed counter written above its width:", m);
		return -EIO;
	}
	if (m >= 0xc0010201 && m <= 0xc001020b && (m & 1) && v >> 48) {
		violation("AMD counter written above 48 bits:", m);
		return -EIO;
	}
	if (m == 0x38e || m == 0xc0000300) {
		violation("write to read-only global status:", m);
		return -EIO;
	}
	if (m == 0x390) {			/* OVF_CTRL: write 1 to clear */
		model_set_msr(0x38e, model_msr(0x38e) & ~v);
		return 0;
	}
	if (m == 0xc0000302) {			/* STATUS_CLR */
		model_set_msr(0xc0000300, model_msr(0xc0000300) & ~v);
		return 0;
	}
	model_set_msr(m, v);
	return 0;
}

static int rd(uint32_t m, uint64_t *v)
{
	int r;

	point();
	r = rd_now(m, v);
	point();
	return r;
}

static int wr(uint32_t m, uint64_t v)
{
	int r;

	point();
	r = wr_now(m, v);
	point();
	return r;
}

uint64_t x86_hw_rdmsr(uint32_t msr)
{
	uint64_t v = 0;

	if (rd(msr, &v) < 0)
		violation("#GP: plain rdmsr of a missing MSR", msr);
	return v;
}

void x86_hw_wrmsr(uint32_t msr, uint64_t v)
{
	if (wr(msr, v) < 0 && !model_violation[0])
		violation("#GP: plain wrmsr of a missing MSR", msr);
}

int x86_hw_rdmsr_safe(uint32_t msr, uint64_t *v)
{
	*v = 0;
	return rd(msr, v);
}

int x86_hw_wrmsr_safe(uint32_t msr, uint64_t v)
{
	return wr(msr, v);
}

uint8_t x86_hw_inb(uint16_t port)
{
	if (port != 0x61)
		violation("port read other than 0x61:", port);
	return cpus[cur].reason_now;
}

uint64_t x86_hw_tsc(void)
{
	uint64_t t;

	point();
	tick();
	if (model_deliver_on_access)
		model_deliver_nmi();
	t = model_tsc;
	point();
	return t;
}

uint64_t x86_hw_tsc_hz(void)
{
	return model_tsc_hz;
}

void x86_hw_xapic_write(unsigned reg, uint32_t v)
{
	point();
	tick();
	if ((model_msr(0x1b) >> 10) & 1)
		violation("xAPIC MMIO write in x2APIC mode:", reg);
	else if (reg == 0x340)
		cpus[cur].xapic_lvtpc = v;
	point();
}
