/* SPDX-License-Identifier: BSD-2-Clause */
/* A hardware random number, where the CPU has a generator. */
#ifndef KPROF_HAL_RANDOM_H
#define KPROF_HAL_RANDOM_H

#include <stdbool.h>
#include <stdint.h>

/* Fill *@v from the CPU's random number generator (RDRAND on x86, the
 * host's getrandom() in the simulator).  Returns false when there is
 * none or it failed; the caller then falls back to timing jitter.  Any
 * context; never sleeps. */
bool hal_random_hw(uint64_t *v);

#endif
