/* SPDX-License-Identifier: BSD-2-Clause */
/* A recording fake PMU (hal/pmu.h) for the profiler's logic tests.  The
 * test raises overflows with fake_pmu_overflow(); every HAL call is
 * appended to fake_pmu_log, one line each, with the profiler's armed flag
 * as the call saw it:
 *     cpu0 probe
 *     cpu0 arm period=1000000 armed=1
 *     cpu1 ack yes armed=1
 *     cpu0 disarm armed=1
 */
#ifndef KPROF_TESTS_FAKE_PMU_H
#define KPROF_TESTS_FAKE_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "hal/pmu.h"

struct trap_frame;

/* What hal_pmu_probe() reports, and how often it ran. */
extern struct hal_pmu_info fake_pmu_info;
extern unsigned fake_pmu_probes;

/* Per CPU: the counter runs (armed, not disarmed); disarm is waiting for
 * a late overflow; an overflow shows (hal_pmu_ack() clears it). */
extern bool fake_pmu_running[HAL_MAX_CPUS];
extern bool fake_pmu_waiting[HAL_MAX_CPUS];
extern bool fake_pmu_pending[HAL_MAX_CPUS];
extern uint64_t fake_pmu_period[HAL_MAX_CPUS];

/* Called inside hal_pmu_disarm() while it waits, on the disarming CPU:
 * where a late overflow lands. */
extern void (*fake_pmu_disarm_hook)(unsigned cpu);

/* When set, hal_pmu_arm() and hal_pmu_disarm() do their work but report
 * failure (-EIO), as an ioctl the host refused does. */
extern bool fake_pmu_fail_ops;
/* What each claimed overflow's handler "took" on each CPU: reported to
 * kernel_pmu_took() after kernel_nmi() claims one of a running counter,
 * as a backend does (0 unless a test sets it). */
extern uint64_t fake_pmu_cost_ns[HAL_MAX_CPUS];
/* Calls of hal_pmu_set_period() that changed a running counter's period
 * (fake_pmu_period); each is logged as "cpuN set_period period=P". */
extern unsigned fake_pmu_set_periods;

/* What hal_pmu_facts() and hal_pmu_cpu_facts() answer (zero: no lines
 * of the platform's own in lscpu). */
extern struct hal_pmu_facts fake_pmu_facts;
extern struct hal_pmu_cpu_facts fake_pmu_cpu_facts[HAL_MAX_CPUS];

/* Overflow interrupts kernel_nmi() refused: the genuine-NMI path. */
extern unsigned fake_pmu_unclaimed;

extern char fake_pmu_log[16384];
extern size_t fake_pmu_log_len;
void fake_pmu_log_clear(void);

/* A part whose counter counts, @events_per_sec, named @source. */
void fake_pmu_set_counting(uint64_t events_per_sec, const char *source);
/* A part that claims a counter the probe found dead (@why), or none. */
void fake_pmu_set_dead(const char *claim, const char *why);

/* Raise the counter interrupt on @cpu (fake_cpu becomes @cpu).  When
 * @ours, this CPU's counter shows an overflow first.  Returns what
 * kernel_nmi() answered; a refusal counts in fake_pmu_unclaimed. */
bool fake_pmu_overflow(unsigned cpu, struct trap_frame *tf, bool ours);

/* Counting (`events`, `stat`): the fake part's event table (names,
 * widths, the fixed counter each needs or -1, whether its probe saw it
 * count, whether a plain `stat` counts it, whether an open succeeds),
 * its counters, and each CPU's raw values (a test sets them between the
 * ticks that open and close, or sets a rate, events per second of
 * fake_now_ns, at which an event advances only while it is open). */
extern unsigned fake_count_n;
extern const char *fake_count_names[HAL_PMU_EVENTS_MAX];
extern unsigned fake_count_bits[HAL_PMU_EVENTS_MAX];
extern int fake_count_fixed[HAL_PMU_EVENTS_MAX];
extern bool fake_count_counts[HAL_PMU_EVENTS_MAX];
extern bool fake_count_standard[HAL_PMU_EVENTS_MAX];
extern bool fake_count_can_open[HAL_PMU_EVENTS_MAX];
extern struct hal_pmu_counters fake_count_counters;
extern uint64_t fake_count_value[HAL_MAX_CPUS][HAL_PMU_EVENTS_MAX];
extern uint64_t fake_count_rate[HAL_MAX_CPUS][HAL_PMU_EVENTS_MAX];
extern bool fake_count_is_open[HAL_MAX_CPUS];
extern unsigned fake_count_opens, fake_count_closes;
/* What each CPU has open now (table ids), and the most one open asked. */
extern unsigned fake_count_open_n[HAL_MAX_CPUS];
extern unsigned fake_count_open_ev[HAL_MAX_CPUS][HAL_PMU_COUNT_MAX];
extern unsigned fake_count_open_max;
/* hal_pmu_soft_incr(): each CPU's increments, and whether the part has
 * the event (true by default). */
extern uint64_t fake_soft_incr[HAL_MAX_CPUS];
extern bool fake_soft_incr_has;

/* What hal_pmu_sample_events() says the next overflows of a CPU stand
 * for (0: its period, as a backend that carries the count). */
extern uint64_t fake_pmu_events[HAL_MAX_CPUS];

#endif
