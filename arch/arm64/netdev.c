/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/netdev.h: no network device on arm64 yet (virtio-mmio is a later
 * issue). */
#include "hal/netdev.h"

#include <stddef.h>

#include "lib/errno.h"
#include "lib/kstring.h"

bool hal_netdev_present(void)
{
	return false;
}

void hal_netdev_mac(uint8_t mac[6])
{
	kmemset(mac, 0, 6);
}

int hal_netdev_send(const void *frame, size_t len)
{
	(void)frame;
	(void)len;
	return -ENOENT;
}

/* Never called: net_start() asks hal_netdev_present() first. */
const struct netdev_rx *hal_netdev_start(void)
{
	return NULL;
}
