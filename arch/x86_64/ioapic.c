/* SPDX-License-Identifier: BSD-2-Clause */
/* The I/O APIC: one redirection entry per device interrupt line.  Only
 * the virtio-net INTx line is routed; the ISA lines stay masked as the
 * firmware left them.  The I/O APIC sits at its architectural address,
 * which boot.S maps uncached (QEMU's pc machine has exactly one there). */
#include "x86.h"
#include "lib/spinlock.h"

#define IOAPIC_ADDR	0xfec00000u
#define IOAPIC_REGSEL	0x00
#define IOAPIC_WIN	0x10
#define IOAPIC_VER	0x01
#define IOAPIC_REDIR(n)	(0x10 + 2 * (n))

#define REDIR_LEVEL	(1u << 15)
#define REDIR_MASKED	(1u << 16)

static struct spinlock ioapic_lock = SPINLOCK_INIT;

static uint32_t ioapic_read(unsigned reg)
{
	mmio_write32(IOAPIC_ADDR + IOAPIC_REGSEL, reg);
	return mmio_read32(IOAPIC_ADDR + IOAPIC_WIN);
}

static void ioapic_write(unsigned reg, uint32_t v)
{
	mmio_write32(IOAPIC_ADDR + IOAPIC_REGSEL, reg);
	mmio_write32(IOAPIC_ADDR + IOAPIC_WIN, v);
}

bool x86_ioapic_route(unsigned gsi, uint8_t vector, bool level)
{
	unsigned long flags = spin_lock_irqsave(&ioapic_lock);
	unsigned pins = ((ioapic_read(IOAPIC_VER) >> 16) & 0xff) + 1;
	uint32_t lo = vector | (level ? REDIR_LEVEL : 0);	/* fixed, physical, active high */
	uint32_t dest = x86_lapic_id();

	/* 240+ pins: nothing answered there.  The destination field holds
	 * 8 bits: a larger x2APIC ID would need interrupt remapping. */
	if (gsi >= pins || pins > 240 || dest > 0xff) {
		spin_unlock_irqrestore(&ioapic_lock, flags);
		return false;
	}
	ioapic_write(IOAPIC_REDIR(gsi), REDIR_MASKED);
	ioapic_write(IOAPIC_REDIR(gsi) + 1, dest << 24);
	ioapic_write(IOAPIC_REDIR(gsi), lo);
	spin_unlock_irqrestore(&ioapic_lock, flags);
	return true;
}
