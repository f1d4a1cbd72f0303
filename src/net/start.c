/* SPDX-License-Identifier: BSD-2-Clause */
/* Bringing the stack up.  Apart from net.c so that a program which only
 * shows the stack's counters (the shell's `net`) links without the
 * device's start-up. */
#include "hal/netdev.h"
#include "lib/out.h"
#include "net/internal.h"

void net_start(struct out *o)
{
	const struct net_config *c = net_config();
	char ip[16], gw[16];

	/* No device, no noise: `net` says "down" to whoever asks. */
	if (!hal_netdev_present())
		return;
	net_reset();
	net_rx_start(hal_netdev_start());
	__atomic_store_n(&net_up, true, __ATOMIC_RELEASE);
	out_printf(o, "net: %s/%u gw %s mac %02x:%02x:%02x:%02x:%02x:%02x\n",
		   net_ip_str(c->ip, ip), c->prefix,
		   c->gw ? net_ip_str(c->gw, gw) : "none",
		   net_mac[0], net_mac[1], net_mac[2], net_mac[3], net_mac[4],
		   net_mac[5]);
	if (c->gw)
		arp_request(c->gw);
}

