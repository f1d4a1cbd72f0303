/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/pmu.h for arm64: PMUv3's cycle counter (PMCCNTR_EL0), 64 bits
 * wide (PMCR_EL0.LC), armed at 2^64 - period, overflowing into the PMU's
 * PPI (the device tree's arm,armv8-pmuv3 node; INTID 23 on QEMU's virt).
 * That interrupt sits at the pseudo-NMI priority (gic.c's table): on
 * GICv3, where "interrupts off" is a priority mask (irqflags.h), it
 * samples code running with interrupts off (`pmu/nmi`); on GICv2, where
 * DAIF.I masks, it is a plain IRQ and such code is invisible to it
 * (`pmu/irq`), as the report's source says.
 *
 * The counter is driven through a handful of small functions, one per
 * register touch (enable, disable, write, overflow test, clear), in the
 * manner of Linux's drivers/perf/arm_pmuv3.c.  Each CPU probes, arms and
 * disarms only its own counter: the registers are per CPU. */
#include "hal/pmu.h"

#include "hal/cpu.h"
#include "hal/entry.h"
#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "a64.h"
#include "irqflags.h"

#define PMCR_E			(1u << 0)	/* counters enabled */
#define PMCR_C			(1u << 2)	/* reset the cycle counter */
#define PMCR_D			(1u << 3)	/* count every 64th cycle */
#define PMCR_LC			(1u << 6)	/* cycle counter overflows at 64 bits */
#define PMCR_LP			(1u << 7)	/* event counters 64 bits (PMUv3p5) */
#define PMCR_N(v)		(((v) >> 11) & 0x1f)
#define PMU_CYCLE		(1u << 31)	/* the cycle counter's bit everywhere */
#define PMU_EVENT0		(1u << 0)	/* event counter 0 */
#define A64_PMU_EVENT_COUNTERS	31	/* PMCR_EL0.N at most */
#define PMU_SLOT_CYCLE		31	/* the cycle counter's index */
/* PMCCFILTR_EL0 / PMEVTYPER<n>_EL0: U (bit 30) set keeps EL0 out; P,
 * NSK, NSH clear count EL1 and not EL2.  Its reset value is unknown, so
 * it is written before the first count. */
#define PMU_FILTER_EL1		(1u << 30)
#define EVENT_INST_RETIRED	0x08
#define PMCEID0_INST_RETIRED	(1u << EVENT_INST_RETIRED)
/* ID_AA64DFR0_EL1.PMUVer of PMUv3p5, the first with PMCR_EL0.LP. */
#define PMUVER_V3P5		6

#define PROBE_SPIN_US		10	/* a live counter moves at once */
#define RATE_WINDOW_US		2000	/* cycles against CNTVCT_EL0 */
#define RATE_TRIES		5	/* windows at most; the tightest counts */
#define RATE_SPREAD_US		20	/* brackets this tight end the tries */
#define DISARM_WAIT_US		50	/* the PPI's pending bit to drop */

/* A CPU's verdict, in lscpu's terms (hal/pmu.h). */
enum {
	V_UNKNOWN = HAL_PMU_NOT_PROBED,
	V_NONE = HAL_PMU_NOT_CLAIMED,
	V_CLAIMED = HAL_PMU_NOT_PROVEN,
	V_COUNTS = HAL_PMU_PROVEN,
};

/* One CPU's counter: only that CPU writes it. */
struct a64_pmu_cpu {
	int verdict;
	bool used;			/* armed at least once */
	bool running;			/* armed, overflow interrupt on */
	bool disarming;			/* disarm waits for the PPI to drop */
	bool counting;			/* `stat` holds the counters */
	bool count_long;		/* event counters 64 bits (PMCR.LP) */
	uint32_t count_mask;		/* event counters `stat` opened */
	unsigned count_n;		/* events of the last open */
	uint8_t count_slot[HAL_PMU_COUNT_MAX];	/* each one's counter, 31: cycles */
	uint64_t wraps[A64_PMU_EVENT_COUNTERS];	/* 32-bit counters' overflows */
	uint64_t period;
	uint64_t sample_events;		/* what the last claimed overflow stands for */
	uint64_t claimed, claimed_run;	/* overflows kernel_nmi() claimed */
	uint64_t no_overflow;		/* PMU interrupts armed, no overflow */
	uint64_t unarmed;		/* PMU interrupts with nothing armed */
	uint64_t disarm_timeouts;	/* the PPI stayed pending */
	uint64_t cost_ticks, cost_n;	/* the handler's time, CNTVCT ticks */
	char why[64];
} __attribute__((aligned(HAL_CACHELINE)));

static struct a64_pmu_cpu a64_pmu_cpus[HAL_MAX_CPUS];
static uint64_t a64_pmu_rate;		/* cycles/s, the first probe's */

/* Add @n to a count the PMU interrupt keeps and another context (lscpu,
 * `stat`'s read, the tick) reads or resets: relaxed atomics, never a
 * plain access the compiler may split or cache. */
static void pmu_count_add(uint64_t *count, uint64_t n)
{
	__atomic_store_n(count, __atomic_load_n(count, __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
}

static uint64_t pmu_count_get(const uint64_t *count)
{
	return __atomic_load_n(count, __ATOMIC_RELAXED);
}

/* A flag of struct a64_pmu_cpu that the PMU interrupt (a pseudo-NMI on
 * GICv3, which the tick's "interrupts off" passes) or lscpu on another
 * CPU reads: relaxed atomics, as the counts above. */
static bool pmu_flag(const bool *flag)
{
	return __atomic_load_n(flag, __ATOMIC_RELAXED);
}

static void pmu_flag_set(bool *flag, bool v)
{
	__atomic_store_n(flag, v, __ATOMIC_RELAXED);
}

static struct a64_pmu_cpu *pmu_self(void)
{
	return &a64_pmu_cpus[hal_cpu_id()];
}

static uint64_t pmu_ticks(void)
{
	return hal_cycles();		/* CNTVCT_EL0, with its isb */
}

static uint64_t us_to_ticks(uint64_t us)
{
	return hal_cycles_per_sec() * us / 1000000;
}

/* CNTVCT ticks in nanoseconds, for the profiler's throttle. */
static uint64_t ticks_to_ns(uint64_t ticks)
{
	uint64_t hz = hal_cycles_per_sec();

	return hz >= 1000 ? ticks * 1000000 / (hz / 1000) : 0;
}

/* ---- the registers, one touch each ---- */

/* ID_AA64DFR0_EL1.PMUVer: 0 is none, 0xF an IMPLEMENTATION DEFINED PMU
 * that is not PMUv3.  With either, every PMU register is undefined (as
 * with `-cpu max,pmu=off`): nothing below is touched. */
static unsigned pmu_version(void)
{
	return (A64_SYSREG_READ(id_aa64dfr0_el1) >> 8) & 0xf;
}

static bool pmu_claims(void)
{
	unsigned v = pmu_version();

	return v && v != 0xf;
}

/* Whether this CPU's event counters can be 64 bits wide. */
static bool pmu_has_long_events(void)
{
	unsigned v = pmu_version();

	return v >= PMUVER_V3P5 && v != 0xf;
}

static uint64_t pmu_cycle_read(void)
{
	return A64_SYSREG_READ(pmccntr_el0);
}

static void pmu_cycle_write(uint64_t v)
{
	A64_SYSREG_WRITE(pmccntr_el0, v);
}

/* As Linux's armv8pmu_enable_counter(): the isb makes the counter's
 * configuration (its type, count, PMCR) visible before it starts. */
static void pmu_enable(uint32_t bits)
{
	isb();
	A64_SYSREG_WRITE(pmcntenset_el0, bits);
}

/* As Linux's armv8pmu_disable_counter(): the isb makes the stop take
 * effect before anything after it reads the counter as stopped or
 * reconfigures it (a count written to a counter still running would
 * move on at once). */
static void pmu_disable(uint32_t bits)
{
	A64_SYSREG_WRITE(pmcntenclr_el0, bits);
	isb();
}

static void pmu_irq_enable(uint32_t bits)
{
	A64_SYSREG_WRITE(pmintenset_el1, bits);
}

static void pmu_irq_disable(uint32_t bits)
{
	A64_SYSREG_WRITE(pmintenclr_el1, bits);
}

static bool pmu_overflowed(void)
{
	return A64_SYSREG_READ(pmovsset_el0) & PMU_CYCLE;
}

static bool pmu_irq_enabled(void)
{
	return A64_SYSREG_READ(pmintenset_el1) & PMU_CYCLE;
}

static void pmu_overflow_clear(uint32_t bits)
{
	A64_SYSREG_WRITE(pmovsclr_el0, bits);
}

/* The whole PMU to a known state, counters stopped, no interrupt:
 * PMCR.E on (QEMU and the architecture gate the overflow line on it),
 * LC on, D off, the filters written. */
static void pmu_reset(void)
{
	uint64_t pmcr = A64_SYSREG_READ(pmcr_el0);

	A64_SYSREG_WRITE(pmuserenr_el0, 0);
	pmu_irq_disable(~0u);
	pmu_disable(~0u);
	pmu_overflow_clear(~0u);
	A64_SYSREG_WRITE(pmccfiltr_el0, PMU_FILTER_EL1);
	A64_SYSREG_WRITE(pmcr_el0, (pmcr & ~(uint64_t)PMCR_D) | PMCR_E | PMCR_LC | PMCR_C);
	isb();
}

/* ---- the probe: per CPU, cached ---- */

static bool pmu_moves(void)
{
	uint64_t first = pmu_cycle_read(), start = pmu_ticks();

	do {
		if (pmu_cycle_read() != first)
			return true;
	} while (pmu_ticks() - start < us_to_ticks(PROBE_SPIN_US));
	return false;
}

/* One window of the rate: the cycle counter read at its start and at
 * its end, RATE_WINDOW_US of the generic counter apart, each read
 * bracketed by two reads of CNTVCT_EL0.  Under TCG a read of either
 * register can wait (for QEMU's big lock, for the host to run the
 * vCPU), and one late read of the cycles at the end made QEMU's 1 GHz
 * read as 4.15 GHz (1 boot in 20 with split on 4 CPUs, host load 19):
 * every weight, in ns, was then a quarter of the time it stood for.
 * The cycles are taken against the brackets' midpoints, and *@spread is
 * the brackets' width, in ticks: what the window may be off by. */
static uint64_t pmu_rate_try(uint64_t *spread)
{
	uint64_t a0, b0, a1, b1, c0, c1;

	a0 = pmu_ticks();
	c0 = pmu_cycle_read();
	b0 = pmu_ticks();
	do
		a1 = pmu_ticks();
	while (a1 - b0 < us_to_ticks(RATE_WINDOW_US));
	c1 = pmu_cycle_read();
	b1 = pmu_ticks();
	*spread = (b0 - a0) + (b1 - a1);
	return (c1 - c0) * hal_cycles_per_sec() / (((a1 - a0) + (b1 - b0)) / 2);
}

/* Cycles per second, counted against the generic counter: the
 * profiler's period and the samples' weights in ns come from it.  Up to
 * RATE_TRIES windows, until one's reads were bracketed within
 * RATE_SPREAD_US (0.5% of a window at most, against its midpoints); the
 * tightest one counts.  The cycle counter is only read, and enabled for
 * the while if it was not, so that a `stat` counting on this CPU
 * meanwhile keeps its count -- interrupts off throughout, or a tick
 * between two windows could close that count under us.  Normally one
 * window, 2 ms. */
static uint64_t pmu_measure_rate(void)
{
	bool was_on = A64_SYSREG_READ(pmcntenset_el0) & PMU_CYCLE;
	unsigned long flags = hal_irq_save();
	uint64_t rate = 0, best = UINT64_MAX;

	if (!was_on) {
		pmu_enable(PMU_CYCLE);
		isb();
	}
	for (unsigned i = 0; i < RATE_TRIES && best > us_to_ticks(RATE_SPREAD_US); i++) {
		uint64_t spread, r = pmu_rate_try(&spread);

		if (spread < best) {
			best = spread;
			rate = r;
		}
	}
	if (!was_on)
		pmu_disable(PMU_CYCLE);
	hal_irq_restore(flags);
	return rate;
}

/* The calling CPU's counter, once: reset it, run it without its
 * interrupt, see it move; enable its PPI at the pseudo-NMI priority in
 * this CPU's redistributor (a PPI is banked per CPU).  Interrupts off. */
static void pmu_probe_self(struct a64_pmu_cpu *pc)
{
	unsigned long flags;

	if (pc->verdict != V_UNKNOWN)
		return;
	if (!pmu_claims()) {
		pc->verdict = V_NONE;
		kstrlcpy(pc->why, "no pmuv3", sizeof(pc->why));
		return;
	}
	if (!a64_machine.pmu_intid) {
		pc->verdict = V_CLAIMED;
		kstrlcpy(pc->why, "no arm,armv8-pmuv3 interrupt in the device tree",
			 sizeof(pc->why));
		return;
	}
	flags = hal_irq_save();
	pmu_reset();
	pmu_cycle_write(0);
	pmu_enable(PMU_CYCLE);
	isb();
	if (!pmu_moves()) {
		pc->verdict = V_CLAIMED;
		ksnprintf(pc->why, sizeof(pc->why), "cycle counter did not move in %u us",
			  PROBE_SPIN_US);
	} else {
		pc->verdict = V_COUNTS;
	}
	pmu_disable(PMU_CYCLE);
	pmu_cycle_write(0);
	pmu_overflow_clear(~0u);
	isb();
	if (pc->verdict == V_COUNTS)
		a64_gic_enable_ppi(a64_machine.pmu_intid, a64_machine.pmu_edge);
	hal_irq_restore(flags);
}

void hal_pmu_probe(struct hal_pmu_info *info)
{
	struct a64_pmu_cpu *pc = pmu_self();
	uint64_t midr = A64_SYSREG_READ(midr_el1);

	pmu_probe_self(pc);
	/* Once, on the first CPU that proves its counter and is asked: the
	 * profiler asks before any CPU arms. */
	if (pc->verdict == V_COUNTS && !a64_pmu_rate)
		a64_pmu_rate = pmu_measure_rate();
	kmemset(info, 0, sizeof(*info));
	if (pmu_claims())
		ksnprintf(info->claim, sizeof(info->claim),
			  "midr 0x%08lx, pmuv3 (pmuver 0x%x)", (unsigned long)midr,
			  pmu_version());
	else
		ksnprintf(info->claim, sizeof(info->claim),
			  "midr 0x%08lx, no pmuv3", (unsigned long)midr);
	info->claimed = pc->verdict >= V_CLAIMED;
	info->counts = pc->verdict == V_COUNTS && a64_pmu_rate;
	info->events_per_sec = a64_pmu_rate;
	if (info->counts)
		kstrlcpy(info->source, a64_irq_by_pmr ? "pmu/nmi arm64 pmccntr"
						      : "pmu/irq arm64 pmccntr",
			 sizeof(info->source));
	else if (pc->verdict == V_CLAIMED)
		kstrlcpy(info->why_not, pc->why, sizeof(info->why_not));
}

/* ---- sampling ---- */

int hal_pmu_arm(uint64_t period)
{
	struct a64_pmu_cpu *pc = pmu_self();

	pmu_probe_self(pc);
	if (pc->verdict != V_COUNTS || !period)
		return -ENODEV;
	/* `stat` holds the cycle counter: arming would reprogram it under
	 * the count, and its close would stop ours. */
	if (__atomic_load_n(&pc->counting, __ATOMIC_RELAXED))
		return -EBUSY;
	__atomic_store_n(&pc->period, period, __ATOMIC_RELAXED);
	__atomic_store_n(&pc->claimed_run, 0, __ATOMIC_RELAXED);
	pmu_flag_set(&pc->used, true);
	pmu_disable(PMU_CYCLE);
	pmu_overflow_clear(PMU_CYCLE);
	pmu_cycle_write(-period);
	pmu_irq_enable(PMU_CYCLE);
	/* Running before the counter starts: its first overflow is ours. */
	__atomic_store_n(&pc->running, true, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pmu_enable(PMU_CYCLE);
	isb();
	return 0;
}

/* Stop the counter, clear its overflow, then wait (bounded) until the
 * GIC no longer holds the level-sensitive PPI pending: the line drops
 * when the overflow clears, but the GIC may still show it pending for a
 * moment, and once the profiler clears `armed` it would arrive as a PMU
 * interrupt nothing is armed for.  On GICv3 the wait runs with DAIF.I
 * clear and the PMR at "off", so an interrupt already on its way is
 * taken here, while disarming: counted as one without an overflow. */
int hal_pmu_disarm(void)
{
	struct a64_pmu_cpu *pc = pmu_self();
	uint64_t start;

	if (!pmu_flag(&pc->running))
		return pc->verdict == V_COUNTS ? 0 : -ENODEV;
	__atomic_store_n(&pc->disarming, true, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&pc->running, false, __ATOMIC_RELAXED);
	pmu_disable(PMU_CYCLE);
	/* An overflow taken up to here is still claimed (and late); the
	 * clear, then the interrupt off, drop the line. */
	pmu_overflow_clear(PMU_CYCLE);
	pmu_irq_disable(PMU_CYCLE);
	isb();
	start = pmu_ticks();
	while (a64_gic_ppi_pending(a64_machine.pmu_intid))
		if (pmu_ticks() - start > us_to_ticks(DISARM_WAIT_US)) {
			pmu_count_add(&pc->disarm_timeouts, 1);
			break;
		}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&pc->disarming, false, __ATOMIC_RELAXED);
	return 0;
}

/* The next period starts at the overflow, not now: the counter has gone
 * on from 0 since it wrapped, and subtracting the period from what it
 * reads keeps the interrupt's latency out of the period (as the tick
 * steps CNTV_CVAL).  Under TCG that latency is a host thread's wake-up,
 * often as long as the period: re-armed from now, 1000 samples/s came
 * out at 450.  When a whole period has passed already (a vCPU left
 * unscheduled), it starts afresh rather than firing at once.  Returns
 * the cycles the overflow stands for: one period when the count past it
 * is carried, the period and that count when it is not (one sample then
 * stands for several periods). */
static uint64_t pmu_rearm(uint64_t period)
{
	uint64_t since = pmu_cycle_read();

	pmu_cycle_write(since < period ? since - period : -period);
	return since < period ? period : period + since;
}

/* Claim = the cycle counter's overflow bit set and its interrupt
 * enabled, while it runs (or while disarm is still at it).  Clear it,
 * rearm for the next period, isb -- all before trap.c's EOI, or the
 * level line fires again at once. */
bool hal_pmu_ack(void)
{
	struct a64_pmu_cpu *pc = pmu_self();
	bool running = __atomic_load_n(&pc->running, __ATOMIC_RELAXED);
	uint64_t period;

	if (!running && !__atomic_load_n(&pc->disarming, __ATOMIC_RELAXED))
		return false;
	if (!pmu_overflowed() || !pmu_irq_enabled())
		return false;
	pmu_overflow_clear(PMU_CYCLE);
	period = pmu_count_get(&pc->period);
	__atomic_store_n(&pc->sample_events, running ? pmu_rearm(period) : period,
			 __ATOMIC_RELAXED);
	isb();
	return true;
}

uint64_t hal_pmu_sample_events(void)
{
	return pmu_count_get(&pmu_self()->sample_events);
}

/* The profiler's throttle, from inside the PMU interrupt: the ack
 * rearmed the counter moments ago, so writing it again at the new period
 * loses nothing.  Only a running counter is touched, and none enabled. */
int hal_pmu_set_period(uint64_t period)
{
	struct a64_pmu_cpu *pc = pmu_self();

	if (!__atomic_load_n(&pc->running, __ATOMIC_RELAXED))
		return -ENODEV;
	if (!period || period >= (1ull << 62))
		return -ERANGE;
	__atomic_store_n(&pc->period, period, __ATOMIC_RELAXED);
	pmu_cycle_write(-period);
	isb();
	return 0;
}

static bool pmu_count_irq(struct a64_pmu_cpu *pc);

/* The PMU's interrupt, DAIF.I set (trap.c; the EOI follows).  Never a
 * panic: an interrupt without an overflow (a disarm's race, a line that
 * dropped late) is counted, apart from one that came with nothing
 * armed, which the storm test requires to stay at 0. */
void a64_pmu_irq(struct trap_frame *tf)
{
	struct a64_pmu_cpu *pc = pmu_self();
	uint64_t t0 = pmu_ticks(), t1;

	if (pmu_count_irq(pc))
		return;
	if (kernel_nmi(tf)) {
		t1 = pmu_ticks();
		pmu_count_add(&pc->claimed, 1);
		pmu_count_add(&pc->claimed_run, 1);
		pmu_count_add(&pc->cost_ticks, t1 - t0);
		pmu_count_add(&pc->cost_n, 1);
		if (__atomic_load_n(&pc->running, __ATOMIC_RELAXED))
			kernel_pmu_took(ticks_to_ns(t1 - t0));
		return;
	}
	if (__atomic_load_n(&pc->running, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&pc->disarming, __ATOMIC_RELAXED))
		pmu_count_add(&pc->no_overflow, 1);
	else
		pmu_count_add(&pc->unarmed, 1);
}

/* ---- lscpu: the GIC, the counter's rate, stat's width, then a line
 * per CPU with its interrupt's books ---- */

/* One line "label: text" of lscpu's, where there is room. */
static void a64_fact(struct hal_pmu_facts *f, const char *label, const char *fmt, ...)
{
	struct hal_pmu_fact *l;
	va_list ap;

	if (f->nlines >= HAL_PMU_FACT_LINES)
		return;
	l = &f->lines[f->nlines++];
	l->label = label;
	va_start(ap, fmt);
	kvsnprintf(l->text, sizeof(l->text), fmt, ap);
	va_end(ap);
}

/* How "interrupts off" is kept: a priority mask in the GIC's CPU
 * interface (the overflow then a pseudo-NMI), or DAIF's I bit (the
 * overflow a plain IRQ). */
static void a64_fact_mask(struct hal_pmu_facts *f)
{
	if (a64_irq_by_pmr)
		a64_fact(f, "gic", "%s, interrupts off by priority (icc_pmr_el1 off 0x%02x, on 0x%02x), pmhe %u",
			 a64_gic_name(), A64_PMR_OFF, A64_PMR_ON, (unsigned)a64_gic_pmhe());
	else
		a64_fact(f, "gic", "%s, interrupts off by daif.i (the pmu overflow is a plain irq)",
			 a64_gic_name());
}

/* The priorities, the overflow's INTID and how it is triggered: what
 * the device tree asked for, and what this CPU's GIC bank holds once
 * the probe enabled it. */
static void a64_fact_overflow(struct hal_pmu_facts *f)
{
	unsigned intid = a64_machine.pmu_intid;
	const char *cpu_trigger = "not enabled";

	if (!intid) {
		a64_fact(f, "gic priorities", "pseudo-nmi 0x%02x (no pmu interrupt, panic stop sgi %u), irq 0x%02x",
			 A64_PRIO_NMI, A64_SGI_STOP, A64_PRIO_IRQ);
		return;
	}
	a64_fact(f, "gic priorities", "pseudo-nmi 0x%02x (pmu intid %u, panic stop sgi %u), irq 0x%02x",
		 A64_PRIO_NMI, intid, A64_SGI_STOP, A64_PRIO_IRQ);
	if (pmu_self()->verdict == V_COUNTS)
		cpu_trigger = a64_gic_ppi_edge(intid) ? "edge" : "level";
	a64_fact(f, "pmu interrupt", "%s-triggered by the device tree; this cpu's gic: %s",
		 a64_machine.pmu_edge ? "edge" : "level", cpu_trigger);
}

void hal_pmu_facts(struct hal_pmu_facts *f)
{
	f->cpus = true;
	a64_fact_mask(f);
	a64_fact_overflow(f);
	f->counter = "pmccntr_el0";
	f->clock = "cntvct_el0";
	f->counter_hz = a64_pmu_rate;
	if (pmu_claims()) {
		f->insn_counter = "pmevcntr0_el0";
		f->insn_bits = pmu_has_long_events() ? 64 : 32;
		f->insn_wide_by = "pmuv3p5, pmcr_el0.lp";
	}
}

void hal_pmu_cpu_facts(unsigned cpu, struct hal_pmu_cpu_facts *f)
{
	const struct a64_pmu_cpu *pc = &a64_pmu_cpus[cpu];
	uint64_t cost_n = pmu_count_get(&pc->cost_n);

	f->verdict = (enum hal_pmu_verdict)pc->verdict;
	f->used = pmu_flag(&pc->used);
	if (pc->verdict == V_NONE || pc->verdict == V_CLAIMED)
		kstrlcpy(f->why, pc->why, sizeof(f->why));
	f->irqs = true;
	f->claimed = pmu_count_get(&pc->claimed);
	f->claimed_run = pmu_count_get(&pc->claimed_run);
	f->no_overflow = pmu_count_get(&pc->no_overflow);
	f->unarmed = pmu_count_get(&pc->unarmed);
	f->spurious = a64_cpus[cpu].spurious;
	f->disarm_timeouts = pmu_count_get(&pc->disarm_timeouts);
	if (cost_n && hal_cycles_per_sec())
		f->cycles_per_sample = pmu_count_get(&pc->cost_ticks) * a64_pmu_rate /
				       hal_cycles_per_sec() / cost_n;
}

/* ---- counting (`events`, `stat`): CPU_CYCLES on the cycle counter, 64
 * bits (PMCR.LC), a fixed counter to the portable core; PMUv3's common
 * events that PMCEID0/1_EL0 advertise on the PMCR_EL0.N event counters,
 * each claim probed (QEMU's `max` advertises STALL_FRONTEND,
 * STALL_BACKEND and STALL, which never move).  An event counter is 64
 * bits only with PMUv3p5's PMCR.LP; before that it is 32 bits and wraps
 * in about a second on a 4 GHz core, and there is no CHAIN under TCG:
 * its overflows are counted, the high word kept by the overflow
 * interrupt (a64_pmu_irq) and folded by a read that finds one pending,
 * so a read is 64 bits.  ---- */

#define PMU_EV_CYCLES		0xffff	/* the cycle counter, not an event */
#define PMU_EV_SW_INCR		0x00

/* Events perf names; the rest are rNNNN, as perf writes them. */
static const struct {
	uint16_t num;
	const char *name;
} pmu_generic[] = {
	{ 0x08, "instructions" },
	{ 0x21, "branches" },
	{ 0x10, "branch-misses" },
	{ 0x04, "cache-references" },
	{ 0x03, "cache-misses" },
	{ 0x23, "stalled-cycles-frontend" },
	{ 0x24, "stalled-cycles-backend" },
};

#define PMU_GENERIC_N (sizeof(pmu_generic) / sizeof(pmu_generic[0]))

static struct hal_pmu_event pmu_table[HAL_PMU_EVENTS_MAX];
static uint16_t pmu_table_num[HAL_PMU_EVENTS_MAX];
static char pmu_raw_names[HAL_PMU_EVENTS_MAX][8];
static unsigned pmu_table_n, pmu_table_general;
static bool pmu_table_done;

static unsigned pmu_counters_n(void)
{
	unsigned n = PMCR_N(A64_SYSREG_READ(pmcr_el0));

	return n < HAL_PMU_COUNT_MAX - 1 ? n : HAL_PMU_COUNT_MAX - 1;
}

/* Common event @num advertised by PMCEID0/1_EL0 (events 0x00-0x3f). */
static bool pmu_advertised(unsigned num)
{
	uint64_t id = num < 32 ? A64_SYSREG_READ(pmceid0_el0) : A64_SYSREG_READ(pmceid1_el0);

	return num < 64 && ((id >> (num % 32)) & 1);
}

/* Event counter @k's count register, through PMSELR_EL0: the counter
 * is chosen by number at run time.  Interrupts (DAIF.I) off across the
 * pair, so that nothing selects another between them. */
static void pmu_select(unsigned k)
{
	A64_SYSREG_WRITE(pmselr_el0, k);
	isb();
}

static void pmu_event_program(unsigned k, unsigned num)
{
	pmu_select(k);
	A64_SYSREG_WRITE(pmxevtyper_el0, PMU_FILTER_EL1 | num);
	A64_SYSREG_WRITE(pmxevcntr_el0, 0);
}

static uint64_t pmu_event_raw(unsigned k)
{
	pmu_select(k);
	return A64_SYSREG_READ(pmxevcntr_el0);
}

/* Does event @num move on event counter 0?  A busy loop (and, for
 * SW_INCR, three writes of PMSWINC_EL0) while it counts.  Interrupts
 * off; the counters claimed. */
static bool pmu_event_moves(unsigned num)
{
	uint64_t start = pmu_ticks(), v;
	volatile unsigned x = 0;

	pmu_event_program(0, num);
	pmu_overflow_clear(PMU_EVENT0);
	pmu_enable(PMU_EVENT0);
	isb();
	if (num == PMU_EV_SW_INCR)
		for (unsigned i = 0; i < 3; i++)
			A64_SYSREG_WRITE(pmswinc_el0, PMU_EVENT0);
	while (pmu_ticks() - start < us_to_ticks(PROBE_SPIN_US))
		x++;
	isb();
	v = pmu_event_raw(0);
	pmu_disable(PMU_EVENT0);
	pmu_overflow_clear(PMU_EVENT0);
	isb();
	return v != 0;
}

static struct hal_pmu_event *pmu_table_add(unsigned num, const char *name)
{
	struct hal_pmu_event *h;

	if (pmu_table_n == HAL_PMU_EVENTS_MAX)
		return NULL;
	h = &pmu_table[pmu_table_n];
	pmu_table_num[pmu_table_n++] = (uint16_t)num;
	kmemset(h, 0, sizeof(*h));
	h->name = name;
	h->bits = 64;		/* 64-bit with LP, else 32 bits and its wraps */
	h->fixed = num == PMU_EV_CYCLES ? 0 : -1;
	if (num == PMU_EV_CYCLES)
		kstrlcpy(h->source, "cycle counter pmccntr_el0 (fixed 0)", sizeof(h->source));
	else
		ksnprintf(h->source, sizeof(h->source), "pmuv3 event 0x%02x on an event counter", num);
	return h;
}

/* An event counter's event: advertised, then seen to move. */
static void pmu_table_probe(struct hal_pmu_event *h, unsigned num, bool counters)
{
	if (!counters) {
		kstrlcpy(h->why_not, "no pmu event counters (pmcr_el0.n is 0)", sizeof(h->why_not));
	} else if (!pmu_advertised(num)) {
		kstrlcpy(h->why_not, num == EVENT_INST_RETIRED ?
			 "pmceid0_el0 does not advertise it (qemu: only under -icount)" :
			 "pmceid does not advertise it", sizeof(h->why_not));
	} else if (!pmu_event_moves(num)) {
		kstrlcpy(h->why_not, "advertised by pmceid, never moved in the probe",
			 sizeof(h->why_not));
	} else {
		h->counts = true;
	}
}

static bool pmu_is_generic(unsigned num)
{
	for (unsigned g = 0; g < PMU_GENERIC_N; g++)
		if (pmu_generic[g].num == num)
			return true;
	return false;
}

/* The table, once, from the calling CPU's PMU: cycles, the events perf
 * names (advertised or not: one that is not says so), then every other
 * advertised common event as rNNNN. */
static void pmu_table_build(struct a64_pmu_cpu *pc)
{
	unsigned long flags = hal_irq_save();
	bool live = pc->verdict == V_COUNTS;
	bool counters = live && pmu_counters_n() > 0;
	struct hal_pmu_event *h = pmu_table_add(PMU_EV_CYCLES, "cycles");

	h->counts = live;
	h->standard = true;
	if (!live)
		kstrlcpy(h->why_not, pc->why[0] ? pc->why : "no pmu", sizeof(h->why_not));
	pmu_table_general = live ? pmu_counters_n() : 0;
	for (unsigned g = 0; g < PMU_GENERIC_N; g++) {
		h = pmu_table_add(pmu_generic[g].num, pmu_generic[g].name);
		h->standard = pmu_generic[g].num == EVENT_INST_RETIRED;
		pmu_table_probe(h, pmu_generic[g].num, counters);
	}
	for (unsigned num = 0; counters && num < 64; num++) {
		if (pmu_is_generic(num) || !pmu_advertised(num))
			continue;
		ksnprintf(pmu_raw_names[pmu_table_n], sizeof(pmu_raw_names[0]), "r%04x", num);
		h = pmu_table_add(num, pmu_raw_names[pmu_table_n]);
		if (h)
			pmu_table_probe(h, num, counters);
	}
	hal_irq_restore(flags);
}

unsigned hal_pmu_events(struct hal_pmu_event ev[], unsigned max,
			struct hal_pmu_counters *counters)
{
	struct a64_pmu_cpu *pc = pmu_self();
	unsigned n;

	pmu_probe_self(pc);
	if (!pmu_table_done) {
		pmu_table_build(pc);
		pmu_table_done = true;
	}
	n = pmu_table_n < max ? pmu_table_n : max;
	kmemcpy(ev, pmu_table, n * sizeof(ev[0]));
	counters->general = pmu_table_general;
	counters->fixed = 1;
	return n;
}

/* A 32-bit count's overflow on event counter @k, if its flag is up:
 * cleared, and one more 2^32 counted.  DAIF.I set (the PMU interrupt,
 * or a read that masked it), so that nothing else folds the same
 * overflow meanwhile. */
static bool pmu_event_fold(struct a64_pmu_cpu *pc, unsigned k)
{
	if (!(A64_SYSREG_READ(pmovsset_el0) & (1u << k)))
		return false;
	pmu_overflow_clear(1u << k);
	/* The flag is down before the next read of it (the read loop) or
	 * the EOI (the interrupt: a level line still up would fire again). */
	isb();
	pmu_count_add(&pc->wraps[k], 1);
	return true;
}

/* Event counter @k's 64-bit count.  A 32-bit counter is read, then its
 * overflow flag: a flag still down means no wrap had happened by the
 * count read, so the wraps counted so far go with it; a flag up is
 * folded and the count read again.  DAIF.I is held across, as the PMU
 * interrupt (a pseudo-NMI, which the tick's "interrupts off" passes)
 * folds the same flag and the selector is shared. */
static uint64_t pmu_event_read(struct a64_pmu_cpu *pc, unsigned k)
{
	bool was_masked = a64_daif() & A64_DAIF_I;
	uint64_t lo;

	a64_daif_mask_irq();
	if (pmu_flag(&pc->count_long)) {
		lo = pmu_event_raw(k);
	} else {
		do {
			lo = pmu_event_raw(k) & 0xffffffffu;
			/* System register reads are not ordered among
			 * themselves: the count is read before its flag. */
			isb();
		} while (pmu_event_fold(pc, k));
		lo |= pmu_count_get(&pc->wraps[k]) << 32;
	}
	if (!was_masked)
		a64_daif_unmask_irq();
	return lo;
}

/* From a64_pmu_irq: the PMU interrupt while `stat` counts with 32-bit
 * event counters is their overflow (the profiler is never armed then:
 * they share the counters).  True when it was `stat`'s; one whose flag
 * a read folded already is dropped here too. */
static bool pmu_count_irq(struct a64_pmu_cpu *pc)
{
	uint32_t mask = __atomic_load_n(&pc->count_mask, __ATOMIC_RELAXED);

	if (!pmu_flag(&pc->counting) || !mask || pmu_flag(&pc->count_long))
		return false;
	for (unsigned k = 0; k < A64_PMU_EVENT_COUNTERS; k++)
		if ((mask >> k) & 1)
			pmu_event_fold(pc, k);
	return true;
}

/* Where each event of the open goes: the cycle counter, or the next
 * event counter; open[i] false for one that does not count. */
static uint32_t pmu_count_place(struct a64_pmu_cpu *pc, const unsigned ev[], unsigned n,
				bool open[])
{
	unsigned next = 0, general = pmu_table_general;
	uint32_t enable = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned num = ev[i] < pmu_table_n ? pmu_table_num[ev[i]] : 0;

		open[i] = false;
		pc->count_slot[i] = PMU_SLOT_CYCLE;
		if (ev[i] >= pmu_table_n || !pmu_table[ev[i]].counts)
			continue;
		if (num == PMU_EV_CYCLES) {
			enable |= PMU_CYCLE;
			open[i] = true;
			continue;
		}
		if (next >= general)
			continue;
		pc->count_slot[i] = (uint8_t)next;
		enable |= 1u << next;
		open[i] = true;
		next++;
	}
	return enable;
}

void hal_pmu_count_open(const unsigned ev[], unsigned n, bool open[])
{
	struct a64_pmu_cpu *pc = pmu_self();
	bool long_events = pmu_has_long_events();
	uint64_t pmcr;
	uint32_t enable, events;

	pmu_probe_self(pc);
	if (n > HAL_PMU_COUNT_MAX)
		n = HAL_PMU_COUNT_MAX;
	pc->count_n = n;
	for (unsigned i = 0; i < n; i++)
		open[i] = false;
	if (!n || pc->verdict != V_COUNTS || pmu_flag(&pc->running) || !pmu_table_done)
		return;
	enable = pmu_count_place(pc, ev, n, open);
	events = enable & ~PMU_CYCLE;
	pmu_irq_disable(~0u);
	/* LP set or cleared here, as its reset value is unknown. */
	pmcr = A64_SYSREG_READ(pmcr_el0) & ~(uint64_t)PMCR_LP;
	A64_SYSREG_WRITE(pmcr_el0, long_events ? pmcr | PMCR_LP : pmcr);
	pmu_flag_set(&pc->count_long, long_events);
	for (unsigned i = 0; i < n; i++)
		if (open[i] && pc->count_slot[i] != PMU_SLOT_CYCLE)
			pmu_event_program(pc->count_slot[i], pmu_table_num[ev[i]]);
	for (unsigned k = 0; k < A64_PMU_EVENT_COUNTERS; k++)
		__atomic_store_n(&pc->wraps[k], 0, __ATOMIC_RELAXED);
	pmu_overflow_clear(events);
	__atomic_store_n(&pc->count_mask, events, __ATOMIC_RELAXED);
	/* Counting before the overflow interrupt can come: it is ours. */
	pmu_flag_set(&pc->counting, true);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* The counts' width is set before they start. */
	isb();
	if (!long_events && events)
		pmu_irq_enable(events);
	pmu_enable(enable);
	isb();
}

void hal_pmu_count_read(uint64_t values[])
{
	struct a64_pmu_cpu *pc = pmu_self();
	bool on = pmu_flag(&pc->counting);

	isb();
	for (unsigned i = 0; i < pc->count_n; i++) {
		unsigned k = pc->count_slot[i];

		if (!on)
			values[i] = 0;
		else if (k == PMU_SLOT_CYCLE)
			values[i] = pmu_cycle_read();
		else
			values[i] = pmu_event_read(pc, k);
	}
}

/* Stopped, then the interrupt off and the flags cleared, and only then
 * no longer `stat`'s: an overflow taken meanwhile is still folded. */
void hal_pmu_count_close(void)
{
	struct a64_pmu_cpu *pc = pmu_self();
	uint32_t mask = __atomic_load_n(&pc->count_mask, __ATOMIC_RELAXED);

	if (!pmu_flag(&pc->counting))
		return;
	pmu_disable(PMU_CYCLE | mask);
	pmu_irq_disable(mask);
	pmu_overflow_clear(mask);
	isb();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pmu_flag_set(&pc->counting, false);
	__atomic_store_n(&pc->count_mask, 0, __ATOMIC_RELAXED);
}

/* Advance SW_INCR by one on event counters counting it: a write of
 * PMSWINC_EL0 with every counter's bit (those counting another event
 * ignore it).  Any context. */
bool hal_pmu_soft_incr(void)
{
	if (!pmu_claims())
		return false;
	A64_SYSREG_WRITE(pmswinc_el0, (1u << A64_PMU_EVENT_COUNTERS) - 1);
	return true;
}
