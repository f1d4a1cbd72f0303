/* The network device: Ethernet frames out and in. */
#ifndef KPROF_HAL_NETDEV_H
#define KPROF_HAL_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest frame either direction: Ethernet header plus a 1500-byte MTU. */
#define HAL_NETDEV_MTU_FRAME 1514

/* True when the platform has a network device. */
bool hal_netdev_present(void);

/* The device's MAC address.  Any context. */
void hal_netdev_mac(uint8_t mac[6]);

/* Queue one Ethernet frame (header included, no FCS) for sending.
 * Task context; may wait for a free descriptor but never sleeps long.
 * Returns 0, or a negative errno when the frame could not be queued. */
int hal_netdev_send(const void *frame, size_t len);

/* Start receiving.  Called once, by net_start() in task context with the
 * scheduler running.  From then on the platform calls net_rx()
 * (hal/entry.h) with every frame it receives, from a task of its own
 * (never an interrupt handler), one frame at a time. */
void hal_netdev_start(void);

#endif
