/* SPDX-License-Identifier: BSD-2-Clause */
/* Between a kernel's network device probe (arch/<arch>/netdev.c) and
 * hal/netdev.h's four functions, written once (netdev_hal.c) for every
 * kernel: the platform chooses the device, the rest calls through its
 * struct netdev_ops (src/drivers/netdev.h). */
#ifndef KPROF_ARCH_COMMON_NETDEV_HAL_H
#define KPROF_ARCH_COMMON_NETDEV_HAL_H

#include "drivers/netdev.h"

/* The platform's: find the NIC to drive and have its driver probe it.
 * The device, or NULL when there is none to drive (having said on the
 * console why, where there was something to say).  Called once, on
 * first need (hal_netdev_present()), in task context on the boot CPU. */
struct netdev *arch_netdev_probe(void);

/* The device's interrupt, from the platform's handler once it knows the
 * line or message is the device's: the driver acknowledges it, then the
 * stack's receive task is woken.  Nothing when no device was chosen. */
void arch_netdev_irq(void);

#endif
