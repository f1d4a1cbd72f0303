/* hal/netdev.h on QEMU's virtio-net-pci, through the legacy interface of
 * the transitional device (1af4:1000): registers in I/O BAR 0, each
 * virtqueue one physically contiguous block whose page number goes in
 * QUEUE_PFN.  Queue 0 receives, queue 1 transmits.  The identity map
 * makes a buffer's address its bus address.
 *
 * The device's INTx line goes through the I/O APIC to X86_VEC_NET; the
 * handler only reads the ISR (which lowers the line) and wakes the
 * receive task, which hands frames to net_rx().  With no usable line the
 * task polls at each tick instead. */
#include "hal/netdev.h"

#include "hal/cpu.h"
#include "hal/entry.h"
#include "hal/mem.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/page.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/spinlock.h"
#include "x86.h"

#define VIRTIO_VENDOR		0x1af4
#define VIRTIO_NET_LEGACY	0x1000

/* Legacy register block (I/O BAR 0), no MSI-X. */
#define VIO_HOST_FEATURES	0x00
#define VIO_GUEST_FEATURES	0x04
#define VIO_QUEUE_PFN		0x08
#define VIO_QUEUE_SIZE		0x0c
#define VIO_QUEUE_SEL		0x0e
#define VIO_QUEUE_NOTIFY	0x10
#define VIO_STATUS		0x12
#define VIO_ISR			0x13
#define VIO_NET_MAC		0x14

#define STATUS_ACK		1
#define STATUS_DRIVER		2
#define STATUS_DRIVER_OK	4
#define STATUS_FAILED		128

#define NET_F_MAC		(1u << 5)

#define VRING_DESC_F_WRITE	2
#define VRING_USED_F_NO_NOTIFY	1
#define VRING_ALIGN		4096

/* Legacy header without mergeable buffers: 10 bytes before each frame. */
#define NET_HDR_LEN		10
#define BUF_SIZE		2048
/* Buffers this driver posts, whatever the queue size (QEMU: 256). */
#define RX_BUFS			128
#define TX_BUFS			64
/* Frames handled before letting the CPU's other tasks run. */
#define RX_BATCH		64
/* Reclaim attempts hal_netdev_send() makes before giving up. */
#define TX_SPINS		100000

struct vring_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct vring_used_elem {
	uint32_t id;
	uint32_t len;
};

struct vq {
	unsigned index;
	unsigned size;			/* entries, the device's choice */
	struct vring_desc *desc;
	volatile uint16_t *avail;	/* flags, idx, ring[size] */
	volatile uint16_t *used;	/* flags, idx, then the elements */
	uint16_t avail_idx;		/* next avail slot (free-running) */
	uint16_t used_seen;		/* used entries consumed so far */
	uint8_t *bufs;			/* the driver's buffers, BUF_SIZE each */
};

static struct {
	bool present;
	unsigned dev, fn;
	uint16_t io;
	uint8_t irq;
	uint8_t mac[6];
	struct vq rx, tx;
	uint16_t tx_free[TX_BUFS];	/* descriptor ids not in flight */
	unsigned tx_nfree;
	struct spinlock tx_lock;
	bool irq_routed;		/* else the receive task polls */
	struct task *rx_task;
	uint64_t irqs;
} vnet = { .tx_lock = SPINLOCK_INIT };

static size_t vq_align(size_t n)
{
	return (n + VRING_ALIGN - 1) & ~(size_t)(VRING_ALIGN - 1);
}

static volatile struct vring_used_elem *vq_used_ring(struct vq *q)
{
	return (volatile struct vring_used_elem *)(q->used + 2);
}

/* Device index of the used ring, read after the device's write. */
static uint16_t vq_used_idx(struct vq *q)
{
	return __atomic_load_n(&q->used[1], __ATOMIC_ACQUIRE);
}

/* Publish the avail entries written so far and tell the device. */
static void vq_kick(struct vq *q)
{
	__atomic_store_n(&q->avail[1], q->avail_idx, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!(q->used[0] & VRING_USED_F_NO_NOTIFY))
		outw(vnet.io + VIO_QUEUE_NOTIFY, q->index);
}

static void vq_push(struct vq *q, uint16_t id)
{
	q->avail[2 + q->avail_idx % q->size] = id;
	q->avail_idx++;
}

/* Lay queue @index out in fresh pages and give it to the device, with
 * @nbufs buffers of BUF_SIZE.  False when the device has no such queue or
 * memory ran out. */
static bool vq_setup(struct vq *q, unsigned index, unsigned nbufs)
{
	size_t avail_end, total;
	uint8_t *mem;

	outw(vnet.io + VIO_QUEUE_SEL, index);
	q->index = index;
	q->size = inw(vnet.io + VIO_QUEUE_SIZE);
	if (q->size == 0 || q->size < nbufs)
		return false;
	avail_end = vq_align(16 * q->size + 2 * (3 + q->size));
	total = avail_end + vq_align(2 * 3 + 8 * q->size);
	mem = page_alloc(total / HAL_PAGE_SIZE);
	q->bufs = page_alloc(nbufs * BUF_SIZE / HAL_PAGE_SIZE);
	if (!mem || !q->bufs)
		return false;
	q->desc = (struct vring_desc *)mem;
	q->avail = (volatile uint16_t *)(mem + 16 * q->size);
	q->used = (volatile uint16_t *)(mem + avail_end);
	for (unsigned i = 0; i < nbufs; i++) {
		q->desc[i].addr = (uintptr_t)(q->bufs + i * BUF_SIZE);
		q->desc[i].len = BUF_SIZE;
	}
	outl(vnet.io + VIO_QUEUE_PFN, (uint32_t)((uintptr_t)mem / VRING_ALIGN));
	return true;
}

/* Find the device, read its MAC, negotiate and set the queues up, all
 * short of DRIVER_OK (hal_netdev_start's).  Once, on first need. */
static void vnet_probe(void)
{
	static bool probed;
	uint32_t feat;

	if (probed)
		return;
	probed = true;
	if (!x86_pci_find(VIRTIO_VENDOR, VIRTIO_NET_LEGACY, &vnet.dev, &vnet.fn))
		return;
	vnet.io = x86_pci_io_bar(vnet.dev, vnet.fn, 0);
	if (!vnet.io) {
		out_puts(&out_console, "virtio-net: no I/O BAR 0; no network\n");
		return;
	}
	vnet.irq = x86_pci_irq(vnet.dev, vnet.fn);
	/* I/O decoding and bus mastering (the device reads our rings). */
	x86_pci_write32(vnet.dev, vnet.fn, 0x04,
			(x86_pci_read32(vnet.dev, vnet.fn, 0x04) & 0xffff) | 0x5);

	outb(vnet.io + VIO_STATUS, 0);		/* reset */
	outb(vnet.io + VIO_STATUS, STATUS_ACK);
	outb(vnet.io + VIO_STATUS, STATUS_ACK | STATUS_DRIVER);
	feat = inl(vnet.io + VIO_HOST_FEATURES);
	outl(vnet.io + VIO_GUEST_FEATURES, feat & NET_F_MAC);
	for (unsigned i = 0; i < 6; i++)
		vnet.mac[i] = feat & NET_F_MAC ? inb(vnet.io + VIO_NET_MAC + i)
					       : (uint8_t)(i == 0 ? 0x52 : i);
	if (!vq_setup(&vnet.rx, 0, RX_BUFS) || !vq_setup(&vnet.tx, 1, TX_BUFS)) {
		outb(vnet.io + VIO_STATUS, STATUS_FAILED);
		out_printf(&out_console, "virtio-net: queue set-up failed (io 0x%x, sizes %u/%u); no network\n",
			   vnet.io, vnet.rx.size, vnet.tx.size);
		return;
	}
	for (unsigned i = 0; i < RX_BUFS; i++) {
		vnet.rx.desc[i].flags = VRING_DESC_F_WRITE;
		vq_push(&vnet.rx, (uint16_t)i);
	}
	for (unsigned i = 0; i < TX_BUFS; i++)
		vnet.tx_free[vnet.tx_nfree++] = (uint16_t)i;
	vnet.present = true;
}

bool hal_netdev_present(void)
{
	vnet_probe();
	return vnet.present;
}

void hal_netdev_mac(uint8_t mac[6])
{
	kmemcpy(mac, vnet.mac, 6);
}

/* Take back the transmit descriptors the device is done with.  Under
 * tx_lock. */
static void vnet_tx_reclaim(void)
{
	struct vq *q = &vnet.tx;
	uint16_t idx = vq_used_idx(q);

	while (q->used_seen != idx) {
		uint32_t id = vq_used_ring(q)[q->used_seen % q->size].id;

		if (id < TX_BUFS)
			vnet.tx_free[vnet.tx_nfree++] = (uint16_t)id;
		q->used_seen++;
	}
}

int hal_netdev_send(const void *frame, size_t len)
{
	struct vq *q = &vnet.tx;
	unsigned long flags;
	uint16_t id;

	if (!vnet.present)
		return -ENOSYS;
	if (len > HAL_NETDEV_MTU_FRAME)
		return -EINVAL;
	flags = spin_lock_irqsave(&vnet.tx_lock);
	for (unsigned spins = 0; vnet.tx_nfree == 0; spins++) {
		if (spins == TX_SPINS) {
			spin_unlock_irqrestore(&vnet.tx_lock, flags);
			return -EAGAIN;
		}
		vnet_tx_reclaim();
	}
	id = vnet.tx_free[--vnet.tx_nfree];
	kmemset(q->bufs + id * BUF_SIZE, 0, NET_HDR_LEN);
	kmemcpy(q->bufs + id * BUF_SIZE + NET_HDR_LEN, frame, len);
	q->desc[id].len = (uint32_t)(NET_HDR_LEN + len);
	q->desc[id].flags = 0;
	vq_push(q, id);
	vq_kick(q);
	vnet_tx_reclaim();
	spin_unlock_irqrestore(&vnet.tx_lock, flags);
	return 0;
}

/* Hand every received frame to the stack and give its buffer back.
 * Returns how many frames there were.  Neither inlined nor cloned
 * (noipa), so that profiles of the receive task name it. */
static __attribute__((noipa)) unsigned vnet_rx_drain(void)
{
	struct vq *q = &vnet.rx;
	unsigned n = 0;

	while (q->used_seen != vq_used_idx(q)) {
		volatile struct vring_used_elem *e = &vq_used_ring(q)[q->used_seen % q->size];
		uint32_t id = e->id, len = e->len;

		q->used_seen++;
		if (id >= RX_BUFS) {
			/* Not ours: the device misbehaved. */
			net_rx_lost(NET_RX_LOST_BAD_BUFFER, 1);
			continue;
		}
		if (len >= NET_HDR_LEN)	/* an empty frame is the stack's runt */
			net_rx(q->bufs + id * BUF_SIZE + NET_HDR_LEN, len - NET_HDR_LEN);
		else
			net_rx_lost(NET_RX_LOST_SHORT, 1);
		vq_push(q, (uint16_t)id);
		if (++n % RX_BATCH == 0) {
			vq_kick(q);
			sched_yield_cpu();
		}
	}
	if (n)
		vq_kick(q);
	return n;
}

/* The receive task: frames to net_rx(), then wait for the interrupt (a
 * wake that came while draining makes sched_block() return at once), or
 * for the next tick when there is no interrupt line. */
static void vnet_rx_task(void *arg)
{
	(void)arg;
	for (;;) {
		vnet_rx_drain();
		if (vnet.irq_routed)
			sched_block();
		else
			sched_sleep_ms(1);
	}
}

void x86_virtio_net_irq(void)
{
	/* Reading the ISR acknowledges: the level line drops. */
	(void)inb(vnet.io + VIO_ISR);
	vnet.irqs++;
	if (vnet.rx_task)
		sched_wake(vnet.rx_task);
}

void hal_netdev_start(void)
{
	unsigned cpu = hal_cpu_id();

	vnet.irq_routed = vnet.irq != 0 &&
			  x86_ioapic_route(vnet.irq, X86_VEC_NET, true);
	vnet.rx_task = task_create("netrx", vnet_rx_task, NULL, cpu);
	if (!vnet.rx_task)
		panic("virtio-net: cannot start the receive task");
	if (vnet.irq_routed)
		out_printf(&out_console, "virtio-net: legacy at 00:%02x.%u, io 0x%x, irq %u\n",
			   vnet.dev, vnet.fn, vnet.io, vnet.irq);
	else
		out_printf(&out_console, "virtio-net: legacy at 00:%02x.%u, io 0x%x, no interrupt line; polling each tick\n",
			   vnet.dev, vnet.fn, vnet.io);
	outb(vnet.io + VIO_STATUS, STATUS_ACK | STATUS_DRIVER | STATUS_DRIVER_OK);
	vq_kick(&vnet.rx);
}
