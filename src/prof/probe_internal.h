/* SPDX-License-Identifier: BSD-2-Clause */
/* What the probes' handler (prof/probe_hit.c) and their management
 * (prof/probe.c) share. */
#ifndef KPROF_PROF_PROBE_INTERNAL_H
#define KPROF_PROF_PROBE_INTERNAL_H

#include <stdint.h>

#include "hal/cpu.h"

/* One CPU's handler state: @seq is odd while its handler runs; @nested
 * counts hits that found it running (an interrupt inside it), which are
 * dropped. */
struct probe_cpu_state {
	uint64_t seq;
	uint64_t nested;
} __attribute__((aligned(64)));

extern struct probe_cpu_state probe_cpu_state[HAL_MAX_CPUS];

#endif
