/* SPDX-License-Identifier: BSD-2-Clause */
/* virtio-net: see virtio_net.h. */
#include "drivers/virtio/virtio_net.h"

#include "drivers/virtio/virtio.h"
#include "hal/mem.h"
#include "hal/netdev.h"
#include "kernel/page.h"
#include "lib/errno.h"
#include "lib/kstring.h"

/* Reclaim attempts virtio_net_send() makes before giving up. */
#define VIRTIO_NET_TX_SPINS	100000
/* The device's configuration: the MAC first (§5.1.4). */
#define VIRTIO_NET_CFG_MAC	0

int virtio_net_probe(struct virtio_net *n, struct virtio_transport *t)
{
	int err;

	n->t = t;
	n->rx.size = n->tx.size = 0;
	spin_init(&n->tx_lock);
	err = virtio_begin(t);
	if (err)
		return err;
	err = virtio_negotiate(t, 1ull << VIRTIO_NET_F_MAC, &n->features);
	if (err)
		return err;
	n->hdr_len = n->features & (1ull << VIRTIO_F_VERSION_1) ?
		     VIRTIO_NET_HDR_V1 : VIRTIO_NET_HDR_LEGACY;
	if (n->features & (1ull << VIRTIO_NET_F_MAC)) {
		virtio_config_read(t, VIRTIO_NET_CFG_MAC, n->mac, 6);
	} else {
		static const uint8_t fallback[6] = { 0x52, 1, 2, 3, 4, 5 };

		kmemcpy(n->mac, fallback, 6);
	}
	err = virtio_queue_setup(t, &n->rx, 0, 256, VIRTIO_NET_RX_BUFS);
	if (!err)
		err = virtio_queue_setup(t, &n->tx, 1, 256, VIRTIO_NET_TX_BUFS);
	if (!err) {
		n->rx_bufs = page_alloc(VIRTIO_NET_RX_BUFS * VIRTIO_NET_BUF_SIZE / HAL_PAGE_SIZE);
		n->tx_bufs = page_alloc(VIRTIO_NET_TX_BUFS * VIRTIO_NET_BUF_SIZE / HAL_PAGE_SIZE);
		if (!n->rx_bufs || !n->tx_bufs)
			err = -ENOMEM;
	}
	if (err) {
		virtio_status_add(t, VIRTIO_STATUS_FAILED);
		return err;
	}
	for (unsigned i = 0; i < VIRTIO_NET_RX_BUFS; i++) {
		uint8_t *b = n->rx_bufs + i * VIRTIO_NET_BUF_SIZE;

		virtq_add(&n->rx, b, VIRTIO_NET_BUF_SIZE, true, b);
	}
	n->tx_nfree = 0;
	for (unsigned i = 0; i < VIRTIO_NET_TX_BUFS; i++)
		n->tx_free[n->tx_nfree++] = n->tx_bufs + i * VIRTIO_NET_BUF_SIZE;
	/* Transmit completions are reclaimed by the next send: their
	 * interrupts would only wake the receive loop for nothing. */
	virtq_disable_irq(&n->tx);
	return 0;
}

void virtio_net_start(struct virtio_net *n)
{
	virtio_status_add(n->t, VIRTIO_STATUS_DRIVER_OK);
	virtq_kick(&n->rx);
}

/* Take back the transmit buffers the device is done with.  Under
 * tx_lock. */
static void virtio_net_tx_reclaim(struct virtio_net *n)
{
	void *buf;
	uint32_t len;
	int r;

	while ((r = virtq_get(&n->tx, &buf, &len)) != 0)
		if (r != -EIO)
			n->tx_free[n->tx_nfree++] = buf;
}

int virtio_net_send(struct virtio_net *n, const void *frame, size_t len)
{
	unsigned long flags;
	uint8_t *buf;

	if (len > HAL_NETDEV_MTU_FRAME)
		return -EINVAL;
	flags = spin_lock_irqsave(&n->tx_lock);
	for (unsigned spins = 0; n->tx_nfree == 0; spins++) {
		if (spins == VIRTIO_NET_TX_SPINS) {
			spin_unlock_irqrestore(&n->tx_lock, flags);
			return -EAGAIN;
		}
		virtio_net_tx_reclaim(n);
	}
	buf = n->tx_free[--n->tx_nfree];
	kmemset(buf, 0, n->hdr_len);
	kmemcpy(buf + n->hdr_len, frame, len);
	virtq_add(&n->tx, buf, (uint32_t)(n->hdr_len + len), false, buf);
	virtq_kick(&n->tx);
	virtio_net_tx_reclaim(n);
	spin_unlock_irqrestore(&n->tx_lock, flags);
	return 0;
}

/* Hand one used receive buffer to @sink (or count why not) and post it
 * again.  Returns true when a frame was delivered. */
static bool virtio_net_rx_one(struct virtio_net *n, int got, uint8_t *buf,
			      uint32_t len, const struct netdev_sink *sink)
{
	bool delivered = false;

	if (got == -EIO) {
		/* Not a buffer of ours: nothing to read, nothing to post. */
		sink->lost(NET_RX_LOST_BAD_BUFFER, 1);
		return false;
	}
	if (got < 0) {
		sink->lost(NET_RX_LOST_BAD_BUFFER, 1);	/* past our buffer */
	} else if (len < n->hdr_len) {
		sink->lost(NET_RX_LOST_SHORT, 1);	/* an empty frame is the stack's runt */
	} else {
		sink->deliver(buf + n->hdr_len, len - n->hdr_len);
		delivered = true;
	}
	virtq_add(&n->rx, buf, VIRTIO_NET_BUF_SIZE, true, buf);
	return delivered;
}

/* Hand used receive buffers to @sink until @budget frames went or the
 * ring is empty; *@posted counts buffers given back.  Returns the frames
 * delivered.  Neither inlined nor cloned (noipa), so that profiles of
 * the receive task name it (the QEMU test looks for it by this name). */
static __attribute__((noipa)) unsigned vnet_rx_drain(struct virtio_net *n,
						    unsigned budget,
						    const struct netdev_sink *sink,
						    unsigned *posted)
{
	unsigned done = 0;
	void *buf;
	uint32_t len;
	int got;

	while (done < budget && (got = virtq_get(&n->rx, &buf, &len)) != 0) {
		done += virtio_net_rx_one(n, got, buf, len, sink);
		*posted += got != -EIO;
	}
	return done;
}

/* Interrupts stay off while the ring has frames; they come back on only
 * before a last look at the ring (NAPI's order), so a frame that lands
 * between the drain and the re-enable is taken here rather than left
 * waiting for an interrupt the device was told not to send. */
unsigned virtio_net_poll(void *dev, unsigned budget, const struct netdev_sink *sink)
{
	struct virtio_net *n = dev;
	unsigned done = 0, posted = 0;

	virtq_disable_irq(&n->rx);
	for (;;) {
		done += vnet_rx_drain(n, budget - done, sink, &posted);
		if (done == budget || virtq_enable_irq(&n->rx))
			break;
		virtq_disable_irq(&n->rx);
	}
	if (posted)
		virtq_kick(&n->rx);
	return done;
}

bool virtio_net_irq(struct virtio_net *n)
{
	return n->t->ops->irq_ack(n->t) != 0;
}
