/* SPDX-License-Identifier: BSD-2-Clause */
/* The steps every virtio driver takes the same way, whatever the
 * transport (§3.1.1): reset, negotiation, queue set-up. */
#include "drivers/virtio/virtio.h"

#include "drivers/virtio/virtqueue.h"
#include "lib/errno.h"

/* Reads of the status after a reset before we give up on the device.  A
 * legacy device resets at once; a virtio 1.x one may take its time
 * (§2.4.2), but not forever. */
#define VIRTIO_RESET_READS 1000000

void virtio_status_add(struct virtio_transport *t, uint8_t bits)
{
	t->ops->set_status(t, (uint8_t)(t->ops->get_status(t) | bits));
}

int virtio_begin(struct virtio_transport *t)
{
	unsigned reads = 0;

	/* §2.4.2: after writing 0 the driver waits for 0 to read back
	 * before it initialises anything. */
	t->ops->set_status(t, 0);
	while (t->ops->get_status(t) != 0)
		if (++reads == VIRTIO_RESET_READS)
			return -ETIMEDOUT;
	t->ops->set_status(t, VIRTIO_STATUS_ACKNOWLEDGE);
	t->ops->set_status(t, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	return 0;
}

int virtio_negotiate(struct virtio_transport *t, uint64_t wanted,
		     uint64_t *accepted)
{
	uint64_t offered = t->ops->get_features(t);
	uint64_t take = offered & wanted & ~(1ull << VIRTIO_F_VERSION_1);

	if (!t->legacy) {
		/* A virtio 1.x transport speaks only to a 1.x driver
		 * (§6.1): no VERSION_1 offered, nothing we can drive. */
		if (!(offered & (1ull << VIRTIO_F_VERSION_1)))
			goto fail;
		take |= 1ull << VIRTIO_F_VERSION_1;
	}
	t->ops->set_features(t, take);
	*accepted = take;
	if (t->legacy)
		return 0;	/* no FEATURES_OK in the legacy interface */
	/* §3.1.1 steps 5-6: the device may refuse our subset. */
	virtio_status_add(t, VIRTIO_STATUS_FEATURES_OK);
	if (!(t->ops->get_status(t) & VIRTIO_STATUS_FEATURES_OK))
		goto fail;
	return 0;
fail:
	virtio_status_add(t, VIRTIO_STATUS_FAILED);
	return -ENODEV;
}

int virtio_queue_setup(struct virtio_transport *t, struct virtq *q,
		       unsigned index, unsigned want, unsigned ndesc)
{
	unsigned max = t->ops->queue_max(t, index), size;
	int err;

	q->size = max;
	if (max == 0 || max < ndesc)
		return -ENOSPC;
	size = max;
	if (!t->size_fixed) {
		/* Ours to pick: a power of two no larger than offered. */
		size = 1;
		while (size * 2 <= max && size * 2 <= want)
			size *= 2;
		if (size < ndesc)
			return -ENOSPC;
	}
	err = virtq_init(q, t, index, size, ndesc,
			 t->legacy ? VIRTQ_LEGACY_ALIGN : VIRTQ_MODERN_ALIGN);
	if (err == 0)
		err = t->ops->queue_enable(t, q);
	if (err == -EINVAL)
		err = -ENOSPC;	/* a size we cannot lay out */
	return err;
}

void virtio_config_read(struct virtio_transport *t, unsigned off, void *buf,
			unsigned len)
{
	uint8_t *p = buf;
	uint32_t gen;

	/* §2.5: a multi-byte field is consistent only when the
	 * generation did not move while it was read. */
	do {
		gen = t->ops->config_generation ? t->ops->config_generation(t) : 0;
		for (unsigned i = 0; i < len; i++)
			p[i] = t->ops->config_read8(t, off + i);
	} while (t->ops->config_generation && gen != t->ops->config_generation(t));
}
