/* SPDX-License-Identifier: BSD-2-Clause */
/* The modelled virtio-net device: see virtio_model.h.  Section numbers
 * are virtio 1.2's (OASIS, cs01). */
#include "virtio_model.h"

#include <check.h>
#include <string.h>

#include "hal/mem.h"

/* PCI legacy register block, no MSI-X: §4.1.4.10, the table of the
 * legacy common configuration (offsets and widths). */
#define PL_DEVICE_FEATURES	0x00	/* 32, RO */
#define PL_DRIVER_FEATURES	0x04	/* 32, RW */
#define PL_QUEUE_ADDRESS	0x08	/* 32, RW: page frame number */
#define PL_QUEUE_SIZE		0x0c	/* 16, RO */
#define PL_QUEUE_SELECT		0x0e	/* 16, RW */
#define PL_QUEUE_NOTIFY		0x10	/* 16, RW */
#define PL_DEVICE_STATUS	0x12	/* 8, RW */
#define PL_ISR_STATUS		0x13	/* 8, RO, read clears (§4.1.4.5) */
#define PL_CONFIG		0x14	/* device-specific, no MSI-X */

/* virtio-mmio: §4.2.2 (and §4.2.4 for version 1's own registers). */
#define MM_MAGIC		0x000
#define MM_VERSION		0x004
#define MM_DEVICE_ID		0x008
#define MM_VENDOR_ID		0x00c
#define MM_DEVICE_FEATURES	0x010
#define MM_DEVICE_FEATURES_SEL	0x014
#define MM_DRIVER_FEATURES	0x020
#define MM_DRIVER_FEATURES_SEL	0x024
#define MM_GUEST_PAGE_SIZE	0x028	/* v1 */
#define MM_QUEUE_SEL		0x030
#define MM_QUEUE_NUM_MAX	0x034
#define MM_QUEUE_NUM		0x038
#define MM_QUEUE_ALIGN		0x03c	/* v1 */
#define MM_QUEUE_PFN		0x040	/* v1 */
#define MM_QUEUE_READY		0x044	/* v2 */
#define MM_QUEUE_NOTIFY		0x050
#define MM_INTERRUPT_STATUS	0x060
#define MM_INTERRUPT_ACK	0x064
#define MM_STATUS		0x070
#define MM_QUEUE_DESC		0x080	/* v2, low then high */
#define MM_QUEUE_DRIVER		0x090
#define MM_QUEUE_DEVICE		0x0a0
#define MM_CONFIG_GENERATION	0x0fc	/* v2 */
#define MM_CONFIG		0x100

/* QEMU's values: "virt" and "QEMU" (hw/virtio/virtio-mmio.c). */
#define MM_MAGIC_VALUE		0x74726976
#define MM_VENDOR_QEMU		0x554d4551

/* §2.1 */
#define ST_FEATURES_OK		8

/* §2.7.5: a descriptor is addr (le64), len (le32), flags (le16), next
 * (le16), 16 bytes; flag 2 marks a buffer the device writes. */
#define DESC_SIZE		16
#define DESC_F_WRITE		2
/* §2.7.6: the available ring is flags, idx, ring[num] (le16 each);
 * flag 1 asks for no used buffer notification (§2.7.7). */
#define AVAIL_F_NO_INTERRUPT	1
/* §2.7.8: the used ring is flags, idx, then {le32 id, le32 len}. */

/* QEMU's virtio-net queue size. */
#define VM_QUEUE_MAX		256

/* The bus sees the fake machine's RAM at VM_BUS_RAM, not where the
 * host put it: a legacy page frame number has 32 bits, and the driver
 * must use the platform's translation, never a pointer as it is. */
#define VM_BUS_RAM 0x40000000u

static struct hal_mem_range vm_ram(void)
{
	struct hal_mem_range r;

	ck_assert_uint_eq(hal_mem_ranges(&r, 1), 1);
	return r;
}

static uint64_t vm_dma_addr(const struct virtio_bus *b, const void *p)
{
	(void)b;
	return (uintptr_t)p - vm_ram().addr + VM_BUS_RAM;
}

/* Our pointer to bus address @a, which must be RAM: a device would
 * otherwise reach memory the driver never gave it. */
static uint8_t *vm_mem(uint64_t a)
{
	struct hal_mem_range r = vm_ram();

	ck_assert_msg(a >= VM_BUS_RAM && a - VM_BUS_RAM < r.size,
		      "bus address 0x%llx is not RAM", (unsigned long long)a);
	return (uint8_t *)(uintptr_t)(a - VM_BUS_RAM + r.addr);
}

static void vm_reset(struct vmodel *m)
{
	/* §2.4: a reset returns the device to its initial state: status,
	 * features and every queue. */
	m->status = 0;
	m->driver_features = 0;
	m->dev_sel = m->drv_sel = 0;
	m->queue_sel = 0;
	m->isr = 0;
	for (unsigned i = 0; i < VM_QUEUES; i++) {
		struct vm_queue *q = &m->q[i];
		uint64_t notifies = q->notifies;

		memset(q, 0, sizeof(*q));
		q->num_max = VM_QUEUE_MAX;
		q->notifies = notifies;
		q->align = 4096;
	}
	if (m->kind == VM_PCI_LEGACY) {
		/* The legacy PCI queue size is the device's (§4.1.4.10: Queue
		 * Size is read-only): the driver cannot change it. */
		for (unsigned i = 0; i < VM_QUEUES; i++)
			m->q[i].num = VM_QUEUE_MAX;
	}
}

bool vm_queue_live(const struct vmodel *m, unsigned qi)
{
	const struct vm_queue *q = &m->q[qi];

	return m->kind == VM_MMIO_V2 ? q->ready : q->pfn != 0;
}

/* Where the parts of queue @qi lie, as the device computes them: the
 * legacy layout of §2.7.2 (page frame times the page size, the used
 * ring at the next QueueAlign boundary), or version 2's three
 * registers. */
static void vm_layout(const struct vmodel *m, unsigned qi, uint8_t **desc,
		      uint8_t **avail, uint8_t **used)
{
	const struct vm_queue *q = &m->q[qi];

	if (m->kind == VM_MMIO_V2) {
		*desc = vm_mem(q->desc);
		*avail = vm_mem(q->driver);
		*used = vm_mem(q->device);
		return;
	}
	uint64_t page = m->kind == VM_PCI_LEGACY ? 4096 : m->guest_page_size;
	uint64_t base = (uint64_t)q->pfn * page;
	uint64_t avail_end = base + DESC_SIZE * q->num + 2 * (3 + q->num);
	uint64_t align = q->align;

	*desc = vm_mem(base);
	*avail = vm_mem(base + DESC_SIZE * q->num);
	*used = vm_mem((avail_end + align - 1) / align * align);
}

static uint16_t ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static void st16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static void st32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

unsigned vm_hdr_len(const struct vmodel *m)
{
	/* §5.1.6: num_buffers is part of the header once VERSION_1 is
	 * negotiated (or MRG_RXBUF, never offered here). */
	return m->driver_features & (1ull << VM_F_VERSION_1) ? 12 : 10;
}

uint16_t vm_avail_flags(const struct vmodel *m, unsigned qi)
{
	uint8_t *desc, *avail, *used;

	vm_layout(m, qi, &desc, &avail, &used);
	return ld16(avail);
}

void vm_set_used_flags(struct vmodel *m, unsigned qi, uint16_t flags)
{
	uint8_t *desc, *avail, *used;

	vm_layout(m, qi, &desc, &avail, &used);
	st16(used, flags);
}

/* Take the head of the next available chain; false when none. */
static bool vm_take_avail(struct vmodel *m, unsigned qi, uint16_t *head)
{
	struct vm_queue *q = &m->q[qi];
	uint8_t *desc, *avail, *used;

	vm_layout(m, qi, &desc, &avail, &used);
	if (q->last_avail == ld16(avail + 2))
		return false;
	*head = ld16(avail + 4 + 2 * (q->last_avail % q->num));
	q->last_avail++;
	return true;
}

/* Publish used element {@id, @len}, then notify unless suppressed
 * (§2.7.7.2: without EVENT_IDX, the device should not notify while the
 * driver's flags say NO_INTERRUPT). */
static void vm_put_used(struct vmodel *m, unsigned qi, uint32_t id, uint32_t len)
{
	struct vm_queue *q = &m->q[qi];
	uint8_t *desc, *avail, *used;

	vm_layout(m, qi, &desc, &avail, &used);
	st32(used + 4 + 8 * (q->used_idx % q->num), id);
	st32(used + 8 + 8 * (q->used_idx % q->num), len);
	q->used_idx++;
	__atomic_store_n((uint16_t *)(used + 2), q->used_idx, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!(ld16(avail) & AVAIL_F_NO_INTERRUPT)) {
		m->isr |= 1;
		m->interrupts++;
	}
}

static void vm_desc(const struct vmodel *m, unsigned qi, uint16_t id,
		    uint64_t *addr, uint32_t *len, uint16_t *flags)
{
	uint8_t *desc, *avail, *used;

	vm_layout(m, qi, &desc, &avail, &used);
	memcpy(addr, desc + DESC_SIZE * id, 8);
	memcpy(len, desc + DESC_SIZE * id + 8, 4);
	*flags = ld16(desc + DESC_SIZE * id + 12);
}

bool vm_rx_frame(struct vmodel *m, const void *frame, size_t len)
{
	unsigned hdr = vm_hdr_len(m);
	uint16_t head, flags;
	uint64_t addr;
	uint32_t cap;
	uint8_t *buf;

	if (!vm_take_avail(m, 0, &head)) {
		m->rx_no_buffer++;
		return false;
	}
	vm_desc(m, 0, head, &addr, &cap, &flags);
	if (!(flags & DESC_F_WRITE) || cap < hdr + len) {
		/* Not a receive buffer we could use: give it back empty. */
		vm_put_used(m, 0, head, 0);
		return false;
	}
	buf = vm_mem(addr);
	memset(buf, 0, hdr);
	if (hdr == 12)
		st16(buf + 10, 1);	/* num_buffers: one (§5.1.6) */
	memcpy(buf + hdr, frame, len);
	vm_put_used(m, 0, head, (uint32_t)(hdr + len));
	return true;
}

void vm_rx_raw(struct vmodel *m, uint32_t id, uint32_t len, bool take_buffer)
{
	uint16_t head;

	if (take_buffer)
		vm_take_avail(m, 0, &head);
	vm_put_used(m, 0, id, len);
}

unsigned vm_tx_consume(struct vmodel *m)
{
	unsigned hdr = vm_hdr_len(m), n = 0;
	uint16_t head, flags;

	while (vm_take_avail(m, 1, &head)) {
		uint64_t addr;
		uint32_t len;
		const uint8_t *buf;

		vm_desc(m, 1, head, &addr, &len, &flags);
		buf = vm_mem(addr);
		if (m->ntx < VM_TX_MAX && !(flags & DESC_F_WRITE) && len >= hdr) {
			struct vm_frame *f = &m->tx[m->ntx++];

			f->len = len - hdr;
			memcpy(f->data, buf + hdr, f->len < sizeof(f->data) ? f->len : sizeof(f->data));
			f->hdr_zero = true;
			for (unsigned i = 0; i < hdr; i++)
				f->hdr_zero &= buf[i] == 0;
		}
		/* A transmit buffer is only read: used length 0 (§2.7.8). */
		vm_put_used(m, 1, head, 0);
		n++;
	}
	return n;
}

void vm_tx_raw(struct vmodel *m, uint32_t id)
{
	vm_put_used(m, 1, id, 0);
}

/* ---- the register window ---- */

static uint8_t vm_config_byte(const struct vmodel *m, unsigned off)
{
	/* §5.1.4: mac[6], then status (le16) when VIRTIO_NET_F_STATUS. */
	if (off < 6)
		return m->mac[off];
	if (off == 6)
		return 1;	/* VIRTIO_NET_S_LINK_UP */
	return 0;
}

static uint8_t vm_status_read(struct vmodel *m)
{
	if (m->reset_left) {
		if (m->reset_left != UINT32_MAX)
			m->reset_left--;
		return m->stale_status;
	}
	return m->status;
}

static void vm_status_write(struct vmodel *m, uint8_t v)
{
	if (m->nstatus < sizeof(m->status_log))
		m->status_log[m->nstatus++] = v;
	if (v == 0) {
		m->stale_status = m->status;
		m->reset_left = m->reset_reads;
		vm_reset(m);
		return;
	}
	/* §3.1.1 steps 5-6 and §2.2: the device takes FEATURES_OK only for
	 * a subset of its offer; a 1.x device also insists on VERSION_1. */
	if ((v & ST_FEATURES_OK) && !(m->status & ST_FEATURES_OK)) {
		bool subset = (m->driver_features & ~m->device_features) == 0;
		bool v1 = m->driver_features & (1ull << VM_F_VERSION_1);

		if (m->refuse_features || !subset || !v1)
			v &= (uint8_t)~ST_FEATURES_OK;
	}
	m->status = v;
}

static void vm_queue_notify(struct vmodel *m, uint32_t v)
{
	if (v < VM_QUEUES)
		m->q[v].notifies++;
}

static uint32_t vm_pci_read(struct vmodel *m, unsigned off, unsigned width)
{
	struct vm_queue *q = &m->q[m->queue_sel % VM_QUEUES];
	uint32_t v;

	switch (off) {
	case PL_DEVICE_FEATURES:
		return (uint32_t)m->device_features;	/* 32 bits only */
	case PL_DRIVER_FEATURES:
		return (uint32_t)m->driver_features;
	case PL_QUEUE_ADDRESS:
		return m->queue_sel < VM_QUEUES ? q->pfn : 0;
	case PL_QUEUE_SIZE:
		return m->queue_sel < VM_QUEUES ? q->num_max : 0;
	case PL_QUEUE_SELECT:
		return m->queue_sel;
	case PL_DEVICE_STATUS:
		return vm_status_read(m);
	case PL_ISR_STATUS:
		v = m->isr;
		m->isr = 0;
		return v;
	}
	if (off >= PL_CONFIG && width == 1)
		return vm_config_byte(m, off - PL_CONFIG);
	return 0xffffffffu;
}

static void vm_pci_write(struct vmodel *m, unsigned off, unsigned width, uint32_t v)
{
	struct vm_queue *q = &m->q[m->queue_sel % VM_QUEUES];

	switch (off) {
	case PL_DRIVER_FEATURES:
		m->driver_features = v;
		break;
	case PL_QUEUE_ADDRESS:
		if (m->queue_sel < VM_QUEUES)
			q->pfn = v;
		break;
	case PL_QUEUE_SELECT:
		m->queue_sel = v;
		break;
	case PL_QUEUE_NOTIFY:
		vm_queue_notify(m, v);
		break;
	case PL_DEVICE_STATUS:
		vm_status_write(m, (uint8_t)v);
		break;
	}
	(void)width;
}

static uint32_t vm_mmio_read(struct vmodel *m, unsigned off, unsigned width)
{
	struct vm_queue *q = &m->q[m->queue_sel % VM_QUEUES];
	bool sel_ok = m->queue_sel < VM_QUEUES;

	if (off >= MM_CONFIG)
		return vm_config_byte(m, off - MM_CONFIG);
	if (width != 4)
		return 0xffffffffu;	/* §4.2.2.2: 32-bit accesses only */
	switch (off) {
	case MM_MAGIC:
		return MM_MAGIC_VALUE;
	case MM_VERSION:
		return m->mmio_version;
	case MM_DEVICE_ID:
		return m->device_id;
	case MM_VENDOR_ID:
		return MM_VENDOR_QEMU;
	case MM_DEVICE_FEATURES:
		return (uint32_t)(m->device_features >> (32 * (m->dev_sel & 1))) &
		       (m->dev_sel > 1 ? 0 : 0xffffffffu);
	case MM_QUEUE_NUM_MAX:
		return sel_ok ? q->num_max : 0;
	case MM_QUEUE_PFN:
		return sel_ok && m->kind == VM_MMIO_V1 ? q->pfn : 0;
	case MM_QUEUE_READY:
		return sel_ok && m->kind == VM_MMIO_V2 ? q->ready : 0;
	case MM_INTERRUPT_STATUS:
		return m->isr;
	case MM_STATUS:
		return vm_status_read(m);
	case MM_CONFIG_GENERATION:
		return 0;
	}
	return 0;
}

static void vm_set_half(uint64_t *x, unsigned half, uint32_t v)
{
	unsigned shift = 32 * half;

	*x = (*x & ~(0xffffffffull << shift)) | (uint64_t)v << shift;
}

static void vm_mmio_write(struct vmodel *m, unsigned off, unsigned width, uint32_t v)
{
	struct vm_queue *q = &m->q[m->queue_sel % VM_QUEUES];
	bool sel_ok = m->queue_sel < VM_QUEUES;

	if (width != 4)
		return;
	switch (off) {
	case MM_DEVICE_FEATURES_SEL:
		m->dev_sel = v;
		break;
	case MM_DRIVER_FEATURES_SEL:
		m->drv_sel = v;
		break;
	case MM_DRIVER_FEATURES:
		if (m->drv_sel < 2)
			vm_set_half(&m->driver_features, m->drv_sel, v);
		break;
	case MM_GUEST_PAGE_SIZE:
		m->guest_page_size = v;
		break;
	case MM_QUEUE_SEL:
		m->queue_sel = v;
		break;
	case MM_QUEUE_NUM:
		if (sel_ok && v <= q->num_max)
			q->num = v;
		break;
	case MM_QUEUE_ALIGN:
		if (sel_ok)
			q->align = v;
		break;
	case MM_QUEUE_PFN:
		if (sel_ok)
			q->pfn = v;
		break;
	case MM_QUEUE_READY:
		if (sel_ok)
			q->ready = v & 1;
		break;
	case MM_QUEUE_NOTIFY:
		vm_queue_notify(m, v);
		break;
	case MM_INTERRUPT_ACK:
		m->isr &= ~v;
		break;
	case MM_STATUS:
		vm_status_write(m, (uint8_t)v);
		break;
	case MM_QUEUE_DESC:
	case MM_QUEUE_DESC + 4:
		if (sel_ok)
			vm_set_half(&q->desc, (off - MM_QUEUE_DESC) / 4, v);
		break;
	case MM_QUEUE_DRIVER:
	case MM_QUEUE_DRIVER + 4:
		if (sel_ok)
			vm_set_half(&q->driver, (off - MM_QUEUE_DRIVER) / 4, v);
		break;
	case MM_QUEUE_DEVICE:
	case MM_QUEUE_DEVICE + 4:
		if (sel_ok)
			vm_set_half(&q->device, (off - MM_QUEUE_DEVICE) / 4, v);
		break;
	}
}

static uint32_t vm_bus_read(const struct virtio_bus *b, unsigned off, unsigned width)
{
	struct vmodel *m = b->ctx;

	return m->kind == VM_PCI_LEGACY ? vm_pci_read(m, off, width)
					: vm_mmio_read(m, off, width);
}

static void vm_bus_write(const struct virtio_bus *b, unsigned off, unsigned width,
			 uint32_t v)
{
	struct vmodel *m = b->ctx;

	if (m->kind == VM_PCI_LEGACY)
		vm_pci_write(m, off, width, v);
	else
		vm_mmio_write(m, off, width, v);
}

void vm_init(struct vmodel *m, enum vm_kind kind, uint64_t features)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->device_features = features;
	m->mmio_version = kind == VM_MMIO_V1 ? 1 : 2;
	m->device_id = 1;	/* network card (§5) */
	memcpy(m->mac, mac, 6);
	m->bus.read = vm_bus_read;
	m->bus.write = vm_bus_write;
	m->bus.dma_addr = vm_dma_addr;
	m->bus.ctx = m;
	vm_reset(m);
}
