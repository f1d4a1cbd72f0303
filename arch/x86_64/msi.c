/* SPDX-License-Identifier: BSD-2-Clause */
/* PCI capabilities and MSI (PCI Local Bus 3.0 §6.7-6.8), for any PCI
 * function on bus 0.  MSI is a PC's one interrupt path that needs no
 * firmware tables: INTx on real hardware goes through ACPI _PRT routing,
 * which this kernel does not evaluate (x86_pci_irq knows only QEMU's
 * PIIX3).  A message is a 32-bit write the device makes to the local
 * APIC's window: address 0xfee00000 with the destination APIC ID in
 * bits 19:12 (physical mode), data the vector (fixed delivery, edge). */
#include "x86.h"

#define PCI_STATUS_CAPS		(1u << 20)	/* status bit 4: a capability list */
#define PCI_CAP_PTR		0x34
#define PCI_CMD_INTX_OFF	(1u << 10)
#define MSI_CTRL_ENABLE		(1u << 16)	/* control is the dword's top half */
#define MSI_CTRL_64BIT		(1u << 23)
#define MSI_CTRL_MME		(7u << 20)	/* vectors granted: 1 */
#define MSI_ADDR		0xfee00000u

unsigned x86_pci_cap_find(unsigned dev, unsigned fn, uint8_t id)
{
	unsigned off, hops;

	if (!(x86_pci_read32(dev, fn, 0x04) & PCI_STATUS_CAPS))
		return 0;
	off = x86_pci_read32(dev, fn, PCI_CAP_PTR) & 0xfc;
	/* At most 48 capabilities fit in 192 bytes: a loop is a broken list. */
	for (hops = 0; off >= 0x40 && hops < 48; hops++) {
		uint32_t head = x86_pci_read32(dev, fn, off);

		if ((head & 0xff) == id)
			return off;
		off = (head >> 8) & 0xfc;
	}
	return 0;
}

bool x86_pci_msi_enable(unsigned dev, unsigned fn, uint8_t vector)
{
	unsigned cap = x86_pci_cap_find(dev, fn, X86_PCI_CAP_MSI);
	uint32_t apic = x86_lapic_id(), ctl, cmd;
	unsigned data_off;

	/* An xAPIC message names at most APIC ID 255; above, it needs
	 * interrupt remapping, which this kernel does not set up. */
	if (!cap || apic > 0xff)
		return false;
	ctl = x86_pci_read32(dev, fn, cap);
	x86_pci_write32(dev, fn, cap, ctl & ~(MSI_CTRL_ENABLE | MSI_CTRL_MME));
	x86_pci_write32(dev, fn, cap + 4, MSI_ADDR | apic << 12);
	if (ctl & MSI_CTRL_64BIT) {
		x86_pci_write32(dev, fn, cap + 8, 0);
		data_off = cap + 12;
	} else {
		data_off = cap + 8;
	}
	/* The data register is 16 bits; the other half (extended data or
	 * reserved) stays 0. */
	x86_pci_write32(dev, fn, data_off, vector);
	x86_pci_write32(dev, fn, cap, (ctl & ~MSI_CTRL_MME) | MSI_CTRL_ENABLE);
	/* INTx off: the device then signals only by message. */
	cmd = x86_pci_read32(dev, fn, 0x04);
	x86_pci_write32(dev, fn, 0x04, (cmd & 0xffffu) | PCI_CMD_INTX_OFF);
	return true;
}
