/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/random.h: the CPU's own random number instruction. */
#include "hal/random.h"

#include "x86.h"

/* RDRAND (CPUID.1:ECX bit 30), retried a few times as Intel advises:
 * it may fail transiently when the entropy source is drained. */
bool hal_random_hw(uint64_t *v)
{
	uint32_t r[4];

	cpuid(1, 0, r);
	if (!(r[2] & (1u << 30)))
		return false;
	for (int i = 0; i < 10; i++) {
		uint64_t x;
		uint8_t ok;

		__asm__ volatile("rdrand %0; setc %1" : "=r"(x), "=qm"(ok));
		if (ok) {
			*v = x;
			return true;
		}
	}
	return false;
}
