/* SPDX-License-Identifier: BSD-2-Clause */
/* PCI configuration space, mechanism #1 (ports 0xcf8/0xcfc), bus 0.
 * QEMU's pc machine puts every device on bus 0 and qboot has assigned
 * the BARs and interrupt lines before the kernel starts. */
#include "bootinfo.h"
#include "x86.h"
#include "lib/spinlock.h"

#define PCI_ADDR	0xcf8
#define PCI_DATA	0xcfc
#define PCI_DEVS	32

/* The address and data ports are one shared pair. */
static struct spinlock pci_lock = SPINLOCK_INIT;

static uint32_t pci_addr(unsigned dev, unsigned fn, unsigned off)
{
	return 0x80000000u | (dev << 11) | (fn << 8) | (off & 0xfc);
}

uint32_t x86_pci_read32(unsigned dev, unsigned fn, unsigned off)
{
	unsigned long flags = spin_lock_irqsave(&pci_lock);
	uint32_t v;

	outl(PCI_ADDR, pci_addr(dev, fn, off));
	v = inl(PCI_DATA);
	spin_unlock_irqrestore(&pci_lock, flags);
	return v;
}

void x86_pci_write32(unsigned dev, unsigned fn, unsigned off, uint32_t v)
{
	unsigned long flags = spin_lock_irqsave(&pci_lock);

	outl(PCI_ADDR, pci_addr(dev, fn, off));
	outl(PCI_DATA, v);
	spin_unlock_irqrestore(&pci_lock, flags);
}

bool x86_pci_each(bool (*visit)(const struct x86_pci_fn *f, void *ctx), void *ctx)
{
	struct x86_pci_fn f;

	for (f.dev = 0; f.dev < PCI_DEVS; f.dev++) {
		for (f.fn = 0; f.fn < 8; f.fn++) {
			uint32_t id = x86_pci_read32(f.dev, f.fn, 0);

			if (id == 0xffffffffu) {
				if (f.fn == 0)
					break;	/* no device in this slot */
				continue;
			}
			f.vendor = (uint16_t)id;
			f.device = (uint16_t)(id >> 16);
			f.class = (uint8_t)(x86_pci_read32(f.dev, f.fn, 0x08) >> 24);
			if (visit(&f, ctx))
				return true;
			/* Not multi-function: functions 1-7 are absent. */
			if (f.fn == 0 && !(x86_pci_read32(f.dev, 0, 0x0c) & 0x00800000u))
				break;
		}
	}
	return false;
}

struct pci_want {
	uint16_t vendor, device;
	struct x86_pci_fn found;
};

static bool pci_is_wanted(const struct x86_pci_fn *f, void *ctx)
{
	struct pci_want *w = ctx;

	if (f->vendor != w->vendor || f->device != w->device)
		return false;
	w->found = *f;
	return true;
}

bool x86_pci_find(uint16_t vendor, uint16_t device, struct x86_pci_fn *f)
{
	struct pci_want w = { .vendor = vendor, .device = device };

	if (!x86_pci_each(pci_is_wanted, &w))
		return false;
	*f = w.found;
	return true;
}

/* Where the next unassigned I/O BAR goes: above the ISA and chipset
 * ports, as firmware usually puts them. */
static uint32_t pci_io_next = 0xc000;

uint16_t x86_pci_io_bar(unsigned dev, unsigned fn, unsigned bar)
{
	unsigned off = 0x10 + 4 * bar;
	uint32_t v = x86_pci_read32(dev, fn, off), size;

	if (!(v & 1))
		return 0;		/* a memory BAR */
	if (v & ~3u)
		return (uint16_t)(v & ~3u);
	/* qboot leaves BARs alone when QEMU loads the kernel itself: size
	 * this one (the bits that stay 0) and place it. */
	x86_pci_write32(dev, fn, off, 0xffffffffu);
	size = ~(x86_pci_read32(dev, fn, off) & 0xfffcu) & 0xffffu;
	size += 1;
	if (size < 4 || size > 0x1000)
		return 0;
	pci_io_next = (pci_io_next + size - 1) & ~(size - 1);
	if (pci_io_next + size > 0x10000)
		return 0;
	x86_pci_write32(dev, fn, off, pci_io_next);
	v = pci_io_next;
	pci_io_next += size;
	return (uint16_t)v;
}

#define PIIX3_ID	0x70008086u	/* the pc machine's PCI-ISA bridge, 00:01.0 */
#define PIIX_PIRQ_RC	0x60		/* PIRQA-D route control, a byte each */

uint8_t x86_pci_irq(unsigned dev, unsigned fn)
{
	uint32_t reg = x86_pci_read32(dev, fn, 0x3c);
	unsigned pin = (reg >> 8) & 0xff;	/* 1 = INTA */
	unsigned route;

	if (pin == 0)
		return 0;
	/* The Interrupt Line register is only what firmware wrote there
	 * (qboot's guess can be wrong); the bridge's routing is what the
	 * wire does.  QEMU swizzles slot and pin onto PIRQA-D. */
	if (x86_pci_read32(1, 0, 0) == PIIX3_ID) {
		route = (x86_pci_read32(1, 0, PIIX_PIRQ_RC) >> (8 * ((dev - 1 + pin - 1) & 3))) & 0xff;
		return route & 0x80 ? 0 : (uint8_t)(route & 0x0f);
	}
	return (uint8_t)(reg & 0xff) == 0xff ? 0 : (uint8_t)(reg & 0xff);
}

/* Where unassigned memory BARs go: above every byte of RAM below 4 GiB
 * (the boot memory map's; 3.5 GiB of it on QEMU's pc with -m 4G), in
 * 256 MiB steps, never below 0xc0000000 (q35's ECAM is at
 * 0xb0000000-0xbfffffff), and below 0xfe000000 (the I/O APIC, the
 * local APIC and the firmware are above). */
#define PCI_MEM_FLOOR	0xc0000000u
#define PCI_MEM_CEIL	0xfe000000u
static uint32_t pci_mem_next;

static uint32_t pci_mem_window(void)
{
	uint64_t top = PCI_MEM_FLOOR;

	for (unsigned i = 0; i < x86_boot_ram_count(); i++) {
		uint64_t addr, size;

		x86_boot_ram(i, &addr, &size);
		if (addr < (1ull << 32) && addr + size > top)
			top = addr + size;
	}
	top = (top + 0x0fffffffu) & ~0x0fffffffull;
	return top > PCI_MEM_CEIL ? PCI_MEM_CEIL : (uint32_t)top;
}

uint32_t x86_pci_mem_bar(unsigned dev, unsigned fn, unsigned bar, uint32_t *size)
{
	unsigned off = 0x10 + 4 * bar;
	uint32_t v = x86_pci_read32(dev, fn, off), cmd, sz;
	bool wide = ((v >> 1) & 3) == 2;	/* a 64-bit BAR: two registers */

	if (v & 1)
		return 0;		/* an I/O BAR */
	if (wide && x86_pci_read32(dev, fn, off + 4))
		return 0;		/* 64-bit, placed above 4 GiB: not mapped */
	/* Size it with decoding off, so the all-ones probe never decodes. */
	cmd = x86_pci_read32(dev, fn, 0x04);
	x86_pci_write32(dev, fn, 0x04, cmd & 0xfffcu);
	x86_pci_write32(dev, fn, off, 0xffffffffu);
	sz = ~(x86_pci_read32(dev, fn, off) & ~0xfu) + 1;
	x86_pci_write32(dev, fn, off, v);
	if (sz < 16 || (sz & (sz - 1))) {
		x86_pci_write32(dev, fn, 0x04, cmd & 0xffffu);
		return 0;
	}
	if (!(v & ~0xfu)) {
		/* Unassigned (qboot with -kernel): place it, aligned to its size. */
		if (!pci_mem_next)
			pci_mem_next = pci_mem_window();
		pci_mem_next = (pci_mem_next + sz - 1) & ~(sz - 1);
		if (pci_mem_next < PCI_MEM_FLOOR || sz > PCI_MEM_CEIL - pci_mem_next) {
			x86_pci_write32(dev, fn, 0x04, cmd & 0xffffu);
			return 0;
		}
		v = pci_mem_next;
		pci_mem_next += sz;
		x86_pci_write32(dev, fn, off, v);
		if (wide)
			x86_pci_write32(dev, fn, off + 4, 0);
	}
	x86_pci_write32(dev, fn, 0x04, cmd & 0xffffu);
	*size = sz;
	return v & ~0xfu;
}
