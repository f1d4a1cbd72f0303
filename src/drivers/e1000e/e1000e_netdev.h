/* SPDX-License-Identifier: BSD-2-Clause */
/* An 82574L as a network device (drivers/netdev.h), written once
 * (e1000e_netdev.c), as virtio_netdev.h is for virtio-net: the device's
 * state and memory and its struct netdev_ops.  The platform keeps what
 * touches its hardware: finding the part on its bus and mapping its
 * registers, routing its interrupt (MSI where it can), saying where it
 * was; it hands those down at probe as a struct e1000e_platform. */
#ifndef KPROF_DRIVERS_E1000E_E1000E_NETDEV_H
#define KPROF_DRIVERS_E1000E_E1000E_NETDEV_H

#include <stdbool.h>

#include "drivers/e1000e/e1000e.h"
#include "drivers/netdev.h"

/* What the platform found and what only it can do, for the life of the
 * device (the driver keeps the pointer). */
struct e1000e_platform {
	/* The part's register window, mapped. */
	struct e1000e_bus bus;
	/* The driver could not set the part up (e1000e_probe()'s @err, or
	 * -ENOMEM): say so on the console. */
	void (*failed)(int err);
	/* Route the part's interrupt to the calling CPU and say on the
	 * console what was found (@e: its MAC and link) and how it
	 * interrupts: true when it does, false when the receive task must
	 * poll each tick.  Once, from hal_netdev_start(), before interrupts
	 * are unmasked. */
	bool (*route)(const struct e1000e *e);
};

/* Reset the part behind @p->bus and set its rings up, interrupts
 * masked: the device, or NULL after @p->failed().  Once, on first need
 * (hal_netdev_present()); one part at a time. */
struct netdev *e1000e_netdev_probe(const struct e1000e_platform *p);

#endif
