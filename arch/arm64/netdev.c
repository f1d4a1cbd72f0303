/* SPDX-License-Identifier: BSD-2-Clause */
/* The arm64 kernel's network device, on QEMU virt's virtio-mmio: this
 * file walks the slots the device tree names, skips the empty ones
 * (device ID 0) and those of other devices, and hands the first
 * virtio-net, version 1 (legacy) or 2, to the portable driver
 * (src/drivers/virtio/virtio_netdev.c) as a transport on its register
 * window, with this file's calls (struct virtio_netdev_platform);
 * arch/common/netdev_hal.c serves hal/netdev.h through the device the
 * driver returns.  The identity map makes a buffer's address its bus
 * address.
 *
 * The slot's SPI is routed through the GIC to the CPU that starts the
 * device (the stack's receive task is pinned there); the handler only
 * acknowledges the device's interrupt status and wakes that task, which
 * polls the ring (hal/netdev.h).  With no usable SPI the task polls at
 * each tick instead. */
#include "drivers/virtio/virtio_netdev.h"
#include "kernel/console.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "../common/netdev_hal.h"
#include "a64.h"

/* A register window smaller than this has no configuration space. */
#define VMMIO_MIN_SIZE	0x100

static struct {
	struct a64_vmmio_slot slot;
	unsigned slots, empty;		/* what the tree had: for the boot line */
	bool irq;			/* the SPI is on, else the task polls */
	struct virtio_transport t;
} vnet;

static uint32_t a64_vio_read(const struct virtio_bus *b, unsigned off, unsigned width)
{
	uintptr_t a = b->base + off;
	uint32_t v;

	if (width == 1)
		v = *(volatile uint8_t *)a;
	else if (width == 2)
		v = *(volatile uint16_t *)a;
	else
		v = *(volatile uint32_t *)a;
	__asm__ volatile("" : : : "memory");
	return v;
}

/* Device-nGnRnE stores are not reordered with each other, but a ring
 * written in Normal memory must be visible before the notify that
 * tells the device to look: hence the barrier first. */
static void a64_vio_write(const struct virtio_bus *b, unsigned off, unsigned width,
			  uint32_t v)
{
	uintptr_t a = b->base + off;

	__asm__ volatile("dsb st" : : : "memory");
	if (width == 1)
		*(volatile uint8_t *)a = (uint8_t)v;
	else if (width == 2)
		*(volatile uint16_t *)a = (uint16_t)v;
	else
		*(volatile uint32_t *)a = v;
}

/* Identity-mapped: the device sees our addresses as they are. */
static uint64_t a64_vio_dma_addr(const struct virtio_bus *b, const void *p)
{
	(void)b;
	return (uintptr_t)p;
}

static const struct virtio_bus vnet_bus_template = {
	.read = a64_vio_read,
	.write = a64_vio_write,
	.dma_addr = a64_vio_dma_addr,
};

/* Slot @s as transport @t: 0, or why not.  A window that cannot be
 * mapped as Device memory is never touched. */
static int vnet_open(const struct a64_vmmio_slot *s, struct virtio_transport *t)
{
	struct virtio_bus bus = vnet_bus_template;

	if (s->size < VMMIO_MIN_SIZE || !a64_mem_map_device(s->base, s->size)) {
		out_printf(&out_console, "virtio-mmio: slot at 0x%lx (size 0x%lx) cannot be mapped as device memory; skipped\n",
			   (unsigned long)s->base, (unsigned long)s->size);
		return -EIO;
	}
	bus.base = (uintptr_t)s->base;
	return virtio_mmio_init(t, &bus);
}

/* The first virtio-net among the device tree's slots, as transport @t;
 * without one the boot says so here, once. */
static bool vnet_find(struct virtio_transport *t)
{
	struct a64_vmmio_slot s;

	if (a64_dt_virtio_mmio_bad())
		out_printf(&out_console, "virtio-mmio: %u device tree nodes without a register window or a GIC interrupt; skipped\n",
			   a64_dt_virtio_mmio_bad());
	for (unsigned i = 0; a64_dt_virtio_mmio(i, &s); i++) {
		vnet.slots++;
		if (vnet_open(&s, t) != 0)
			continue;
		if (t->device_id == 0) {
			vnet.empty++;
			continue;
		}
		if (t->device_id != VIRTIO_ID_NET)
			continue;
		vnet.slot = s;
		return true;
	}
	out_printf(&out_console, "net: no virtio-net among %u virtio-mmio slots (%u empty); no network\n",
		   vnet.slots, vnet.empty);
	return false;
}

static void a64_vio_failed(int err, const struct virtio_net *n)
{
	out_printf(&out_console, "virtio-net: mmio at 0x%lx would not set up (error %d, queue sizes %u/%u); no network\n",
		   (unsigned long)vnet.slot.base, err, n->rx.size, n->tx.size);
}

/* From the IRQ path (trap.c), before the EOI: true when @intid is the
 * device's.  Acknowledging its interrupt status lowers its line. */
bool a64_netdev_irq(unsigned intid)
{
	if (!vnet.irq || intid != vnet.slot.intid)
		return false;
	arch_netdev_irq();
	return true;
}

/* The slot's SPI, through the GIC to the calling CPU (the stack's
 * receive task is pinned there). */
static bool a64_vio_route(const struct virtio_transport *t)
{
	vnet.irq = vnet.slot.intid >= 32;
	if (vnet.irq)
		a64_gic_enable_spi(vnet.slot.intid, vnet.slot.edge);
	out_printf(&out_console, "virtio-net: mmio v%u at 0x%lx, %s%u%s\n",
		   t->legacy ? 1 : 2, (unsigned long)vnet.slot.base,
		   vnet.irq ? "intid " : "no spi (intid ", vnet.slot.intid,
		   vnet.irq ? (vnet.slot.edge ? " edge" : " level") : "); polling each tick");
	return vnet.irq;
}

static const struct virtio_netdev_platform a64_vio_platform = {
	.t = &vnet.t,
	.failed = a64_vio_failed,
	.route = a64_vio_route,
};

struct netdev *arch_netdev_probe(void)
{
	if (!vnet_find(&vnet.t))
		return NULL;
	return virtio_netdev_probe(&a64_vio_platform);
}
