/* SPDX-License-Identifier: BSD-2-Clause */
/* virtio (OASIS virtio 1.2): what a device driver sees of a device, "a
 * transport and its virtqueues", whichever bus carries it.  The
 * platform finds the device (a PCI scan, a device tree) and hands its
 * register window over as a struct virtio_bus; a transport (PCI legacy,
 * virtio-mmio) turns that into the operations below, and a driver
 * (virtio_net.c) uses nothing else.  Little-endian CPUs only, where the
 * legacy interfaces' native byte order and virtio 1.x's agree. */
#ifndef KPROF_DRIVERS_VIRTIO_VIRTIO_H
#define KPROF_DRIVERS_VIRTIO_VIRTIO_H

#include <stdbool.h>
#include <stdint.h>

struct virtq;

/* Device status bits (§2.1). */
#define VIRTIO_STATUS_ACKNOWLEDGE	1
#define VIRTIO_STATUS_DRIVER		2
#define VIRTIO_STATUS_DRIVER_OK		4
#define VIRTIO_STATUS_FEATURES_OK	8
#define VIRTIO_STATUS_NEEDS_RESET	64
#define VIRTIO_STATUS_FAILED		128

/* The feature bit of virtio 1.x itself (§6): without it, the legacy
 * interface (§6.1, legacy). */
#define VIRTIO_F_VERSION_1		32

/* Device IDs (§5). */
#define VIRTIO_ID_NET			1

/* Interrupt status bits, ISR (PCI) or InterruptStatus (MMIO) (§4.1.4.5,
 * §4.2.2). */
#define VIRTIO_ISR_QUEUE		1
#define VIRTIO_ISR_CONFIG		2

/* How the platform reaches one device.  Filled by the platform, read by
 * the transport; a test fills it with a modelled device. */
struct virtio_bus {
	/* Read or write the register @width bytes wide (1, 2 or 4) at @off
	 * in the device's window: I/O ports from @base (x86 PCI legacy), or
	 * memory-mapped registers (virtio-mmio).  Any context. */
	uint32_t (*read)(const struct virtio_bus *b, unsigned off, unsigned width);
	void (*write)(const struct virtio_bus *b, unsigned off, unsigned width,
		      uint32_t v);
	/* The address the device uses for our memory at @p (x86: the
	 * identity map makes it @p). */
	uint64_t (*dma_addr)(const struct virtio_bus *b, const void *p);
	uintptr_t base;		/* the platform's: a port, an address */
	void *ctx;		/* the platform's, or a test's */
};

struct virtio_transport;

/* What a transport does.  Boot or the driver's own calls, never in
 * parallel with each other (one driver owns one transport). */
struct virtio_transport_ops {
	uint8_t (*get_status)(struct virtio_transport *t);
	void (*set_status)(struct virtio_transport *t, uint8_t status);
	/* The device's feature bits (64 of them; a legacy PCI device has
	 * only the low 32), and the driver's choice among them. */
	uint64_t (*get_features)(struct virtio_transport *t);
	void (*set_features)(struct virtio_transport *t, uint64_t features);
	/* One byte of the device-specific configuration, at @off. */
	uint8_t (*config_read8)(struct virtio_transport *t, unsigned off);
	/* The configuration's generation count (virtio 1.x); NULL, or a
	 * constant, on a legacy interface, which has none. */
	uint32_t (*config_generation)(struct virtio_transport *t);
	/* The size the device offers for queue @index; 0 when it has no
	 * such queue or the queue is already live. */
	unsigned (*queue_max)(struct virtio_transport *t, unsigned index);
	/* Tell the device where queue @q lies (virtq_init() laid it out)
	 * and make it live.  0, or a negative errno when the transport
	 * cannot address it. */
	int (*queue_enable)(struct virtio_transport *t, struct virtq *q);
	/* Tell the device queue @index has new available buffers. */
	void (*notify)(struct virtio_transport *t, unsigned index);
	/* Read the interrupt status (VIRTIO_ISR_*) and acknowledge it, so
	 * that a level line drops.  Interrupt context. */
	unsigned (*irq_ack)(struct virtio_transport *t);
};

struct virtio_transport {
	const struct virtio_transport_ops *ops;
	struct virtio_bus bus;
	/* The legacy interface (PCI legacy, virtio-mmio version 1): no
	 * FEATURES_OK step, each queue one contiguous block at a page
	 * frame number (virtq.h's VIRTQ_LEGACY_ALIGN). */
	bool legacy;
	/* The device fixes the queue size (PCI legacy); else the driver
	 * picks one up to queue_max. */
	bool size_fixed;
	uint32_t device_id;	/* VIRTIO_ID_*, when the transport says */
};

/* PCI legacy (§4.1.4.10): the register block of a transitional
 * device's I/O BAR 0, without MSI-X.  @bus reaches it (ports). */
void virtio_pci_legacy_init(struct virtio_transport *t,
			    const struct virtio_bus *bus);

/* virtio-mmio (§4.2), version 1 (legacy) or 2, as QEMU's -M virt offers
 * it.  Returns 0 with t->device_id set (0: an empty slot); -ENODEV when
 * the window holds no virtio-mmio device (wrong magic), -EINVAL for a
 * version other than 1 or 2. */
int virtio_mmio_init(struct virtio_transport *t, const struct virtio_bus *bus);

/* The start of every driver's initialisation (§3.1.1): reset, then wait
 * (bounded) until the device reads back reset; then ACKNOWLEDGE and
 * DRIVER.  0, or -ETIMEDOUT when the device never came out of reset. */
int virtio_begin(struct virtio_transport *t);

/* Negotiate: accept the device's features that are in @wanted, and
 * VIRTIO_F_VERSION_1 on a non-legacy transport (which must offer it),
 * then, unless legacy, FEATURES_OK and check that it stuck.  Sets
 * *@accepted.  0, or -ENODEV after setting FAILED. */
int virtio_negotiate(struct virtio_transport *t, uint64_t wanted,
		     uint64_t *accepted);

/* Lay out queue @index with at most @want entries, of which the driver
 * uses the first @ndesc, in fresh pages, and make it live.  0; -ENOSPC
 * when the device has no such queue or a smaller one than @ndesc
 * (q->size then says what it offered); -ENOMEM. */
int virtio_queue_setup(struct virtio_transport *t, struct virtq *q,
		       unsigned index, unsigned want, unsigned ndesc);

/* Read @len bytes of the device configuration at @off into @buf, again
 * until the generation count says no change came in between. */
void virtio_config_read(struct virtio_transport *t, unsigned off, void *buf,
			unsigned len);

/* Set status bits @bits on top of those set. */
void virtio_status_add(struct virtio_transport *t, uint8_t bits);

#endif
