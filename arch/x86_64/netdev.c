/* SPDX-License-Identifier: BSD-2-Clause */
/* The x86 kernel's network device: which NIC on PCI to drive, by a table
 * of the PCI IDs a driver here serves (x86_nics[]), and the platform
 * side of QEMU's virtio-net-pci through the legacy interface of the
 * transitional device (1af4:1000).  The 82574L's platform side is
 * e1000e.c; a third NIC is one more entry and its driver.  A network
 * controller present but in no entry gets one boot line naming it and
 * what is supported, rather than silence.
 *
 * virtio-net: this file gives the portable driver (src/drivers/virtio/
 * virtio_netdev.c) its I/O BAR 0 as a register window, routes its INTx
 * line through the I/O APIC to X86_VEC_NET and says what it found.  The
 * handler only reads the ISR (which lowers the line) and wakes the
 * stack's receive task; with no usable line the task polls at each
 * tick instead.  The identity map makes a buffer's address its bus
 * address. */
#include "drivers/e1000e/e1000e.h"
#include "drivers/virtio/virtio_netdev.h"
#include "kernel/console.h"
#include "lib/out.h"
#include "../common/netdev_hal.h"
#include "x86.h"

#define VIRTIO_VENDOR		0x1af4
#define VIRTIO_NET_LEGACY	0x1000

/* A NIC a driver here serves.  One device is driven at a time
 * (X86_VEC_NET is its alone): the first entry found on PCI whose
 * driver takes it, in table order, QEMU's usual virtio-net first. */
struct x86_nic {
	uint16_t vendor, device;
	const char *name;	/* for the unsupported NIC's boot line */
	struct netdev *(*attach)(const struct x86_pci_fn *f);
};

static const struct x86_nic x86_nics[] = {
	{ VIRTIO_VENDOR, VIRTIO_NET_LEGACY, "virtio-net", x86_virtio_net_attach },
	{ E1000E_VENDOR, E1000E_DEVICE, "e1000e", x86_e1000e_attach },
};

#define X86_NICS (sizeof(x86_nics) / sizeof(x86_nics[0]))

static const struct x86_nic *x86_nic_of(const struct x86_pci_fn *f)
{
	for (unsigned i = 0; i < X86_NICS; i++)
		if (x86_nics[i].vendor == f->vendor && x86_nics[i].device == f->device)
			return &x86_nics[i];
	return 0;
}

/* One line for a network controller no entry serves: QEMU's default
 * e1000 (8086:100e) would otherwise leave the boot silent about why
 * there is no network. */
static bool x86_nic_say_unsupported(const struct x86_pci_fn *f, void *ctx)
{
	(void)ctx;
	if (f->class != X86_PCI_CLASS_NETWORK || x86_nic_of(f))
		return false;
	out_printf(&out_console, "net: network controller %04x:%04x at 00:%02x.%u is not supported (supported:",
		   f->vendor, f->device, f->dev, f->fn);
	for (unsigned i = 0; i < X86_NICS; i++)
		out_printf(&out_console, "%s %s %04x:%04x", i ? "," : "",
			   x86_nics[i].name, x86_nics[i].vendor, x86_nics[i].device);
	out_puts(&out_console, ")\n");
	return false;
}

struct netdev *arch_netdev_probe(void)
{
	struct netdev *d = 0;

	(void)x86_pci_each(x86_nic_say_unsupported, 0);
	for (unsigned i = 0; i < X86_NICS && !d; i++) {
		struct x86_pci_fn f;

		if (x86_pci_find(x86_nics[i].vendor, x86_nics[i].device, &f))
			d = x86_nics[i].attach(&f);
	}
	return d;
}

/* ---- virtio-net's platform side ---- */

/* Where the device is (for the boot lines), and its transport. */
static struct {
	struct x86_pci_fn f;
	uint16_t io;
	uint8_t irq;
	struct virtio_transport t;
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

static void x86_vio_failed(int err, const struct virtio_net *n)
{
	(void)err;
	out_printf(&out_console, "virtio-net: queue set-up failed (io 0x%x, sizes %u/%u); no network\n",
		   vnet.io, n->rx.size, n->tx.size);
}

/* The INTx line through the I/O APIC to X86_VEC_NET. */
static bool x86_vio_route(const struct virtio_transport *t)
{
	bool routed = vnet.irq != 0 && x86_ioapic_route(vnet.irq, X86_VEC_NET, true);

	(void)t;
	if (routed)
		out_printf(&out_console, "virtio-net: legacy at 00:%02x.%u, io 0x%x, irq %u\n",
			   vnet.f.dev, vnet.f.fn, vnet.io, vnet.irq);
	else
		out_printf(&out_console, "virtio-net: legacy at 00:%02x.%u, io 0x%x, no interrupt line; polling each tick\n",
			   vnet.f.dev, vnet.f.fn, vnet.io);
	return routed;
}

static const struct virtio_netdev_platform x86_vio_platform = {
	.t = &vnet.t,
	.failed = x86_vio_failed,
	.route = x86_vio_route,
};

/* The legacy virtio-net at @f, its I/O BAR 0 as the transport's
 * register window, I/O decoding and bus mastering on. */
struct netdev *x86_virtio_net_attach(const struct x86_pci_fn *f)
{
	struct virtio_bus bus = {
		.read = x86_vio_read,
		.write = x86_vio_write,
		.dma_addr = x86_vio_dma_addr,
	};

	vnet.f = *f;
	vnet.io = x86_pci_io_bar(f->dev, f->fn, 0);
	if (!vnet.io) {
		out_puts(&out_console, "virtio-net: no I/O BAR 0; no network\n");
		return 0;
	}
	vnet.irq = x86_pci_irq(f->dev, f->fn);
	/* I/O decoding and bus mastering (the device reads our rings). */
	x86_pci_write32(f->dev, f->fn, 0x04,
			(x86_pci_read32(f->dev, f->fn, 0x04) & 0xffff) | 0x5);
	bus.base = vnet.io;
	virtio_pci_legacy_init(&vnet.t, &bus);
	return virtio_netdev_probe(&x86_vio_platform);
}
