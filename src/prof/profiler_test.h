/* SPDX-License-Identifier: BSD-2-Clause */
/* The profiler's entry points that only tests and benchmarks call: the
 * sampler driven directly, a session with the defaults, the rings read
 * record by record, and settings a test needs to reach a corner. */
#ifndef KPROF_PROF_PROFILER_TEST_H
#define KPROF_PROF_PROFILER_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prof/profiler.h"

struct out;
struct trap_frame;

/* The sampler's three entries, which prof_init() registers as the
 * kernel's hooks; kernel_tick() calls the first before counting's.
 *
 * From kernel_tick(), interrupts off, on the ticking CPU: notice a new or
 * ended run, arm or disarm this CPU's counter, and take a sample when
 * the tick is the source. */
void prof_tick(struct trap_frame *tf);

/* From kernel_nmi(): true when the interrupt is the profiler's (armed and
 * hal_pmu_ack() saw this CPU's overflow); the sample is taken or dropped
 * then.  False sends it to the platform's genuine-NMI path. */
bool prof_nmi(struct trap_frame *tf);

/* From kernel_pmu_took(): the claimed overflow's handler took @ns.  On
 * an armed CPU it feeds that CPU's throttle (prof/throttle.h); when
 * the rule says so the CPU's period doubles (hal_pmu_set_period()) and
 * the report says it. */
void prof_pmu_took(uint64_t ns);

/* The source the boot asked for (profile.source=, ksim --source): "auto"
 * (the counter when it counts, else the tick), "pmu" (the counter, or
 * refuse to profile) or "tick".  Returns 0 or -EINVAL.  Boot, before the
 * first profile. */
int prof_set_source(const char *name);

/* prof_start_with() with the defaults: depth 8, 1000 Hz, every task,
 * the boot's source. */
int prof_start(void);

/* Collect, then print the text report of task @pid's samples
 * (PROF_PID_ALL: every task) with the @chains hottest chains.  Returns
 * 0, or -ENOMEM (nothing printed) when the view's table cannot be
 * allocated.  Task context, after prof_wait_stopped(). */
int prof_report(struct out *o, int pid, unsigned chains);

/* Record @i of @cpu's run, unpacked into @r; false when it has not
 * been written or its slot was reused.  Only stable once that CPU
 * acknowledged the stop, for tests and diagnostics. */
bool prof_cpu_record(unsigned cpu, size_t i, struct prof_record *r);

/* The fold table's size for the next sessions (PROF_FOLD_CHAINS by
 * default), so a test can fill it.  Task context, no session running. */
void prof_set_fold_chains(size_t chains);

/* Where @cpu's share of the profiler's state lives, for the test that
 * pins that no two CPUs share a cache line. */
const void *prof_cpu_state(unsigned cpu);

/* True while @cpu's counter is the profiler's (between "armed" and the
 * end of disarm). */
bool prof_cpu_armed(unsigned cpu);

#endif
