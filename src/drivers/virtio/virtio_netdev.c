/* SPDX-License-Identifier: BSD-2-Clause */
/* A virtio-net as a network device: see virtio_netdev.h.  The interrupt
 * handler only acknowledges, and the platform then wakes the stack's
 * receive task, which polls the ring (hal/netdev.h); with no usable line
 * the task polls at each tick instead. */
#include "drivers/virtio/virtio_netdev.h"

#include "hal/netdev.h"
#include "lib/kstring.h"

static struct {
	struct netdev dev;
	const struct virtio_netdev_platform *plat;
	struct virtio_net net;
} vnet;

static struct netdev_rx vnet_rx = { .poll = virtio_net_poll, .dev = &vnet.net };

static void vnet_mac(struct netdev *d, uint8_t mac[6])
{
	(void)d;
	kmemcpy(mac, vnet.net.mac, 6);
}

static int vnet_send(struct netdev *d, const void *frame, size_t len)
{
	(void)d;
	return virtio_net_send(&vnet.net, frame, len);
}

static void vnet_irq(struct netdev *d)
{
	(void)d;
	virtio_net_irq(&vnet.net);
}

static const struct netdev_rx *vnet_start(struct netdev *d)
{
	(void)d;
	vnet_rx.irq = vnet.plat->route(vnet.plat->t);
	virtio_net_start(&vnet.net);
	return &vnet_rx;
}

static const struct netdev_ops vnet_ops = {
	.mac = vnet_mac,
	.send = vnet_send,
	.start = vnet_start,
	.irq = vnet_irq,
};

struct netdev *virtio_netdev_probe(const struct virtio_netdev_platform *p)
{
	int err;

	if (vnet.plat)
		return NULL;	/* one at a time: the state is this file's */
	err = virtio_net_probe(&vnet.net, p->t);
	if (err) {
		p->failed(err, &vnet.net);
		return NULL;
	}
	vnet.plat = p;
	vnet.dev.ops = &vnet_ops;
	vnet.dev.driver = "virtio-net";
	return &vnet.dev;
}
