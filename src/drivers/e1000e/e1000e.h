/* SPDX-License-Identifier: BSD-2-Clause */
/* The Intel 82574L (PCI 8086:10D3, QEMU's -device e1000e): one receive
 * and one transmit ring of legacy descriptors (datasheet §3.2.4, §3.3.3:
 * 16 bytes each, the format the part uses while RFCTL.EXSTEN and
 * RCTL.DTYP are 0), a 2 KiB buffer per descriptor, the MAC from RAL0/RAH0
 * (loaded from the NVM at reset), link state from STATUS.LU.
 *
 * The platform finds the part and hands over its register window
 * (BAR 0, 128 KiB of 32-bit registers) and the memory the rings and
 * buffers live in; this file knows no bus, no interrupt controller and
 * no allocator, so the hosted model (tests/kit/e1000e_model.c) drives it as
 * the hardware would.  Nothing here locks: the caller serialises sends
 * (e1000e_netdev.c holds a spinlock), and polls come from the one
 * receive task. */
#ifndef KPROF_DRIVERS_E1000E_E1000E_H
#define KPROF_DRIVERS_E1000E_E1000E_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct netdev_sink;

#define E1000E_VENDOR		0x8086
#define E1000E_DEVICE		0x10d3	/* 82574L */

/* Ring sizes: a multiple of 8 descriptors (RDLEN/TDLEN must be a
 * multiple of 128 bytes). */
#define E1000E_RX_DESCS		128
#define E1000E_TX_DESCS		64
/* RCTL.BSIZE 00 with BSEX 0: 2048-byte receive buffers. */
#define E1000E_BUF_SIZE		2048

/* A legacy descriptor: receive (§3.2.4) and transmit (§3.3.3) share the
 * layout's first 8 bytes, the buffer's bus address. */
struct e1000e_rx_desc {
	uint64_t addr;
	uint16_t length;
	uint16_t csum;
	uint8_t status;
	uint8_t errors;
	uint16_t special;
};

struct e1000e_tx_desc {
	uint64_t addr;
	uint16_t length;
	uint8_t cso;
	uint8_t cmd;
	uint8_t status;
	uint8_t css;
	uint16_t special;
};

/* The memory the device reads and writes: rings first (128-byte aligned,
 * as the base registers want at least 16), then buffers.  The platform
 * provides it zeroed, from memory the device can reach. */
struct e1000e_mem {
	struct e1000e_rx_desc rx[E1000E_RX_DESCS] __attribute__((aligned(128)));
	struct e1000e_tx_desc tx[E1000E_TX_DESCS] __attribute__((aligned(128)));
	uint8_t rx_buf[E1000E_RX_DESCS][E1000E_BUF_SIZE];
	uint8_t tx_buf[E1000E_TX_DESCS][E1000E_BUF_SIZE];
};

/* The register window, as the platform gives it. */
struct e1000e_bus {
	uint32_t (*read)(const struct e1000e_bus *b, unsigned off);
	void (*write)(const struct e1000e_bus *b, unsigned off, uint32_t v);
	/* The device's address of our memory at @p. */
	uint64_t (*dma_addr)(const struct e1000e_bus *b, const void *p);
	/* Wait about @us microseconds (the reset's settling time); NULL
	 * where there is nothing to wait for (the hosted model). */
	void (*delay_us)(const struct e1000e_bus *b, unsigned us);
	uintptr_t base;
	void *ctx;
};

/* What the driver counted.  Every frame the part hands over is either
 * delivered or counted here once, by its first fault. */
struct e1000e_stats {
	uint64_t rx_frames;	/* handed to the sink */
	uint64_t rx_runt;	/* shorter than an Ethernet header */
	uint64_t rx_oversize;	/* longer than HAL_NETDEV_MTU_FRAME */
	uint64_t rx_bad_desc;	/* a length past our buffer, or a frame
				 * spread over descriptors (no EOP) */
	uint64_t rx_errors;	/* the part flagged it (CRC, symbol, ...) */
	uint64_t rx_missed;	/* MPC: no free descriptor, the part dropped it */
	uint64_t tx_frames;
	uint64_t tx_link_down;	/* sends refused while the link was down */
	uint64_t tx_ring_full;	/* sends refused with every descriptor busy */
	uint64_t link_changes;	/* LSC interrupts seen */
};

struct e1000e {
	struct e1000e_bus bus;
	struct e1000e_mem *mem;
	uint64_t mem_dma;	/* bus address of mem */
	uint8_t mac[6];
	bool link_up;
	bool skipping;		/* inside a frame without EOP: drop to its end */
	unsigned rx_next;	/* next descriptor the part will complete */
	unsigned tx_next;	/* next descriptor we fill */
	unsigned tx_clean;	/* oldest descriptor not yet seen done */
	struct e1000e_stats stats;
};

/* Reset the part behind @bus (bounded wait for CTRL.RST to clear), mask
 * its interrupts, read the MAC, set both rings up in @mem and turn the
 * receiver and transmitter on with the link asked up.  0; -ETIMEDOUT
 * when the reset never ends; -ENODEV when the part holds no valid MAC.
 * Interrupts stay masked until e1000e_start(). */
int e1000e_probe(struct e1000e *e, const struct e1000e_bus *bus, struct e1000e_mem *mem);

/* Unmask the receive, overrun and link interrupts. */
void e1000e_start(struct e1000e *e);

/* Queue one frame: copy it into the next free descriptor's buffer and
 * move the tail.  -EINVAL for a frame over the MTU or empty; -ENETDOWN
 * with the link down; -EAGAIN when every descriptor is still the
 * part's.  The caller serialises calls. */
int e1000e_send(struct e1000e *e, const void *frame, size_t len);

/* struct netdev_rx's poll (hal/netdev.h), @dev a struct e1000e. */
unsigned e1000e_poll(void *dev, unsigned budget, const struct netdev_sink *sink);

/* The interrupt: read ICR (which clears it and lowers an INTx line),
 * note a link change.  True when the part had a cause set. */
bool e1000e_irq(struct e1000e *e);

/* STATUS.LU, read now (and remembered). */
bool e1000e_link_up(struct e1000e *e);

#endif
