/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/netdev.h on an 82574L, written once (e1000e_netdev.c), as
 * virtio_netdev.h is for virtio-net: the device's state and memory, the
 * HAL's present, mac, send and start, and the interrupt's work.  The
 * platform keeps what touches its hardware: finding the part on its bus
 * and mapping its registers, routing its interrupt (MSI where it can),
 * saying where it was. */
#ifndef KPROF_DRIVERS_E1000E_E1000E_NETDEV_H
#define KPROF_DRIVERS_E1000E_E1000E_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/e1000e/e1000e.h"
#include "hal/netdev.h"

/* ---- the platform's side, called by e1000e_netdev.c ---- */

/* Find an 82574L and fill @bus with its register window: true when
 * found and usable, false (having said why when one was found) when
 * not.  Once, on first need. */
bool e1000e_netdev_find(struct e1000e_bus *bus);

/* The driver could not set the found part up (e1000e_probe()'s @err):
 * say so on the console. */
void e1000e_netdev_failed(int err);

/* Route the part's interrupt to the calling CPU and say on the console
 * what was found (@e: its MAC and link) and how it interrupts: true when
 * it does, false when the receive task must poll each tick.  Once, from
 * hal_netdev_start(), before interrupts are unmasked. */
bool e1000e_netdev_route(const struct e1000e *e);

/* ---- the portable side, for the platform ---- */

bool e1000e_netdev_present(void);
void e1000e_netdev_mac(uint8_t mac[6]);
int e1000e_netdev_send(const void *frame, size_t len);
const struct netdev_rx *e1000e_netdev_start(void);

/* The part's interrupt, from the platform's handler: reads (and so
 * clears) its cause register.  The platform then wakes the stack's
 * receive task (net_rx_wake()). */
void e1000e_netdev_irq(void);

#endif
