/* SPDX-License-Identifier: BSD-2-Clause */
/* A modelled virtio-net device for check_virtio: its register window
 * on each transport, and the device's side of the split virtqueues,
 * written from the virtio 1.2 specification's tables and QEMU's values,
 * not from the driver's headers, so that a misreading of the spec in
 * the driver is not shared by its test.  The model reads and writes the
 * rings through the bus addresses the driver gave it: the fake
 * machine's RAM (tests/kit/fake_hal.c) seen at 1 GiB, so that a driver that
 * hands the device a pointer without the platform's translation fails. */
#ifndef KPROF_TESTS_VIRTIO_MODEL_H
#define KPROF_TESTS_VIRTIO_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/virtio/virtio.h"

enum vm_kind {
	VM_PCI_LEGACY,		/* transitional virtio-net-pci, I/O BAR 0 */
	VM_MMIO_V1,		/* virtio-mmio, QEMU's default (force-legacy) */
	VM_MMIO_V2,		/* virtio-mmio with force-legacy=false */
};

/* Feature bits the model offers, by number (§5.1.3, §6). */
#define VM_F_MAC		5
#define VM_F_STATUS		16
#define VM_F_VERSION_1		32

#define VM_QUEUES		2	/* receiveq1, transmitq1 (§5.1.2) */
#define VM_TX_MAX		256	/* frames the model keeps */

struct vm_queue {
	unsigned num_max;	/* QueueNumMax (MMIO), Queue Size (PCI) */
	unsigned num;		/* QueueNum, the size in use */
	uint32_t align;		/* QueueAlign (MMIO v1); 4096 on PCI */
	uint32_t pfn;		/* legacy: QueuePFN / Queue Address */
	uint64_t desc, driver, device;	/* version 2 addresses */
	bool ready;		/* version 2 QueueReady */
	uint16_t last_avail;	/* next available entry the device takes */
	uint16_t used_idx;	/* the device's used index */
	uint64_t notifies;	/* QueueNotify writes naming this queue */
};

struct vm_frame {
	size_t len;
	uint8_t data[2048];
	bool hdr_zero;		/* the driver's header was all zeros */
};

struct vmodel {
	enum vm_kind kind;
	uint32_t mmio_version;		/* Version: 1 or 2 by kind */
	uint32_t device_id;		/* DeviceID: 1, network card */
	struct virtio_bus bus;		/* what the platform would hand over */
	uint64_t device_features;
	uint64_t driver_features;
	uint32_t dev_sel, drv_sel;	/* the features' 32-bit halves */
	uint32_t guest_page_size;
	uint32_t queue_sel;
	uint8_t status;
	/* A reset that takes this many reads of Status to show (a
	 * virtio 1.x device may take its time, §2.4); UINT32_MAX: never. */
	uint32_t reset_reads, reset_left;
	uint8_t stale_status;		/* what those reads still show */
	bool refuse_features;		/* clear FEATURES_OK whatever is asked */
	uint32_t isr;
	uint64_t interrupts;		/* used buffer notifications sent */
	uint8_t mac[6];
	struct vm_queue q[VM_QUEUES];
	uint8_t status_log[32];		/* every value written to Status */
	unsigned nstatus;
	struct vm_frame tx[VM_TX_MAX];	/* frames the device sent */
	unsigned ntx;
	uint64_t rx_no_buffer;		/* frames with no receive buffer */
};

/* A device of @kind offering @features (bits by number), in reset. */
void vm_init(struct vmodel *m, enum vm_kind kind, uint64_t features);

/* The header length the device uses: by what was negotiated (§5.1.6). */
unsigned vm_hdr_len(const struct vmodel *m);

/* Receive @len bytes into the next available receive buffer and
 * publish it; an interrupt unless the driver suppressed it.  False when
 * the driver has posted no buffer (counted in rx_no_buffer). */
bool vm_rx_frame(struct vmodel *m, const void *frame, size_t len);

/* A misbehaving device: put {@id, @len} on the receive queue's used
 * ring, as is; with @take_buffer it first takes the next available
 * buffer (whose id it ignores). */
void vm_rx_raw(struct vmodel *m, uint32_t id, uint32_t len, bool take_buffer);

/* Send every frame the driver made available on the transmit queue,
 * into m->tx.  Returns how many. */
unsigned vm_tx_consume(struct vmodel *m);

/* A misbehaving device: put {@id, 0} on the transmit queue's used ring. */
void vm_tx_raw(struct vmodel *m, uint32_t id);

/* The device's flags in the used ring of queue @qi (VIRTQ_USED_F_NO_NOTIFY
 * is bit 0, §2.7.8). */
void vm_set_used_flags(struct vmodel *m, unsigned qi, uint16_t flags);

/* The driver's flags in the available ring of queue @qi (§2.7.6). */
uint16_t vm_avail_flags(const struct vmodel *m, unsigned qi);

/* True when queue @qi is live from the device's side. */
bool vm_queue_live(const struct vmodel *m, unsigned qi);

#endif
