/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/cpu.h's CPU time on a kernel: the cycle clock (x86's TSC, arm64's
 * generic counter) stands in for the CPU's own time.  It counts while
 * the task runs, which is what the scheduler charges; a kernel CPU runs
 * nothing but its tasks, so no time of another program is in it, as it
 * would be in the simulator's (sim/cpu.c: the thread's CPU clock).
 * Compiled into each kernel's own archive, as arch/common/'s other
 * files. */
#include "hal/cpu.h"

uint64_t hal_cpu_time(void)
{
	return hal_cycles();
}

uint64_t hal_cpu_time_per_sec(void)
{
	return hal_cycles_per_sec();
}
