/* SPDX-License-Identifier: BSD-2-Clause */
/* ksim's network device (hal/netdev.h): Ethernet frames carried in UDP
 * datagrams on 127.0.0.1, one frame per datagram and nothing else, the
 * framing of QEMU's `-netdev dgram` and `-netdev socket,udp=`.  Frames
 * are sent to 127.0.0.1:net_peer_port and received on
 * 127.0.0.1:net_port from any loopback sender, so a test can inject
 * frames and two ksims (--net A:B and --net B:A) are wired together.
 * The device's poll (hal/netdev.h) reads that socket: the stack's
 * receive loop calls it, so nothing of the kernel is needed here. */
#ifndef KPROF_SIM_NETDEV_H
#define KPROF_SIM_NETDEV_H

#include <stddef.h>
#include <stdint.h>

/* Open and bind the socket when the configuration asks for a device
 * (sim_config.net_port != 0).  Returns 0, or -1 after saying why on
 * stderr.  From ksim_start(), before the CPUs run. */
int sim_netdev_init(void);

#endif
