/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/netdev.h on QEMU's virtio-net-pci, through the legacy interface of
 * the transitional device (1af4:1000): this file finds it on PCI, gives
 * the portable glue (src/drivers/virtio/virtio_netdev.c) its I/O BAR 0
 * as a register window, routes its interrupt and says what it found.
 * The identity map makes a buffer's address its bus address.
 *
 * The device's INTx line goes through the I/O APIC to X86_VEC_NET; the
 * handler only reads the ISR (which lowers the line) and wakes the
 * stack's receive task.  With no usable line the task polls at each
 * tick instead.  Without a virtio-net, the Intel 82574L (e1000e.c)
 * serves hal/netdev.h: this file chooses, by PCI ID. */
#include "hal/netdev.h"

#include "drivers/e1000e/e1000e_netdev.h"
#include "drivers/virtio/virtio_netdev.h"
#include "hal/entry.h"
#include "lib/out.h"
#include "kernel/console.h"
#include "x86.h"

#define VIRTIO_VENDOR		0x1af4
#define VIRTIO_NET_LEGACY	0x1000

/* Where the device is: for the boot lines. */
static struct {
	unsigned dev, fn;
	uint16_t io;
	uint8_t irq;
} vnet;

static uint32_t x86_vio_read(const struct virtio_bus *b, unsigned off, unsigned width)
{
	uint16_t port = (uint16_t)(b->base + off);

	return width == 1 ? inb(port) : width == 2 ? inw(port) : inl(port);
}

static void x86_vio_write(const struct virtio_bus *b, unsigned off, unsigned width,
			  uint32_t v)
{
	uint16_t port = (uint16_t)(b->base + off);

	if (width == 1)
		outb(port, (uint8_t)v);
	else if (width == 2)
		outw(port, (uint16_t)v);
	else
		outl(port, v);
}

/* Identity-mapped: the device sees our addresses as they are. */
static uint64_t x86_vio_dma_addr(const struct virtio_bus *b, const void *p)
{
	(void)b;
	return (uintptr_t)p;
}

/* The legacy virtio-net on PCI, its I/O BAR 0 as @t's register
 * window, I/O decoding and bus mastering on. */
bool virtio_netdev_find(struct virtio_transport *t)
{
	struct virtio_bus bus = {
		.read = x86_vio_read,
		.write = x86_vio_write,
		.dma_addr = x86_vio_dma_addr,
	};

	if (!x86_pci_find(VIRTIO_VENDOR, VIRTIO_NET_LEGACY, &vnet.dev, &vnet.fn))
		return false;
	vnet.io = x86_pci_io_bar(vnet.dev, vnet.fn, 0);
	if (!vnet.io) {
		out_puts(&out_console, "virtio-net: no I/O BAR 0; no network\n");
		return false;
	}
	vnet.irq = x86_pci_irq(vnet.dev, vnet.fn);
	/* I/O decoding and bus mastering (the device reads our rings). */
	x86_pci_write32(vnet.dev, vnet.fn, 0x04,
			(x86_pci_read32(vnet.dev, vnet.fn, 0x04) & 0xffff) | 0x5);
	bus.base = vnet.io;
	virtio_pci_legacy_init(t, &bus);
	return true;
}

void virtio_netdev_failed(int err, const struct virtio_net *n)
{
	(void)err;
	out_printf(&out_console, "virtio-net: queue set-up failed (io 0x%x, sizes %u/%u); no network\n",
		   vnet.io, n->rx.size, n->tx.size);
}

/* The INTx line through the I/O APIC to X86_VEC_NET. */
bool virtio_netdev_route(const struct virtio_transport *t)
{
	bool routed = vnet.irq != 0 && x86_ioapic_route(vnet.irq, X86_VEC_NET, true);

	(void)t;
	if (routed)
		out_printf(&out_console, "virtio-net: legacy at 00:%02x.%u, io 0x%x, irq %u\n",
			   vnet.dev, vnet.fn, vnet.io, vnet.irq);
	else
		out_printf(&out_console, "virtio-net: legacy at 00:%02x.%u, io 0x%x, no interrupt line; polling each tick\n",
			   vnet.dev, vnet.fn, vnet.io);
	return routed;
}

/* The NIC driven, chosen by PCI ID on first need: virtio-net if there
 * is one (QEMU's usual), else an 82574L (e1000e.c; what a real PC may
 * have).  One at a time: X86_VEC_NET is the one device's. */
static enum { NIC_NONE, NIC_VIRTIO, NIC_E1000E } nic = NIC_NONE;

/* The line (or message) is the device's alone (X86_VEC_NET). */
void x86_netdev_irq(void)
{
	if (nic == NIC_E1000E) {
		x86_e1000e_irq();
	} else if (nic == NIC_VIRTIO) {
		virtio_netdev_irq();
		net_rx_wake();
	}
}

/* hal/netdev.h: the portable glue's, for the device found. */
bool hal_netdev_present(void)
{
	if (nic == NIC_NONE)
		nic = virtio_netdev_present() ? NIC_VIRTIO :
		      e1000e_netdev_present() ? NIC_E1000E : NIC_NONE;
	return nic != NIC_NONE;
}

void hal_netdev_mac(uint8_t mac[6])
{
	if (nic == NIC_E1000E)
		e1000e_netdev_mac(mac);
	else
		virtio_netdev_mac(mac);
}

int hal_netdev_send(const void *frame, size_t len)
{
	if (nic == NIC_E1000E)
		return e1000e_netdev_send(frame, len);
	return virtio_netdev_send(frame, len);
}

const struct netdev_rx *hal_netdev_start(void)
{
	if (nic == NIC_E1000E)
		return e1000e_netdev_start();
	return virtio_netdev_start();
}
