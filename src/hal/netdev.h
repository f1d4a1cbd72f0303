/* SPDX-License-Identifier: BSD-2-Clause */
/* The network device: Ethernet frames out and in. */
#ifndef KPROF_HAL_NETDEV_H
#define KPROF_HAL_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest frame either direction: Ethernet header plus a 1500-byte MTU. */
#define HAL_NETDEV_MTU_FRAME 1514

/* Frames a device lost before it could deliver them, so that `net`
 * counts them with the stack's own drops. */
enum net_rx_loss {
	NET_RX_LOST_OVERFLOW,	/* its receive queue (a host socket) was full */
	NET_RX_LOST_SHORT,	/* too short to hold the device's header */
	NET_RX_LOST_BAD_BUFFER,	/* the device returned a buffer not ours, or
				 * a length past the end of ours */
};

/* Where a device's poll puts what it took off its receive ring: the
 * stack's (src/net), handed down so that no driver calls up into it. */
struct netdev_sink {
	/* One received Ethernet frame, valid for the call only. */
	void (*deliver)(const void *frame, size_t len);
	/* @n more frames lost for @why. */
	void (*lost)(enum net_rx_loss why, uint64_t n);
};

/* A device's receive side, as the stack's receive loop drives it: the
 * loop (src/net, one task) owns the pace, the device owns the ring. */
struct netdev_rx {
	/* Hand at most @budget received frames to @sink, one at a time, and
	 * give their buffers back to the device.  Returns how many frames
	 * it handed over (losses do not count).  Less than @budget means
	 * the ring is empty *and* the device's interrupt is on again: the
	 * device re-enabled it and then looked at its ring once more, so a
	 * frame that arrived in between was taken, not left to wait for an
	 * interrupt that was suppressed when it came.  At @budget the
	 * interrupt may stay off; the loop calls again.  Called from the
	 * receive task only. */
	unsigned (*poll)(void *dev, unsigned budget, const struct netdev_sink *sink);
	void *dev;
	/* True when the device interrupts: the loop then sleeps until the
	 * platform calls net_rx_wake() (hal/entry.h).  False: it polls
	 * again at the next tick. */
	bool irq;
};

/* True when the platform has a network device. */
bool hal_netdev_present(void);

/* The device's MAC address.  Any context. */
void hal_netdev_mac(uint8_t mac[6]);

/* Queue one Ethernet frame (header included, no FCS) for sending.
 * Task context; may wait for a free descriptor but never sleeps long.
 * Returns 0, or a negative errno when the frame could not be queued. */
int hal_netdev_send(const void *frame, size_t len);

/* Start receiving.  Called once, by net_start() in task context with the
 * scheduler running.  Returns the device's receive side, which the
 * stack's receive task polls from then on; NULL when frames reach the
 * stack some other way (a test calling net_rx() itself). */
const struct netdev_rx *hal_netdev_start(void);

#endif
