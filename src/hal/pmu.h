/* SPDX-License-Identifier: BSD-2-Clause */
/* The performance counter behind the profiler: probe, arm, disarm, ack.
 * Every function acts on the calling CPU's counter only: control
 * registers are per CPU and cannot be written from anywhere else. */
#ifndef KPROF_HAL_PMU_H
#define KPROF_HAL_PMU_H

#include <stdbool.h>
#include <stdint.h>

struct hal_pmu_info {
	/* What the part claims (CPUID, ID registers, the perf ABI), in a
	 * short human sentence for lscpu: "intel arch perfmon v4". */
	char claim[64];
	/* The part claims a counter this backend can drive. */
	bool claimed;
	/* The counter was seen to move: claimed *and* proven. */
	bool counts;
	/* Source name for the report header when counting, such as
	 * "pmu/nmi intel fixed-ctr1"; empty otherwise. */
	char source[48];
	/* Events the counter advances per second, to derive a period for
	 * the profiler's sampling rate. */
	uint64_t events_per_sec;
	/* Why the counter is not used, when it is not ("counter did not
	 * move in 10 us"); empty when it counts. */
	char why_not[64];
};

/* The calling CPU's verdict: what the part claims, then whether this
 * CPU's own counter really counts -- enabled without its interrupt and
 * read until it moves, bounded by the cycle clock (about 10 us), with
 * interrupts off.  CPUs of one machine may differ (hybrid parts), so the
 * backend probes each CPU's counter on that CPU, once -- here for the
 * calling CPU, and at a CPU's bring-up or its first hal_pmu_arm() for
 * the others -- and caches each verdict; hal_pmu_arm() on a CPU whose
 * counter did not prove itself programs nothing and returns -ENODEV.
 * Any context on the calling CPU (the profiler calls it once, under its
 * lock, and caches the answer as the machine's). */
void hal_pmu_probe(struct hal_pmu_info *info);

/* Start the calling CPU's counter so that it overflows, raising the
 * profiler's interrupt (an NMI where there is one), every @period events.
 * Called from the calling CPU's tick, interrupts off.  Never sleeps.
 * Returns 0, or a negative errno when the platform refused (the profiler
 * names the CPU in the report): -EBUSY while the CPU's counters are open
 * for counting (hal_pmu_count_open() to hal_pmu_count_close()), where
 * the two share hardware -- arming never takes counters from `stat`. */
int hal_pmu_arm(uint64_t period);

/* Stop the calling CPU's counter, acknowledge any overflow it shows and,
 * where an overflow interrupt may still be on its way, wait for it
 * (bounded, tens of us) so that it lands while the caller still counts it
 * as ours; leave the counter unable to read as overflowed.  Called from
 * the calling CPU's tick, interrupts off.  Never sleeps.  Returns 0, or a
 * negative errno when the platform refused. */
int hal_pmu_disarm(void);

/* Inside the overflow interrupt: true when the calling CPU's counter, one
 * that is running or that hal_pmu_disarm() is still waiting on, has
 * overflowed; the overflow is then acknowledged and the counter rearmed
 * for the next period.  False when the interrupt is not this counter's. */
bool hal_pmu_ack(void);

/* Inside the overflow interrupt, after hal_pmu_ack() returned true: the
 * events this overflow stands for -- the period the counter ran, plus
 * whatever it counted past the overflow that the backend did not carry
 * into the next period (several periods gone before the interrupt
 * landed).  What the profiler weighs the sample with. */
uint64_t hal_pmu_sample_events(void);

/* Inside the overflow interrupt, on the calling CPU: from the next
 * overflow on, every @period events.  Only the count of a counter that
 * is running is rewritten (it was rewritten moments ago by the ack, so it
 * is now @period from its next overflow); a counter that is stopped or
 * stopping is left alone, and no counter is ever enabled here (the
 * counter's rules, doc/profiler.md).  Returns 0, or -ENODEV when the
 * counter is not running, -ERANGE when it cannot count that far.  The
 * profiler's throttle calls it (kernel_pmu_took(), hal/entry.h); the
 * period holds until hal_pmu_arm() sets another. */
int hal_pmu_set_period(uint64_t period);

/* ---- lscpu: what the backend knows, as data (src/shell/cmd_lscpu.c
 * prints it after the portable lines) ---- */

enum hal_pmu_verdict {
	HAL_PMU_NOT_PROBED,	/* "counter not probed yet" */
	HAL_PMU_NOT_CLAIMED,	/* "counter not claimed" */
	HAL_PMU_NOT_PROVEN,	/* "counter claimed, not proven" */
	HAL_PMU_PROVEN,		/* "counter claimed, proven" */
};

/* One CPU's counter. */
struct hal_pmu_cpu_facts {
	enum hal_pmu_verdict verdict;
	bool used;			/* armed at least once */
	char why[64];			/* after the verdict, or empty */
	/* The overflow interrupt's own books, where the platform keeps
	 * them (irqs): interrupts claimed (in all, in the last run), taken
	 * armed without an overflow, taken with nothing armed, spurious
	 * acknowledges, the handler's mean cost in counter cycles, and
	 * disarm waits that timed out. */
	bool irqs;
	uint64_t claimed, claimed_run, no_overflow, unarmed, spurious;
	uint64_t cycles_per_sample, disarm_timeouts;
};

/* A fact only the platform can name (its interrupt controller, its
 * registers), said as one line "label: text".  The shell prints them in
 * order and knows nothing of what they mean. */
#define HAL_PMU_FACT_LINES 4

struct hal_pmu_fact {
	const char *label;		/* "gic", lives forever */
	char text[112];
};

/* The machine's, said before the CPUs'.  A NULL or 0 field has no line. */
struct hal_pmu_facts {
	bool cpus;			/* a line per CPU (hal_pmu_cpu_facts) */
	/* NMIs no source claimed, and late overflows claimed (x86). */
	bool nmis;
	uint64_t unknown_nmis, late_nmis;
	/* The platform's own lines, said first: lines[0..nlines). */
	struct hal_pmu_fact lines[HAL_PMU_FACT_LINES];
	unsigned nlines;
	/* The sampling counter's rate against the platform clock, and the
	 * period the profiler's rate gives (counter, clock: names). */
	const char *counter, *clock;
	uint64_t counter_hz;
	/* `stat`'s instructions: on which counter, its width (64 or 32
	 * bits, a 32-bit one's overflows counted), and what made it 64. */
	const char *insn_counter, *insn_wide_by;
	unsigned insn_bits;
};

/* The calling CPU's view of the machine's facts.  Task context. */
void hal_pmu_facts(struct hal_pmu_facts *f);

/* CPU @cpu's counter (below hal_cpu_count()).  Task context. */
void hal_pmu_cpu_facts(unsigned cpu, struct hal_pmu_cpu_facts *f);

/* ---- counting (`events`, `stat`) ----
 *
 * The platform's countable events as a table, and counters to program a
 * few of them at a time, counted without interrupts on the calling CPU.
 * Counting and sampling share the counters on real hardware: the
 * portable core never counts while a profile samples.  When `stat` lists
 * more events than there are counters, the core opens a few at a time
 * and rotates them on the tick (prof/stat_sched.c); the backend only
 * ever programs what one open asks. */

/* The most events one open programs, and the most a table holds. */
#define HAL_PMU_COUNT_MAX 8
#define HAL_PMU_EVENTS_MAX 40

struct hal_pmu_event {
	const char *name;	/* "cycles", "r0011": lives forever */
	/* Where it comes from, for `events`: "cycle counter pmccntr_el0",
	 * "pmuv3 event 0x08", "host perf software event". */
	char source[48];
	unsigned bits;		/* raw count width: reads differ modulo 2^bits */
	int fixed;		/* the fixed counter it needs, or -1: a general one */
	bool counts;		/* claimed *and* seen to move (probed) */
	bool standard;		/* one of what a plain `stat` counts */
	/* A zero is a true zero (a software count the host keeps), not a
	 * counter that never moved. */
	bool exact;
	char why_not[64];	/* why it does not count, when it does not */
};

/* Counters one open may use: @general take any event that is not fixed,
 * each fixed event takes its own fixed counter of @fixed. */
struct hal_pmu_counters {
	unsigned general, fixed;
};

/* The platform's events, ev[0..n) with n returned (at most @max), in a
 * fixed order (an event's index is its id for hal_pmu_count_open), and
 * its counters.  Each event's claim is probed the first time, on the
 * calling CPU (bounded, microseconds), never trusted alone: an event the
 * part advertises that does not move is `counts` false with the reason.
 * Task context, with the counters claimed (prof_counters_claim()). */
unsigned hal_pmu_events(struct hal_pmu_event ev[], unsigned max,
			struct hal_pmu_counters *counters);

/* Open and start events ev[0..n) of the table (n at most
 * HAL_PMU_COUNT_MAX, no more general ones than the general counters,
 * each fixed one once) on the calling CPU.  open[i] says whether ev[i]
 * could be opened; one that could not is "not counted" (so is every
 * event while the profiler's counter is armed, where the two share
 * hardware).  From the calling CPU's tick or its scheduler's switch,
 * interrupts off.  Never sleeps. */
void hal_pmu_count_open(const unsigned ev[], unsigned n, bool open[]);

/* Raw counts values[0..n) of the events of the last open, in its order
 * (0 for those not open).  Interrupts off, on the calling CPU, between
 * hal_pmu_count_open() and hal_pmu_count_close(). */
void hal_pmu_count_read(uint64_t values[]);

/* Stop and release the calling CPU's events.  Interrupts off, after
 * hal_pmu_count_open(). */
void hal_pmu_count_close(void);

/* One increment of the part's software-increment event (PMUv3's
 * SW_INCR, by PMSWINC_EL0) on the calling CPU, where it has one: a
 * count the workload knows exactly.  Returns false, doing nothing,
 * where it has none.  Any context. */
bool hal_pmu_soft_incr(void);

#endif
