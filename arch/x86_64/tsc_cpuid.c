/* SPDX-License-Identifier: BSD-2-Clause */
/* The TSC's rate from CPUID alone, for timer.c: no instruction here, so
 * that tests/arch/check_x86boot.c can feed it the leaves of CPUs it models. */
#include "x86.h"

/* The TSC's rate as the CPU states it (Intel SDM Vol. 2A, CPUID): leaf
 * 0x15 gives the TSC/crystal ratio EBX/EAX and the crystal's Hz in ECX
 * (0 when not enumerated); leaf 0x16's EAX is the base frequency in MHz,
 * which the TSC runs at where 0x15 leaves the crystal out.  0 when
 * neither says. */
uint64_t x86_tsc_hz_from_cpuid(const uint32_t l0[4], const uint32_t l15[4],
			       const uint32_t l16[4])
{
	if (l0[0] >= 0x15 && l15[0] && l15[1] && l15[2])
		return (uint64_t)l15[2] * l15[1] / l15[0];
	if (l0[0] >= 0x16 && (l16[0] & 0xffff))
		return (uint64_t)(l16[0] & 0xffff) * 1000000;
	return 0;
}
