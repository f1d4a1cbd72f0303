/* SPDX-License-Identifier: BSD-2-Clause */
/* A network device as an object: what a driver's probe returns, and what
 * the platform (arch/common/netdev_hal.c) calls hal/netdev.h's four
 * functions through, whichever driver serves the NIC it found.  A driver
 * (src/drivers/virtio/virtio_netdev.c, src/drivers/e1000e/
 * e1000e_netdev.c) fills one struct netdev_ops; the platform finds the
 * device on its bus and hands the driver, at probe, a struct of what
 * only it can do (the register window, the calls that route the
 * interrupt and say where the device is), so that no driver calls the
 * platform by name (tests/check-layers).  Models: Linux's
 * net_device_ops, SerenityOS's NetworkAdapter subclasses. */
#ifndef KPROF_DRIVERS_NETDEV_H
#define KPROF_DRIVERS_NETDEV_H

#include <stddef.h>
#include <stdint.h>

struct netdev;
struct netdev_rx;

/* hal/netdev.h's contracts, for device @d. */
struct netdev_ops {
	void (*mac)(struct netdev *d, uint8_t mac[6]);
	int (*send)(struct netdev *d, const void *frame, size_t len);
	/* Route the interrupt, say on the console what was found and start
	 * the device: once, from hal_netdev_start(). */
	const struct netdev_rx *(*start)(struct netdev *d);
	/* The device's interrupt, from the platform's handler once it knows
	 * the line is this device's: acknowledges it (which lowers a level
	 * line).  The platform then wakes the stack's receive task
	 * (net_rx_wake(), hal/entry.h: the stack is above the drivers). */
	void (*irq)(struct netdev *d);
};

/* One device, embedded in its driver's state. */
struct netdev {
	const struct netdev_ops *ops;
	const char *driver;	/* "virtio-net", "e1000e": for messages */
};

#endif
