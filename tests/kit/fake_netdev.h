/* SPDX-License-Identifier: BSD-2-Clause */
/* A fake network device for logic tests: frames sent are captured in
 * memory, frames received are whatever the test hands to net_rx(). */
#ifndef KPROF_TESTS_FAKE_NETDEV_H
#define KPROF_TESTS_FAKE_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAKE_NETDEV_FRAMES 64
#define FAKE_NETDEV_FRAME_MAX 1600

struct fake_frame {
	size_t len;
	uint8_t data[FAKE_NETDEV_FRAME_MAX];
};

extern bool fake_netdev_present;	/* hal_netdev_present(); true */
extern uint8_t fake_netdev_mac[6];	/* 52:54:00:12:34:56 */
extern int fake_netdev_send_error;	/* non-zero: hal_netdev_send() fails so */
extern unsigned fake_netdev_starts;	/* calls to hal_netdev_start() */

/* Frames sent since fake_netdev_clear(): the first FAKE_NETDEV_FRAMES are
 * kept; fake_netdev_nsent counts them all. */
extern struct fake_frame fake_netdev_sent[FAKE_NETDEV_FRAMES];
extern unsigned fake_netdev_nsent;
/* When set, a sent frame is not kept (fuzz targets: no memory growth). */
extern bool fake_netdev_discard;

void fake_netdev_clear(void);

#endif
