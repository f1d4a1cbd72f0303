/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel's own software events: what the kernel counts itself, per
 * CPU, on every platform, exactly -- as Linux counts its software events.
 * Each is a 64-bit count that only its CPU advances (a relaxed store of
 * one more; read from anywhere with a relaxed load), never reset, so a
 * reader takes differences like a counter that never wraps.  `stat`
 * reads them beside the hardware's (prof/events.h), and they are the
 * truths its tests hold, since they count where no PMU does. */
#ifndef KPROF_KERNEL_KEVENTS_H
#define KPROF_KERNEL_KEVENTS_H

#include <stdint.h>

enum kevent {
	KEV_CONTEXT_SWITCHES,	/* switches from one task to another */
	KEV_TICKS,		/* ticks taken (kernel_tick) */
	KEV_INTERRUPTS,		/* maskable interrupts taken, the tick's too */
	KEV_NMIS,		/* entries to kernel_nmi() */
	KEV_NET_RX_FRAMES,	/* frames handed to net_rx() */
	KEV_NET_TX_FRAMES,	/* frames the device took to send */
	KEV_COUNT
};

/* The event's name as `events` and `stat` print it ("context-switches"),
 * and what it counts, in a few words. */
const char *kevent_name(enum kevent e);
const char *kevent_what(enum kevent e);

/* One more @e on the calling CPU.  Any context on that CPU (interrupts
 * and NMIs included: a CPU's own count is only ever advanced by itself,
 * and an NMI that lands between the load and the store of a tick's
 * increment would lose one, so each is a single atomic add). */
void kevent_count(enum kevent e);

/* CPU @cpu's count of @e since boot.  Any context. */
uint64_t kevent_read(unsigned cpu, enum kevent e);

#endif
