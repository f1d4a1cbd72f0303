/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/netdev.h on a virtio-net: see virtio_netdev.h.  The interrupt
 * handler only acknowledges, and the platform then wakes the stack's
 * receive task (net_rx_wake(): the stack is above the drivers), which
 * polls the ring (hal/netdev.h); with no usable line the task polls at
 * each tick instead. */
#include "drivers/virtio/virtio_netdev.h"

#include "hal/netdev.h"
#include "lib/errno.h"
#include "lib/kstring.h"

static struct {
	bool present;
	struct virtio_transport t;
	struct virtio_net net;
} vnet;

static struct netdev_rx vnet_rx = { .poll = virtio_net_poll, .dev = &vnet.net };

/* Find the device and have the driver set it up, short of DRIVER_OK
 * (virtio_netdev_start's).  Once, on first need. */
static void vnet_probe(void)
{
	static bool probed;
	int err;

	if (probed)
		return;
	probed = true;
	if (!virtio_netdev_find(&vnet.t))
		return;
	err = virtio_net_probe(&vnet.net, &vnet.t);
	if (err) {
		virtio_netdev_failed(err, &vnet.net);
		return;
	}
	vnet.present = true;
}

bool virtio_netdev_present(void)
{
	vnet_probe();
	return vnet.present;
}

void virtio_netdev_mac(uint8_t mac[6])
{
	if (vnet.present)
		kmemcpy(mac, vnet.net.mac, 6);
	else
		kmemset(mac, 0, 6);
}

int virtio_netdev_send(const void *frame, size_t len)
{
	if (!vnet.present)
		return -ENOSYS;
	return virtio_net_send(&vnet.net, frame, len);
}

void virtio_netdev_irq(void)
{
	virtio_net_irq(&vnet.net);
}

const struct netdev_rx *virtio_netdev_start(void)
{
	vnet_rx.irq = virtio_netdev_route(&vnet.t);
	virtio_net_start(&vnet.net);
	return &vnet_rx;
}
