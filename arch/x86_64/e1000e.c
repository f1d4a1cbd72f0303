/* SPDX-License-Identifier: BSD-2-Clause */
/* The 82574L's platform side (src/drivers/e1000e/e1000e_netdev.h), the
 * attach of netdev.c's PCI ID table entry for 8086:10D3: map its memory
 * BAR 0 (128 KiB of registers) uncached, hand the driver that window
 * and this file's calls (struct e1000e_platform), and route its
 * interrupt: MSI when the part offers it (it always does; a real PC's
 * INTx would need ACPI _PRT routing), INTx through the I/O APIC
 * otherwise.  The identity map makes a buffer's
 * address its bus address. */
#include "drivers/e1000e/e1000e_netdev.h"

#include "kernel/console.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "x86.h"

static struct {
	unsigned dev, fn;
	uint32_t mmio, size;
	uint8_t irq;
} e1k;

static struct e1000e_platform x86_e1k_platform;

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

static void x86_e1k_failed(int err)
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

static bool x86_e1k_route(const struct e1000e *e)
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

struct netdev *x86_e1000e_attach(const struct x86_pci_fn *f)
{
	struct e1000e_platform *p = &x86_e1k_platform;

	e1k.dev = f->dev;
	e1k.fn = f->fn;
	e1k.mmio = x86_pci_mem_bar(e1k.dev, e1k.fn, 0, &e1k.size);
	if (!e1k.mmio || e1k.size < 0x10000) {
		out_printf(&out_console, "e1000e: 82574L at 00:%02x.%u has no usable memory BAR 0; no network\n",
			   e1k.dev, e1k.fn);
		return 0;
	}
	x86_mem_uncached(e1k.mmio, (uint64_t)e1k.mmio + e1k.size);
	e1k.irq = x86_pci_irq(e1k.dev, e1k.fn);
	/* Memory decoding and bus mastering (the part reads our rings). */
	x86_pci_write32(e1k.dev, e1k.fn, 0x04,
			(x86_pci_read32(e1k.dev, e1k.fn, 0x04) & 0xffff) | 0x6);
	p->bus.read = x86_e1k_read;
	p->bus.write = x86_e1k_write;
	p->bus.dma_addr = x86_e1k_dma_addr;
	p->bus.delay_us = x86_e1k_delay_us;
	p->bus.base = e1k.mmio;
	p->bus.ctx = 0;
	p->failed = x86_e1k_failed;
	p->route = x86_e1k_route;
	return e1000e_netdev_probe(p);
}
