/* SPDX-License-Identifier: BSD-2-Clause */
/* The recording fake network device: see fake_netdev.h. */
#include "fake_netdev.h"

#include <errno.h>
#include <string.h>

#include "hal/netdev.h"

bool fake_netdev_present = true;
uint8_t fake_netdev_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
int fake_netdev_send_error;
unsigned fake_netdev_starts;
struct fake_frame fake_netdev_sent[FAKE_NETDEV_FRAMES];
unsigned fake_netdev_nsent;
bool fake_netdev_discard;

void fake_netdev_clear(void)
{
	fake_netdev_nsent = 0;
	fake_netdev_send_error = 0;
}

bool hal_netdev_present(void)
{
	return fake_netdev_present;
}

void hal_netdev_mac(uint8_t mac[6])
{
	memcpy(mac, fake_netdev_mac, 6);
}

int hal_netdev_send(const void *frame, size_t len)
{
	if (fake_netdev_send_error)
		return fake_netdev_send_error;
	if (len > FAKE_NETDEV_FRAME_MAX)
		return -EMSGSIZE;
	if (!fake_netdev_discard && fake_netdev_nsent < FAKE_NETDEV_FRAMES) {
		fake_netdev_sent[fake_netdev_nsent].len = len;
		memcpy(fake_netdev_sent[fake_netdev_nsent].data, frame, len);
	}
	fake_netdev_nsent++;
	return 0;
}

/* No receive side: tests hand frames to net_rx() themselves. */
const struct netdev_rx *hal_netdev_start(void)
{
	fake_netdev_starts++;
	return NULL;
}
