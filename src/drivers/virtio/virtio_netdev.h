/* SPDX-License-Identifier: BSD-2-Clause */
/* A virtio-net as a network device (drivers/netdev.h), written once
 * (virtio_netdev.c): the device's state and its struct netdev_ops.  The
 * platform (arch/<arch>/netdev.c) keeps only what touches its hardware:
 * finding the device on its bus and turning it into a transport,
 * routing its interrupt, and saying where it was; it hands those down
 * at probe as a struct virtio_netdev_platform. */
#ifndef KPROF_DRIVERS_VIRTIO_VIRTIO_NETDEV_H
#define KPROF_DRIVERS_VIRTIO_VIRTIO_NETDEV_H

#include <stdbool.h>

#include "drivers/netdev.h"
#include "drivers/virtio/virtio.h"
#include "drivers/virtio/virtio_net.h"

/* What the platform found and what only it can do, for the life of the
 * device (the driver keeps the pointer). */
struct virtio_netdev_platform {
	/* The device, as a transport the platform initialised. */
	struct virtio_transport *t;
	/* The driver could not set the device up (virtio_net_probe()'s
	 * @err, @n's queue sizes): say so on the console, naming where it
	 * is. */
	void (*failed)(int err, const struct virtio_net *n);
	/* Route the device's interrupt to the calling CPU and say on the
	 * console what was found and how it interrupts: true when it does,
	 * false when the receive task must poll each tick.  Once, from
	 * hal_netdev_start(), before the device is live. */
	bool (*route)(const struct virtio_transport *t);
};

/* Set up the virtio-net behind @p->t, short of DRIVER_OK (the device's
 * start): the device, or NULL after @p->failed().  Once, on first need
 * (hal_netdev_present()); one device at a time. */
struct netdev *virtio_netdev_probe(const struct virtio_netdev_platform *p);

#endif
