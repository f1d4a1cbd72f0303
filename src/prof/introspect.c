/* SPDX-License-Identifier: BSD-2-Clause */
/* What each CPU's sampler holds right now, for the shell's and the
 * tests' looks inside a run (profiler.h "introspection"): its ring's
 * counts and records, whether it is armed, and how long a CPU may take
 * to answer.  Any context; nothing here changes a run. */
#include "prof/profiler.h"

#include "hal/cpu.h"
#include "kernel/tick.h"
#include "lib/kstring.h"
#include "prof/sampler.h"

void prof_cpu_stats(unsigned cpu, struct prof_cpu_stats *st)
{
	const struct prof_cpu *c = &prof_cpus[cpu];

	st->stored = (uint32_t)(__atomic_load_n(&c->head, __ATOMIC_ACQUIRE) -
				__atomic_load_n(&c->start, __ATOMIC_RELAXED));
	st->dropped = __atomic_load_n(&c->dropped, __ATOMIC_RELAXED);
	st->late = __atomic_load_n(&c->late, __ATOMIC_RELAXED);
	st->errors = __atomic_load_n(&c->errors, __ATOMIC_RELAXED);
	st->gen = __atomic_load_n(&c->gen_seen, __ATOMIC_ACQUIRE);
	st->armed = __atomic_load_n(&c->armed, __ATOMIC_RELAXED);
	st->counter_armed = st->gen &&
			    __atomic_load_n(&c->counter_gen, __ATOMIC_RELAXED) == st->gen;
}

bool prof_cpu_record(unsigned cpu, size_t i, struct prof_record *r)
{
	const struct prof_cpu *c = &prof_cpus[cpu];
	uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
	uint64_t idx = __atomic_load_n(&c->start, __ATOMIC_RELAXED) + i;
	const uintptr_t *slot;

	if (!c->ring || idx >= head || head - idx > prof_cap)
		return false;
	slot = c->ring + (idx % prof_cap) * (PROF_RECORD_HEAD + prof_depth);
	r->pid = (int32_t)(uint32_t)slot[0];
	r->nframes = (uint32_t)(slot[0] >> 32);
	if (r->nframes > prof_depth)
		r->nframes = prof_depth;
	r->weight = slot[1];
	kmemcpy(r->frames, slot + PROF_RECORD_HEAD, r->nframes * sizeof(r->frames[0]));
	return true;
}

bool prof_cpu_armed(unsigned cpu)
{
	return __atomic_load_n(&prof_cpus[cpu].armed, __ATOMIC_RELAXED);
}

uint64_t prof_answer_budget_ns(void)
{
	uint64_t floor = (uint64_t)PROF_STOP_WAIT_MS * 1000000u;
	uint64_t platform = tick_answer_ns();

	return platform > floor ? platform : floor;
}

const void *prof_cpu_state(unsigned cpu)
{
	return &prof_cpus[cpu];
}
