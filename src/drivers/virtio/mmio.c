/* SPDX-License-Identifier: BSD-2-Clause */
/* virtio-mmio (§4.2): a window of 32-bit registers, the device's
 * configuration at 0x100.  Version 1 is the legacy interface (§4.2.4:
 * GuestPageSize, QueueAlign, QueuePFN), QEMU's default on -M virt;
 * version 2 is virtio 1.x (QueueDesc/Driver/Device addresses and
 * QueueReady), QEMU's with -global virtio-mmio.force-legacy=false. */
#include "drivers/virtio/virtio.h"

#include "drivers/virtio/virtqueue.h"
#include "hal/mem.h"
#include "lib/errno.h"

/* §4.2.2, and §4.2.4 for the legacy-only registers. */
#define VMMIO_MAGIC_VALUE	0x000
#define VMMIO_VERSION		0x004
#define VMMIO_DEVICE_ID		0x008
#define VMMIO_VENDOR_ID		0x00c
#define VMMIO_DEVICE_FEATURES	0x010
#define VMMIO_DEVICE_FEATURES_SEL 0x014
#define VMMIO_DRIVER_FEATURES	0x020
#define VMMIO_DRIVER_FEATURES_SEL 0x024
#define VMMIO_GUEST_PAGE_SIZE	0x028	/* version 1 */
#define VMMIO_QUEUE_SEL		0x030
#define VMMIO_QUEUE_NUM_MAX	0x034
#define VMMIO_QUEUE_NUM		0x038
#define VMMIO_QUEUE_ALIGN	0x03c	/* version 1 */
#define VMMIO_QUEUE_PFN		0x040	/* version 1 */
#define VMMIO_QUEUE_READY	0x044	/* version 2 */
#define VMMIO_QUEUE_NOTIFY	0x050
#define VMMIO_INTERRUPT_STATUS	0x060
#define VMMIO_INTERRUPT_ACK	0x064
#define VMMIO_STATUS		0x070
#define VMMIO_QUEUE_DESC_LOW	0x080	/* version 2, and _HIGH at +4 */
#define VMMIO_QUEUE_DRIVER_LOW	0x090
#define VMMIO_QUEUE_DEVICE_LOW	0x0a0
#define VMMIO_CONFIG_GENERATION	0x0fc	/* version 2 */
#define VMMIO_CONFIG		0x100

#define VMMIO_MAGIC		0x74726976	/* "virt" */

static uint32_t vmmio_read(struct virtio_transport *t, unsigned off)
{
	return t->bus.read(&t->bus, off, 4);
}

static void vmmio_write(struct virtio_transport *t, unsigned off, uint32_t v)
{
	t->bus.write(&t->bus, off, 4, v);
}

static uint8_t vmmio_get_status(struct virtio_transport *t)
{
	return (uint8_t)vmmio_read(t, VMMIO_STATUS);
}

static void vmmio_set_status(struct virtio_transport *t, uint8_t status)
{
	vmmio_write(t, VMMIO_STATUS, status);
}

static uint64_t vmmio_get_features(struct virtio_transport *t)
{
	uint64_t f;

	vmmio_write(t, VMMIO_DEVICE_FEATURES_SEL, 1);
	f = (uint64_t)vmmio_read(t, VMMIO_DEVICE_FEATURES) << 32;
	vmmio_write(t, VMMIO_DEVICE_FEATURES_SEL, 0);
	return f | vmmio_read(t, VMMIO_DEVICE_FEATURES);
}

static void vmmio_set_features(struct virtio_transport *t, uint64_t features)
{
	vmmio_write(t, VMMIO_DRIVER_FEATURES_SEL, 1);
	vmmio_write(t, VMMIO_DRIVER_FEATURES, (uint32_t)(features >> 32));
	vmmio_write(t, VMMIO_DRIVER_FEATURES_SEL, 0);
	vmmio_write(t, VMMIO_DRIVER_FEATURES, (uint32_t)features);
}

static uint8_t vmmio_config_read8(struct virtio_transport *t, unsigned off)
{
	return (uint8_t)t->bus.read(&t->bus, VMMIO_CONFIG + off, 1);
}

/* Version 1 has no generation count: a constant reads as no change. */
static uint32_t vmmio_config_generation(struct virtio_transport *t)
{
	return t->legacy ? 0 : vmmio_read(t, VMMIO_CONFIG_GENERATION);
}

static unsigned vmmio_queue_max(struct virtio_transport *t, unsigned index)
{
	vmmio_write(t, VMMIO_QUEUE_SEL, index);
	/* §4.2.3.2: a queue already live is not ours to set up. */
	if (vmmio_read(t, t->legacy ? VMMIO_QUEUE_PFN : VMMIO_QUEUE_READY) != 0)
		return 0;
	return vmmio_read(t, VMMIO_QUEUE_NUM_MAX);
}

static void vmmio_write64(struct virtio_transport *t, unsigned off, uint64_t v)
{
	vmmio_write(t, off, (uint32_t)v);
	vmmio_write(t, off + 4, (uint32_t)(v >> 32));
}

static int vmmio_queue_enable(struct virtio_transport *t, struct virtq *q)
{
	uint64_t addr = virtq_desc_addr(q);

	if (t->legacy && (addr % HAL_PAGE_SIZE || addr / HAL_PAGE_SIZE > 0xffffffffu))
		return -EINVAL;
	vmmio_write(t, VMMIO_QUEUE_SEL, q->index);
	vmmio_write(t, VMMIO_QUEUE_NUM, q->size);
	if (t->legacy) {
		/* §4.2.4: the used ring at QueueAlign, the whole queue at
		 * QueuePFN pages of GuestPageSize, written here because a
		 * reset may forget it. */
		vmmio_write(t, VMMIO_GUEST_PAGE_SIZE, HAL_PAGE_SIZE);
		vmmio_write(t, VMMIO_QUEUE_ALIGN, VIRTQ_LEGACY_ALIGN);
		vmmio_write(t, VMMIO_QUEUE_PFN, (uint32_t)(addr / HAL_PAGE_SIZE));
		return 0;
	}
	vmmio_write64(t, VMMIO_QUEUE_DESC_LOW, addr);
	vmmio_write64(t, VMMIO_QUEUE_DRIVER_LOW, virtq_avail_addr(q));
	vmmio_write64(t, VMMIO_QUEUE_DEVICE_LOW, virtq_used_addr(q));
	vmmio_write(t, VMMIO_QUEUE_READY, 1);
	return 0;
}

static void vmmio_notify(struct virtio_transport *t, unsigned index)
{
	vmmio_write(t, VMMIO_QUEUE_NOTIFY, index);
}

static unsigned vmmio_irq_ack(struct virtio_transport *t)
{
	uint32_t isr = vmmio_read(t, VMMIO_INTERRUPT_STATUS);

	if (isr)
		vmmio_write(t, VMMIO_INTERRUPT_ACK, isr);
	return isr;
}

static const struct virtio_transport_ops vmmio_ops = {
	.get_status = vmmio_get_status,
	.set_status = vmmio_set_status,
	.get_features = vmmio_get_features,
	.set_features = vmmio_set_features,
	.config_read8 = vmmio_config_read8,
	.config_generation = vmmio_config_generation,
	.queue_max = vmmio_queue_max,
	.queue_enable = vmmio_queue_enable,
	.notify = vmmio_notify,
	.irq_ack = vmmio_irq_ack,
};

int virtio_mmio_init(struct virtio_transport *t, const struct virtio_bus *bus)
{
	uint32_t version;

	t->bus = *bus;
	if (vmmio_read(t, VMMIO_MAGIC_VALUE) != VMMIO_MAGIC)
		return -ENODEV;
	version = vmmio_read(t, VMMIO_VERSION);
	if (version != 1 && version != 2)
		return -EINVAL;
	t->legacy = version == 1;
	t->ops = &vmmio_ops;
	t->size_fixed = false;
	/* 0: a slot with no device behind it (QEMU fills every slot). */
	t->device_id = vmmio_read(t, VMMIO_DEVICE_ID);
	return 0;
}
