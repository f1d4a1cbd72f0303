/* SPDX-License-Identifier: BSD-2-Clause */
/* Unpredictable numbers for nonces (not a general-purpose generator). */
#ifndef KPROF_KERNEL_RANDOM_H
#define KPROF_KERNEL_RANDOM_H

#include <stdbool.h>
#include <stdint.h>

/* A random non-zero 64-bit number: the CPU's generator (hal_random_hw)
 * when it has one, else SHA-256 over the jitter of the cycle counter
 * across a few thousand reads.  *@hw says which.  Any context; the
 * fallback takes tens of microseconds. */
uint64_t random_nonce64(bool *hw);

#endif
