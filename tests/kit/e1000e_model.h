/* SPDX-License-Identifier: BSD-2-Clause */
/* A modelled Intel 82574L for check_e1000e: its register file and the
 * device's side of the legacy receive and transmit rings, written from
 * the 82574 datasheet's register and descriptor tables (offsets and bits
 * spelled out here, not taken from the driver's file), so that a
 * misreading in the driver is not shared by its test.  The model reads
 * and writes descriptors and buffers through the bus addresses the
 * driver gave it: host memory seen at an offset, so a driver that hands
 * the part a pointer without the platform's translation fails.  It can
 * do what QEMU cannot be made to: malformed descriptors, runt and
 * oversize frames, a full ring, the link going down. */
#ifndef KPROF_TESTS_E1000E_MODEL_H
#define KPROF_TESTS_E1000E_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/e1000e/e1000e.h"

/* Where host memory appears on the modelled bus. */
#define EM_DMA_OFFSET		(1ull << 44)
#define EM_REGS			(0x20000 / 4)	/* BAR 0: 128 KiB */
#define EM_TX_MAX		256

/* Register offsets (datasheet §10.2). */
#define EM_CTRL		0x0000
#define EM_STATUS	0x0008
#define EM_EECD		0x0010
#define EM_ICR		0x00c0
#define EM_IMS		0x00d0
#define EM_IMC		0x00d8
#define EM_RCTL		0x0100
#define EM_TCTL		0x0400
#define EM_RDBAL	0x2800
#define EM_RDBAH	0x2804
#define EM_RDLEN	0x2808
#define EM_RDH		0x2810
#define EM_RDT		0x2818
#define EM_TDBAL	0x3800
#define EM_TDBAH	0x3804
#define EM_TDLEN	0x3808
#define EM_TDH		0x3810
#define EM_TDT		0x3818
#define EM_MPC		0x4010
#define EM_RAL0		0x5400
#define EM_RAH0		0x5404

/* Interrupt causes (ICR, §10.2.4.1). */
#define EM_ICR_LSC	(1u << 2)
#define EM_ICR_RXDMT0	(1u << 4)
#define EM_ICR_RXO	(1u << 6)
#define EM_ICR_RXT0	(1u << 7)

struct em_frame {
	size_t len;
	uint8_t cmd;
	uint8_t data[2048];
};

struct emodel {
	struct e1000e_bus bus;		/* what the platform would hand over */
	uint32_t r[EM_REGS];
	uint32_t ims;			/* the mask IMS/IMC build */
	uint8_t mac[6];
	bool link;			/* the wire */
	bool no_mac;			/* RAH0.AV clear after reset */
	bool stuck_reset;		/* CTRL.RST never clears */
	uint64_t interrupts;		/* a cause raised while unmasked */
	uint64_t bad_dma;		/* descriptor or buffer outside memory */
	uint64_t resets;
	struct em_frame tx[EM_TX_MAX];	/* frames the part sent */
	unsigned ntx;
	/* Called when the driver writes IMS (the poll's unmask). */
	void (*on_ims)(struct emodel *m);
	/* Memory the driver may point the part at: its struct e1000e_mem. */
	void *mem;
	size_t mem_size;
};

/* A part with @mac, link up, in its power-on state. */
void em_init(struct emodel *m, const uint8_t mac[6], void *mem, size_t mem_size);

/* Receive one good frame of @len bytes (CRC already stripped) into the
 * next descriptor the driver gave the part.  False when the ring is full
 * (MPC counts it, ICR.RXO is raised) or the receiver is off. */
bool em_rx_frame(struct emodel *m, const void *frame, size_t len);

/* A misbehaving part: complete the next descriptor as given, @len bytes
 * of @frame copied (at most the 2 KiB buffer) but @len written as the
 * length, with @status and @errors as they are.  False when the ring is
 * full. */
bool em_rx_raw(struct emodel *m, const void *frame, size_t copy, uint16_t len,
	       uint8_t status, uint8_t errors);

/* Send every frame the driver queued (TDH up to TDT), into m->tx.
 * Returns how many. */
unsigned em_tx_consume(struct emodel *m);

/* The cable: STATUS.LU follows, and a link status change is raised. */
void em_set_link(struct emodel *m, bool up);

/* The register as the driver last left it (no side effects). */
uint32_t em_reg(const struct emodel *m, unsigned off);

#endif
