/* SPDX-License-Identifier: BSD-2-Clause */
/* The 82574L's platform side (src/drivers/e1000e/e1000e_netdev.h): find
 * 8086:10D3 on PCI, map its memory BAR 0 (128 KiB of registers)
 * uncached, and route its interrupt: MSI when the part offers it (it
 * always does; a real PC's INTx would need ACPI _PRT routing), INTx
 * through the I/O APIC otherwise.  The identity map makes a buffer's
 * address its bus address. */
#include "drivers/e1000e/e1000e_netdev.h"

#include "hal/entry.h"
#include "kernel/console.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "x86.h"

static struct {
	unsigned dev, fn;
	uint32_t mmio, size;
	uint8_t irq;
} e1k;

static uint32_t x86_e1k_read(const struct e1000e_bus *b, unsigned off)
{
	return *(volatile uint32_t *)(b->base + off);
}

static void x86_e1k_write(const struct e1000e_bus *b, unsigned off, uint32_t v)
{
	*(volatile uint32_t *)(b->base + off) = v;
}

static uint64_t x86_e1k_dma_addr(const struct e1000e_bus *b, const void *p)
{
	(void)b;
	return (uintptr_t)p;
}

static void x86_e1k_delay_us(const struct e1000e_bus *b, unsigned us)
{
	(void)b;
	x86_delay_us(us);
}

bool e1000e_netdev_find(struct e1000e_bus *bus)
{
	if (!x86_pci_find(E1000E_VENDOR, E1000E_DEVICE, &e1k.dev, &e1k.fn))
		return false;
	e1k.mmio = x86_pci_mem_bar(e1k.dev, e1k.fn, 0, &e1k.size);
	if (!e1k.mmio || e1k.size < 0x10000) {
		out_printf(&out_console, "e1000e: 82574L at 00:%02x.%u has no usable memory BAR 0; no network\n",
			   e1k.dev, e1k.fn);
		return false;
	}
	x86_mem_uncached(e1k.mmio, (uint64_t)e1k.mmio + e1k.size);
	e1k.irq = x86_pci_irq(e1k.dev, e1k.fn);
	/* Memory decoding and bus mastering (the part reads our rings). */
	x86_pci_write32(e1k.dev, e1k.fn, 0x04,
			(x86_pci_read32(e1k.dev, e1k.fn, 0x04) & 0xffff) | 0x6);
	bus->read = x86_e1k_read;
	bus->write = x86_e1k_write;
	bus->dma_addr = x86_e1k_dma_addr;
	bus->delay_us = x86_e1k_delay_us;
	bus->base = e1k.mmio;
	bus->ctx = 0;
	return true;
}

void e1000e_netdev_failed(int err)
{
	out_printf(&out_console, "e1000e: 82574L at 00:%02x.%u, mmio 0x%x: set-up failed (%s); no network\n",
		   e1k.dev, e1k.fn, e1k.mmio,
		   err == -ETIMEDOUT ? "reset never ended" : err == -ENODEV ? "no MAC address" : "no memory");
}

/* MSI first; INTx through the I/O APIC where the part offers no MSI. */
static const char *e1k_route(void)
{
	if (x86_pci_msi_enable(e1k.dev, e1k.fn, X86_VEC_NET))
		return "msi";
	if (e1k.irq && x86_ioapic_route(e1k.irq, X86_VEC_NET, true))
		return "intx";
	return 0;
}

bool e1000e_netdev_route(const struct e1000e *e)
{
	const char *how = e1k_route();
	const uint8_t *m = e->mac;

	out_printf(&out_console, "e1000e: 82574L at 00:%02x.%u, mmio 0x%x, mac %02x:%02x:%02x:%02x:%02x:%02x, link %s, ",
		   e1k.dev, e1k.fn, e1k.mmio, m[0], m[1], m[2], m[3], m[4], m[5],
		   e->link_up ? "up" : "down (yet)");
	if (!how)
		out_puts(&out_console, "no interrupt; polling each tick\n");
	else if (how[0] == 'm')
		out_printf(&out_console, "msi vector 0x%x\n", X86_VEC_NET);
	else
		out_printf(&out_console, "irq %u\n", e1k.irq);
	return how != 0;
}

void x86_e1000e_irq(void)
{
	e1000e_netdev_irq();
	net_rx_wake();
}
