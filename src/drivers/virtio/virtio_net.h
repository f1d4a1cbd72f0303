/* SPDX-License-Identifier: BSD-2-Clause */
/* virtio-net (§5.1) on "a transport and two virtqueues": queue 0
 * receives, queue 1 transmits, every buffer one descriptor holding the
 * virtio_net_hdr and one whole frame (no mergeable buffers, no
 * offloads).  The platform finds the device, sets its transport up and
 * calls these; the stack reaches the receive side through a struct
 * netdev_rx (hal/netdev.h) whose poll is virtio_net_poll(). */
#ifndef KPROF_DRIVERS_VIRTIO_VIRTIO_NET_H
#define KPROF_DRIVERS_VIRTIO_VIRTIO_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/virtio/virtqueue.h"
#include "lib/spinlock.h"

struct netdev_sink;
struct virtio_transport;

#define VIRTIO_NET_F_MAC	5	/* the device configuration has a MAC */

/* Buffers the driver posts, whatever the queue size (QEMU: 256). */
#define VIRTIO_NET_RX_BUFS	128
#define VIRTIO_NET_TX_BUFS	64
#define VIRTIO_NET_BUF_SIZE	2048
/* The header before each frame (§5.1.6): 10 bytes in the legacy
 * interface, 12 (num_buffers too) once VIRTIO_F_VERSION_1 is taken. */
#define VIRTIO_NET_HDR_LEGACY	10
#define VIRTIO_NET_HDR_V1	12

struct virtio_net {
	struct virtio_transport *t;
	uint64_t features;	/* what we accepted */
	unsigned hdr_len;	/* from the features, never a constant */
	uint8_t mac[6];
	struct virtq rx, tx;
	uint8_t *rx_bufs, *tx_bufs;
	uint8_t *tx_free[VIRTIO_NET_TX_BUFS];	/* buffers not in flight */
	unsigned tx_nfree;
	struct spinlock tx_lock;
};

/* Reset the device behind @t, negotiate, read the MAC, set both queues
 * up and post every receive buffer: all short of DRIVER_OK.  0; -ENOSPC
 * when a queue is missing or too small (n->rx.size and n->tx.size then
 * say what the device offered, 0 for a queue not reached); -ENOMEM;
 * -ENODEV or -ETIMEDOUT when the device will not be driven.  Boot, task
 * context. */
int virtio_net_probe(struct virtio_net *n, struct virtio_transport *t);

/* DRIVER_OK, and tell the device of the receive buffers. */
void virtio_net_start(struct virtio_net *n);

/* Queue one frame for sending: a free buffer behind a zero header.  With
 * none free, reclaim what the device finished, a bounded number of
 * times, then -EAGAIN.  -EINVAL for a frame over the MTU.  Any task, any
 * CPU (a spinlock, interrupts off). */
int virtio_net_send(struct virtio_net *n, const void *frame, size_t len);

/* struct netdev_rx's poll (hal/netdev.h), @dev a struct virtio_net. */
unsigned virtio_net_poll(void *dev, unsigned budget, const struct netdev_sink *sink);

/* The device's interrupt: read and acknowledge its status.  True when
 * it was the device's (then wake the receive loop).  Interrupt
 * context. */
bool virtio_net_irq(struct virtio_net *n);

#endif
