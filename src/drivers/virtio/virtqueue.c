/* SPDX-License-Identifier: BSD-2-Clause */
/* The split virtqueue: see virtqueue.h. */
#include "drivers/virtio/virtqueue.h"

#include "drivers/virtio/virtio.h"
#include "hal/mem.h"
#include "kernel/page.h"
#include "lib/errno.h"

/* The largest queue a split ring may have (§2.7: Queue Size <= 32768). */
#define VIRTQ_MAX_SIZE 32768

static size_t virtq_align_up(size_t n, size_t a)
{
	return (n + a - 1) & ~(a - 1);
}

static size_t virtq_pages(size_t bytes)
{
	return virtq_align_up(bytes, HAL_PAGE_SIZE) / HAL_PAGE_SIZE;
}

int virtq_init(struct virtq *q, struct virtio_transport *t, unsigned index,
	       unsigned size, unsigned ndesc, size_t align)
{
	size_t avail_off, avail_end, used_len;
	uint8_t *mem;

	q->t = t;
	q->index = index;
	q->size = size;
	if (size == 0 || size > VIRTQ_MAX_SIZE || (size & (size - 1)) ||
	    ndesc == 0 || ndesc > size)
		return -EINVAL;
	/* §2.7: descriptors 16 bytes each, then flags, idx, ring[size],
	 * used_event; the used ring: flags, idx, 8-byte elements,
	 * avail_event. */
	avail_off = 16 * (size_t)size;
	avail_end = avail_off + 2 * (3 + (size_t)size);
	used_len = 2 * 3 + 8 * (size_t)size;
	q->used_off = virtq_align_up(avail_end, align);
	q->mem_pages = virtq_pages(q->used_off + used_len);
	q->slot_pages = virtq_pages(ndesc * sizeof(struct virtq_slot));
	q->mem = page_alloc(q->mem_pages);
	q->slot = page_alloc(q->slot_pages);
	if (!q->mem || !q->slot) {
		virtq_release(q);
		return -ENOMEM;
	}
	mem = q->mem;
	q->desc = (struct virtq_desc *)mem;
	q->avail = (volatile uint16_t *)(mem + avail_off);
	q->used = (volatile uint16_t *)(mem + q->used_off);
	q->ndesc = ndesc;
	q->avail_idx = 0;
	q->last_used = 0;
	q->bad_id = q->bad_len = 0;
	for (unsigned i = 0; i < ndesc; i++)
		q->slot[i].next_free = (uint16_t)(i + 1);
	q->free_head = 0;
	q->num_free = ndesc;
	return 0;
}

void virtq_release(struct virtq *q)
{
	if (q->mem)
		page_free(q->mem, q->mem_pages);
	if (q->slot)
		page_free(q->slot, q->slot_pages);
	q->mem = NULL;
	q->slot = NULL;
	q->desc = NULL;
	q->avail = q->used = NULL;
	q->num_free = 0;
}

uint64_t virtq_desc_addr(const struct virtq *q)
{
	return q->t->bus.dma_addr(&q->t->bus, q->desc);
}

uint64_t virtq_avail_addr(const struct virtq *q)
{
	return q->t->bus.dma_addr(&q->t->bus, (const void *)q->avail);
}

uint64_t virtq_used_addr(const struct virtq *q)
{
	return q->t->bus.dma_addr(&q->t->bus, (const void *)q->used);
}

unsigned virtq_num_free(const struct virtq *q)
{
	return q->num_free;
}

int virtq_add(struct virtq *q, void *buf, uint32_t len, bool device_writes,
	      void *token)
{
	uint16_t id;

	if (q->num_free == 0)
		return -ENOSPC;
	id = q->free_head;
	q->free_head = q->slot[id].next_free;
	q->num_free--;
	q->slot[id].token = token;
	q->slot[id].len = len;
	q->slot[id].writable = device_writes;
	q->desc[id].addr = q->t->bus.dma_addr(&q->t->bus, buf);
	q->desc[id].len = len;
	q->desc[id].flags = device_writes ? VIRTQ_DESC_F_WRITE : 0;
	q->desc[id].next = 0;
	q->avail[2 + q->avail_idx % q->size] = id;
	q->avail_idx++;
	return 0;
}

void virtq_kick(struct virtq *q)
{
	/* The ring entries before the index that publishes them (§2.7.13.2),
	 * and the index before we read whether the device wants to hear of
	 * it (§2.7.13.3): a full barrier, or a device that just cleared
	 * NO_NOTIFY and went to sleep would miss this batch. */
	__atomic_store_n(&q->avail[1], q->avail_idx, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!(q->used[0] & VIRTQ_USED_F_NO_NOTIFY))
		q->t->ops->notify(q->t, q->index);
}

/* The device's used index, read before the entries it publishes. */
static uint16_t virtq_used_idx(const struct virtq *q)
{
	return __atomic_load_n(&q->used[1], __ATOMIC_ACQUIRE);
}

bool virtq_has_used(const struct virtq *q)
{
	return q->last_used != virtq_used_idx(q);
}

static void virtq_free_desc(struct virtq *q, uint16_t id)
{
	q->slot[id].token = NULL;
	q->slot[id].next_free = q->free_head;
	q->free_head = id;
	q->num_free++;
}

int virtq_get(struct virtq *q, void **token, uint32_t *len)
{
	const volatile struct virtq_used_elem *e;
	uint32_t id, n;
	bool overrun;

	if (!virtq_has_used(q))
		return 0;
	e = (const volatile struct virtq_used_elem *)(q->used + 2) +
	    q->last_used % q->size;
	id = e->id;
	n = e->len;
	q->last_used++;
	/* The device names the buffer; we check it is one it holds. */
	if (id >= q->ndesc || !q->slot[id].token) {
		q->bad_id++;
		return -EIO;
	}
	*token = q->slot[id].token;
	*len = n;
	/* What the device wrote must fit what we gave (§2.7.8).  A
	 * buffer it only read says nothing we use. */
	overrun = q->slot[id].writable && n > q->slot[id].len;
	virtq_free_desc(q, (uint16_t)id);
	if (overrun) {
		q->bad_len++;
		return -EMSGSIZE;
	}
	return 1;
}

void virtq_disable_irq(struct virtq *q)
{
	q->avail[0] = VIRTQ_AVAIL_F_NO_INTERRUPT;
}

bool virtq_enable_irq(struct virtq *q)
{
	q->avail[0] = 0;
	/* The flag before the second look at the used index: an entry the
	 * device added before it could see the flag cleared is then seen
	 * here, and one added after it will interrupt. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return !virtq_has_used(q);
}
