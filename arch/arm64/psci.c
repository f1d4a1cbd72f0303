/* SPDX-License-Identifier: BSD-2-Clause */
/* PSCI calls through the conduit the device tree names: hvc, or smc
 * where QEMU emulates EL2 (virtualization=on) and so its PSCI sits at
 * EL3. */
#include "a64.h"

int64_t a64_psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fn;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;

	/* SMCCC: x0-x3 carry results, x4-x17 may be clobbered. */
	if (a64_machine.psci_smc)
		__asm__ volatile("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
				 : : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11",
				   "x12", "x13", "x14", "x15", "x16", "x17", "memory");
	else
		__asm__ volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
				 : : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11",
				   "x12", "x13", "x14", "x15", "x16", "x17", "memory");
	return (int64_t)x0;
}
