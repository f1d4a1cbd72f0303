/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/netdev.h for a kernel whose network device is a virtio-net: one
 * call each into the portable glue (src/drivers/virtio/virtio_netdev.c).
 * Compiled into the kernel's own archive (arch/arm64/local.mk) rather
 * than src/: the layer check wants every HAL function defined in the
 * backend's objects.  A platform with more than one kind of NIC leaves
 * this file out and defines these four itself, choosing the device its
 * probe found (arch/x86_64/netdev.c: virtio-net or an 82574L). */
#include "hal/netdev.h"

#include "drivers/virtio/virtio_netdev.h"

bool hal_netdev_present(void)
{
	return virtio_netdev_present();
}

void hal_netdev_mac(uint8_t mac[6])
{
	virtio_netdev_mac(mac);
}

int hal_netdev_send(const void *frame, size_t len)
{
	return virtio_netdev_send(frame, len);
}

const struct netdev_rx *hal_netdev_start(void)
{
	return virtio_netdev_start();
}
