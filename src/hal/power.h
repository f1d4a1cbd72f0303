/* SPDX-License-Identifier: BSD-2-Clause */
/* Turning the machine off. */
#ifndef KPROF_HAL_POWER_H
#define KPROF_HAL_POWER_H

/* End the machine with exit status @status: the simulator exits with it,
 * a kernel powers off (or ends QEMU through its debug-exit device with a
 * status derived from it).  Console output written before is not lost.
 * Task context on any CPU; never returns. */
void hal_power_off(int status) __attribute__((noreturn));

#endif
