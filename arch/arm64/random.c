/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/random.h: RNDR (FEAT_RNG, ID_AA64ISAR0_EL1.RNDR), which QEMU's
 * -cpu max offers and cortex-a57 does not. */
#include "hal/random.h"

#include "a64.h"

bool hal_random_hw(uint64_t *v)
{
	if (!((A64_SYSREG_READ(id_aa64isar0_el1) >> 60) & 0xf))
		return false;
	for (int i = 0; i < 10; i++) {
		uint64_t x, ok;

		/* NZCV.Z is set when no number could be had. */
		__asm__ volatile("mrs %0, s3_3_c2_c4_0\n\tcset %1, ne"
				 : "=r"(x), "=r"(ok) : : "cc");
		if (ok) {
			*v = x;
			return true;
		}
	}
	return false;
}
