/* ksim's network device (hal/netdev.h): Ethernet frames carried in UDP
 * datagrams on 127.0.0.1, one frame per datagram and nothing else, the
 * framing of QEMU's `-netdev dgram` and `-netdev socket,udp=`.  Frames
 * are sent to 127.0.0.1:net_peer_port and received on
 * 127.0.0.1:net_port from any loopback sender, so a test can inject
 * frames and two ksims (--net A:B and --net B:A) are wired together.
 *
 * Plain C types only: sim/netdev.c (libc side) and sim/netglue.c (kernel
 * side) both include this. */
#ifndef KPROF_SIM_NETDEV_H
#define KPROF_SIM_NETDEV_H

#include <stddef.h>
#include <stdint.h>

/* Open and bind the socket when the configuration asks for a device
 * (sim_config.net_port != 0).  Returns 0, or -1 after saying why on
 * stderr.  From ksim_start(), before the CPUs run. */
int sim_netdev_init(void);

/* Take one waiting frame into @buf of @size bytes without blocking.
 * Returns its length (a longer frame is cut to @size; its length is
 * still returned so that it is counted as oversize; an empty datagram is
 * a frame of 0 bytes, a runt), or -1 when none is waiting.  When the
 * frame says so, *@overflowed becomes the number of datagrams the socket
 * dropped, since it opened, because its queue was full (SO_RXQ_OVFL: the
 * host learns of them with the next datagram it takes).  Called by the
 * receive task only. */
long sim_netdev_recv(void *buf, size_t size, uint32_t *overflowed);

/* Kernel side: start the task that feeds received frames to net_rx(). */
void sim_netdev_start_task(void);

#endif
