/* SPDX-License-Identifier: BSD-2-Clause */
/* The split virtqueue (virtio 1.2 §2.7), apart from any transport: the
 * descriptor table, the available ring the driver fills, the used ring
 * the device fills, the free list of descriptors, notification and its
 * suppression in both directions.  One driver context owns a queue (its
 * caller serialises: a lock, or one task). */
#ifndef KPROF_DRIVERS_VIRTIO_VIRTQUEUE_H
#define KPROF_DRIVERS_VIRTIO_VIRTQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct virtio_transport;

/* §2.7.5 */
struct virtq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

#define VIRTQ_DESC_F_NEXT		1
#define VIRTQ_DESC_F_WRITE		2	/* the device writes the buffer */

/* §2.7.8 */
struct virtq_used_elem {
	uint32_t id;		/* head of the descriptor chain */
	uint32_t len;		/* bytes the device wrote into it */
};

/* §2.7.7 and §2.7.10: the driver asks for no interrupt; the device asks
 * for no notification.  Hints, both ways. */
#define VIRTQ_AVAIL_F_NO_INTERRUPT	1
#define VIRTQ_USED_F_NO_NOTIFY		1

/* The legacy layout (§2.7.2, legacy interfaces): the used ring starts at
 * the next multiple of the queue alignment, 4096, so that the whole
 * queue is one page frame number.  virtio 1.x places the three parts
 * freely; they only need their own alignment (§2.7: 16, 2, 4). */
#define VIRTQ_LEGACY_ALIGN		4096
#define VIRTQ_MODERN_ALIGN		4

/* What the driver knows of each descriptor it owns, kept apart from the
 * table the device reads so that nothing the device does can change it. */
struct virtq_slot {
	void *token;		/* the driver's, NULL while free */
	uint32_t len;		/* the buffer's length */
	bool writable;		/* the device writes it (receive) */
	uint16_t next_free;
};

struct virtq {
	struct virtio_transport *t;
	unsigned index;		/* the device's queue number */
	unsigned size;		/* entries of the rings: the device's offer
				 * or our choice (a power of two) */
	unsigned ndesc;		/* descriptors the driver uses, <= size */
	struct virtq_desc *desc;
	volatile uint16_t *avail;	/* flags, idx, ring[size], used_event */
	volatile uint16_t *used;	/* flags, idx, elements, avail_event */
	size_t used_off;		/* from desc: where the used ring is */
	void *mem;
	size_t mem_pages;
	struct virtq_slot *slot;
	size_t slot_pages;
	uint16_t avail_idx;	/* next available entry (free-running) */
	uint16_t last_used;	/* used entries taken so far */
	uint16_t free_head;
	unsigned num_free;
	/* Used entries rejected: an id that is no descriptor of ours in
	 * flight, a length past the end of the buffer. */
	uint64_t bad_id, bad_len;
};

/* Lay queue @index out in fresh zeroed pages: @size entries (a power of
 * two), the used ring aligned to @align (VIRTQ_LEGACY_ALIGN or
 * VIRTQ_MODERN_ALIGN), the first @ndesc descriptors on the free list.
 * Does not tell the device (the transport's queue_enable does).  0, or
 * -ENOMEM, or -EINVAL for a size out of range. */
int virtq_init(struct virtq *q, struct virtio_transport *t, unsigned index,
	       unsigned size, unsigned ndesc, size_t align);

/* Give the pages back.  Only once the device no longer uses the queue
 * (after a reset). */
void virtq_release(struct virtq *q);

/* The device's addresses of the descriptor table, the available
 * (driver) ring and the used (device) ring. */
uint64_t virtq_desc_addr(const struct virtq *q);
uint64_t virtq_avail_addr(const struct virtq *q);
uint64_t virtq_used_addr(const struct virtq *q);

/* Descriptors free for virtq_add(). */
unsigned virtq_num_free(const struct virtq *q);

/* Put @len bytes at @buf on the available ring, @device_writes for a
 * receive buffer, with @token (not NULL) to come back by virtq_get().
 * Not visible to the device until virtq_kick().  0, or -ENOSPC when no
 * descriptor is free. */
int virtq_add(struct virtq *q, void *buf, uint32_t len, bool device_writes,
	      void *token);

/* Publish what virtq_add() queued and notify the device, unless it
 * asked not to be (VIRTQ_USED_F_NO_NOTIFY). */
void virtq_kick(struct virtq *q);

/* True when the device has used entries we have not taken. */
bool virtq_has_used(const struct virtq *q);

/* Take the next used entry: 1 with *@token and *@len (the bytes the
 * device wrote) set and its descriptor free again; 0 when there is none.
 * An entry whose id is not a descriptor of ours in flight is consumed
 * and rejected, -EIO, *@token untouched; one whose length runs past its
 * buffer gives its *@token back (the buffer is ours to reuse) but
 * -EMSGSIZE.  Both are counted (bad_id, bad_len). */
int virtq_get(struct virtq *q, void **token, uint32_t *len);

/* Ask the device for no interrupt on this queue (VIRTQ_AVAIL_F_NO_INTERRUPT). */
void virtq_disable_irq(struct virtq *q);

/* Ask for interrupts again, then look at the used ring once more:
 * true when it is still empty, so the next entry will interrupt; false
 * when an entry arrived while interrupts were off, which no interrupt
 * will announce: the caller takes it (and may disable again). */
bool virtq_enable_irq(struct virtq *q);

#endif
