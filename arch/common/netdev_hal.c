/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/netdev.h on every kernel: the device arch_netdev_probe() chose,
 * through its struct netdev_ops.  Compiled into each kernel's own
 * archive rather than src/: the layer check wants every HAL function
 * defined in the backend's objects.  ksim has its own (sim/netdev.c:
 * a host socket, no driver). */
#include "netdev_hal.h"

#include "hal/entry.h"
#include "hal/netdev.h"
#include "lib/errno.h"
#include "lib/kstring.h"

static struct netdev *netdev_chosen;

void arch_netdev_irq(void)
{
	struct netdev *d = netdev_chosen;

	if (!d)
		return;
	d->ops->irq(d);
	net_rx_wake();
}

bool hal_netdev_present(void)
{
	static bool probed;

	if (!probed) {
		probed = true;
		netdev_chosen = arch_netdev_probe();
	}
	return netdev_chosen != NULL;
}

void hal_netdev_mac(uint8_t mac[6])
{
	if (netdev_chosen)
		netdev_chosen->ops->mac(netdev_chosen, mac);
	else
		kmemset(mac, 0, 6);
}

int hal_netdev_send(const void *frame, size_t len)
{
	if (!netdev_chosen)
		return -ENOSYS;
	return netdev_chosen->ops->send(netdev_chosen, frame, len);
}

const struct netdev_rx *hal_netdev_start(void)
{
	if (!netdev_chosen)
		return NULL;
	return netdev_chosen->ops->start(netdev_chosen);
}
