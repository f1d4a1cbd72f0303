/* Bringing the stack up.  Apart from net.c so that a program which only
 * shows the stack's counters (the shell's `net`) links without the
 * device's start-up. */
#include "hal/firmware.h"
#include "hal/netdev.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "net/internal.h"

void net_start(struct out *o)
{
	const struct net_config *c = net_config();
	char ip[16], gw[16];
	int err;

	/* No device, no noise: `net` says "down" to whoever asks. */
	if (!hal_netdev_present())
		return;
	net_reset();
	hal_netdev_start();
	__atomic_store_n(&net_up, true, __ATOMIC_RELEASE);
	out_printf(o, "net: %s/%u gw %s mac %02x:%02x:%02x:%02x:%02x:%02x\n",
		   net_ip_str(c->ip, ip), c->prefix,
		   c->gw ? net_ip_str(c->gw, gw) : "none",
		   net_mac[0], net_mac[1], net_mac[2], net_mac[3], net_mac[4],
		   net_mac[5]);
	err = netsh_start();
	if (err == 0 && c->udpsh_port) {
		out_printf(o, "net: udp shell on port %u for %s%s\n",
			   c->udpsh_port, c->udpsh_allow[0] ? c->udpsh_allow : "nobody",
			   net_udpsh_keyed() ? ", authenticated (HMAC-SHA256)" : "");
		if (!net_udpsh_keyed())
			out_puts(o, UDPSH_UNAUTH_WARNING "\n");
		else
			out_printf(o, "net: udp shell boot nonce from %s\n",
				   net_udpsh_nonce_hw() ? "the CPU's random number generator"
							: "cycle-counter jitter");
	} else if (err == -EKEYREJECTED) {
		out_printf(o, "net: udp shell not started: firmware file %s is not %u-%u bytes in hex\n",
			   HAL_FW_UDPSH_KEY, UDPSH_KEY_MIN, UDPSH_KEY_MAX);
	} else if (err < 0)
		out_printf(o, "net: udp shell not started (error %d)\n", err);
	if (c->gw)
		arp_request(c->gw);
}

