/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/trap.h's facts that are the same on every kernel: every
 * instruction is the image's (an address outside it prints as it is),
 * and interrupts run on the interrupted task's stack (arch/<arch>/
 * entry.S), so there is no separate interrupt stack to walk.  Compiled
 * into each kernel's own archive; ksim has its own (sim/trap.c). */
#include "hal/trap.h"

const char *hal_trap_foreign_name(void)
{
	return NULL;
}

void hal_trap_irq_stack(uintptr_t *lo, uintptr_t *hi)
{
	*lo = 0;
	*hi = 0;
}
