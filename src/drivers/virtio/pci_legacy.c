/* SPDX-License-Identifier: BSD-2-Clause */
/* virtio over PCI, the legacy interface of a transitional device
 * (§4.1.4.10): a block of registers in I/O BAR 0, which the platform
 * reaches (ports on x86) through the struct virtio_bus it hands us.
 * 32 feature bits; each queue one contiguous block at a page frame
 * number, its size the device's. */
#include "drivers/virtio/virtio.h"

#include "drivers/virtio/virtqueue.h"
#include "lib/errno.h"

/* The legacy register block, without MSI-X (§4.1.4.10). */
#define VPCI_DEVICE_FEATURES	0x00	/* 32 */
#define VPCI_DRIVER_FEATURES	0x04	/* 32 */
#define VPCI_QUEUE_ADDRESS	0x08	/* 32, page frame number */
#define VPCI_QUEUE_SIZE		0x0c	/* 16 */
#define VPCI_QUEUE_SELECT	0x0e	/* 16 */
#define VPCI_QUEUE_NOTIFY	0x10	/* 16 */
#define VPCI_DEVICE_STATUS	0x12	/* 8 */
#define VPCI_ISR_STATUS		0x13	/* 8 */
#define VPCI_CONFIG		0x14	/* the device's own */

static uint32_t vpci_read(struct virtio_transport *t, unsigned off, unsigned width)
{
	return t->bus.read(&t->bus, off, width);
}

static void vpci_write(struct virtio_transport *t, unsigned off, unsigned width,
		       uint32_t v)
{
	t->bus.write(&t->bus, off, width, v);
}

static uint8_t vpci_get_status(struct virtio_transport *t)
{
	return (uint8_t)vpci_read(t, VPCI_DEVICE_STATUS, 1);
}

static void vpci_set_status(struct virtio_transport *t, uint8_t status)
{
	vpci_write(t, VPCI_DEVICE_STATUS, 1, status);
}

static uint64_t vpci_get_features(struct virtio_transport *t)
{
	return vpci_read(t, VPCI_DEVICE_FEATURES, 4);
}

static void vpci_set_features(struct virtio_transport *t, uint64_t features)
{
	vpci_write(t, VPCI_DRIVER_FEATURES, 4, (uint32_t)features);
}

static uint8_t vpci_config_read8(struct virtio_transport *t, unsigned off)
{
	return (uint8_t)vpci_read(t, VPCI_CONFIG + off, 1);
}

static unsigned vpci_queue_max(struct virtio_transport *t, unsigned index)
{
	vpci_write(t, VPCI_QUEUE_SELECT, 2, index);
	if (vpci_read(t, VPCI_QUEUE_ADDRESS, 4) != 0)
		return 0;	/* already live */
	return vpci_read(t, VPCI_QUEUE_SIZE, 2);
}

static int vpci_queue_enable(struct virtio_transport *t, struct virtq *q)
{
	uint64_t addr = virtq_desc_addr(q);

	/* One 32-bit page frame number: 16 TiB of reach. */
	if (addr % VIRTQ_LEGACY_ALIGN || addr / VIRTQ_LEGACY_ALIGN > 0xffffffffu)
		return -EINVAL;
	vpci_write(t, VPCI_QUEUE_SELECT, 2, q->index);
	vpci_write(t, VPCI_QUEUE_ADDRESS, 4, (uint32_t)(addr / VIRTQ_LEGACY_ALIGN));
	return 0;
}

static void vpci_notify(struct virtio_transport *t, unsigned index)
{
	vpci_write(t, VPCI_QUEUE_NOTIFY, 2, index);
}

static unsigned vpci_irq_ack(struct virtio_transport *t)
{
	/* Reading the ISR acknowledges: the level line drops (§4.1.4.5). */
	return vpci_read(t, VPCI_ISR_STATUS, 1);
}

static const struct virtio_transport_ops vpci_ops = {
	.get_status = vpci_get_status,
	.set_status = vpci_set_status,
	.get_features = vpci_get_features,
	.set_features = vpci_set_features,
	.config_read8 = vpci_config_read8,
	.queue_max = vpci_queue_max,
	.queue_enable = vpci_queue_enable,
	.notify = vpci_notify,
	.irq_ack = vpci_irq_ack,
};

void virtio_pci_legacy_init(struct virtio_transport *t,
			    const struct virtio_bus *bus)
{
	t->ops = &vpci_ops;
	t->bus = *bus;
	t->legacy = true;
	t->size_fixed = true;
	t->device_id = 0;	/* the PCI device ID says; the platform knows */
}
