/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/netdev.h on a virtio-net, written once (virtio_netdev.c): the
 * device's state, the HAL's present, mac, send and start, and the
 * interrupt's work.  The platform (arch/<arch>/netdev.c) keeps only what
 * touches its hardware: finding the device on its bus and turning it
 * into a transport, routing its interrupt, and saying where it was.  The
 * hal_netdev_*() are one-line calls of the functions below, written once
 * in arch/common/virtio_hal_netdev.c and compiled into each kernel's own
 * objects (the layer check wants the HAL defined in the backend's). */
#ifndef KPROF_DRIVERS_VIRTIO_VIRTIO_NETDEV_H
#define KPROF_DRIVERS_VIRTIO_VIRTIO_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/virtio/virtio.h"
#include "drivers/virtio/virtio_net.h"
#include "hal/netdev.h"

/* ---- the platform's side, called by virtio_netdev.c ---- */

/* Find a virtio-net and initialise @t as its transport: true when @t is
 * one, false (having said why on the console) when there is none.
 * Once, on first need (hal_netdev_present()). */
bool virtio_netdev_find(struct virtio_transport *t);

/* The driver could not set the found device up (virtio_net_probe()'s
 * @err, @n's queue sizes): say so on the console, naming where it is. */
void virtio_netdev_failed(int err, const struct virtio_net *n);

/* Route the device's interrupt to the calling CPU and say on the
 * console what was found and how it interrupts: true when it does,
 * false when the receive task must poll each tick.  Once, from
 * hal_netdev_start(), before the device is live. */
bool virtio_netdev_route(const struct virtio_transport *t);

/* ---- the portable side, for the platform ---- */

/* hal/netdev.h's functions, with their contracts. */
bool virtio_netdev_present(void);
void virtio_netdev_mac(uint8_t mac[6]);
int virtio_netdev_send(const void *frame, size_t len);
const struct netdev_rx *virtio_netdev_start(void);

/* The device's interrupt, from the platform's handler once it knows the
 * line is this device's: acknowledges the device's interrupt status
 * (which lowers a level line).  The platform then wakes the stack's
 * receive task (net_rx_wake(), hal/entry.h). */
void virtio_netdev_irq(void);

#endif
