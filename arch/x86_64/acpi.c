/* SPDX-License-Identifier: BSD-2-Clause */
/* ACPI, as far as SMP and the clock need it: the RSDP (from the PVH start info, or
 * found in the BIOS area), the RSDT or XSDT, and the MADT's local APICs
 * and I/O APICs.  Every table must lie in the identity map (below 4 GiB)
 * and pass its checksum, or it is not used. */
#include <stdint.h>

#include "lib/kstring.h"
#include "x86.h"

#define BIOS_AREA_LO	0xe0000u
#define BIOS_AREA_HI	0x100000u
#define ACPI_LIMIT	(4ull << 30)	/* the identity map's end (boot.S) */

struct acpi_rsdp {
	char signature[8];		/* "RSD PTR " */
	uint8_t checksum;		/* over the first 20 bytes */
	char oem_id[6];
	uint8_t revision;		/* 0: ACPI 1.0; 2: has the XSDT */
	uint32_t rsdt_addr;
	uint32_t length;
	uint64_t xsdt_addr;
	uint8_t ext_checksum;
	uint8_t reserved[3];
} __attribute__((packed));

struct acpi_sdt {
	char signature[4];
	uint32_t length;		/* header included */
	uint8_t revision;
	uint8_t checksum;		/* over @length bytes */
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));

struct acpi_madt {
	struct acpi_sdt hdr;
	uint32_t lapic_addr;
	uint32_t flags;
	uint8_t entries[];
} __attribute__((packed));

#define MADT_LAPIC		0
#define MADT_IOAPIC		1
#define MADT_LAPIC_OVERRIDE	5
#define MADT_X2APIC		9	/* ACPI 4.0: 32-bit IDs */
#define MADT_LAPIC_ENABLED	(1u << 0)
#define MADT_LAPIC_ONLINE_CAPABLE (1u << 1)

static bool acpi_checksum_ok(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return sum == 0;
}

static bool acpi_mapped(uint64_t addr, uint64_t len)
{
	return addr && addr < ACPI_LIMIT && len <= ACPI_LIMIT - addr;
}

static const struct acpi_rsdp *acpi_rsdp_at(uint64_t addr)
{
	const struct acpi_rsdp *r = (const struct acpi_rsdp *)(uintptr_t)addr;

	if (!acpi_mapped(addr, sizeof(*r)) ||
	    kmemcmp(r->signature, "RSD PTR ", 8) || !acpi_checksum_ok(r, 20))
		return NULL;
	return r;
}

/* The firmware leaves the RSDP on a 16-byte boundary in 0xE0000-0xFFFFF
 * (the EBDA is the other place; neither qboot nor SeaBIOS uses it). */
static const struct acpi_rsdp *acpi_find_rsdp(uint64_t hint)
{
	const struct acpi_rsdp *r = hint ? acpi_rsdp_at(hint) : NULL;

	for (uint32_t a = BIOS_AREA_LO; !r && a < BIOS_AREA_HI; a += 16)
		r = acpi_rsdp_at(a);
	return r;
}

static const struct acpi_sdt *acpi_table_at(uint64_t addr)
{
	const struct acpi_sdt *t = (const struct acpi_sdt *)(uintptr_t)addr;

	if (!acpi_mapped(addr, sizeof(*t)) || !acpi_mapped(addr, t->length) ||
	    t->length < sizeof(*t) || !acpi_checksum_ok(t, t->length))
		return NULL;
	return t;
}

/* The table with @sig that the XSDT (8-byte entries) or else the RSDT
 * (4-byte entries) lists. */
static const struct acpi_sdt *acpi_find_table(const struct acpi_rsdp *r,
					      const char *sig)
{
	const struct acpi_sdt *root = NULL;
	size_t entry_size = 4;

	if (r->revision >= 2 && acpi_checksum_ok(r, sizeof(*r)) &&
	    (root = acpi_table_at(r->xsdt_addr)))
		entry_size = 8;
	else
		root = acpi_table_at(r->rsdt_addr);
	if (!root)
		return NULL;
	for (size_t off = sizeof(*root); off + entry_size <= root->length;
	     off += entry_size) {
		const uint8_t *e = (const uint8_t *)root + off;
		uint64_t addr = 0;
		const struct acpi_sdt *t;

		kmemcpy(&addr, e, entry_size);	/* unaligned, little-endian */
		t = acpi_table_at(addr);
		if (t && !kmemcmp(t->signature, sig, 4))
			return t;
	}
	return NULL;
}

/* A CPU's APIC, from a type 0 entry (8-bit ID at byte 3, flags at 4) or
 * a type 9 one (32-bit ID at 4, flags at 8).  Firmware may list a CPU
 * in both: it is counted once. */
static void madt_add_lapic(struct x86_madt *m, uint32_t id, uint32_t flags)
{
	if (!(flags & (MADT_LAPIC_ENABLED | MADT_LAPIC_ONLINE_CAPABLE))) {
		m->disabled++;
		return;
	}
	for (unsigned i = 0; i < m->ncpus; i++)
		if (m->apic_ids[i] == id)
			return;
	if (m->ncpus < X86_MAX_APICS)
		m->apic_ids[m->ncpus++] = id;
}

void x86_madt_entries(const uint8_t *e, size_t len, struct x86_madt *m)
{
	const uint8_t *end = e + len;

	for (; e + 2 <= end && e[1] >= 2 && e + e[1] <= end; e += e[1]) {
		uint32_t id, flags;

		if (e[0] == MADT_LAPIC && e[1] >= 8) {
			kmemcpy(&flags, e + 4, 4);
			madt_add_lapic(m, e[3], flags);
		} else if (e[0] == MADT_X2APIC && e[1] >= 16) {
			kmemcpy(&id, e + 4, 4);
			kmemcpy(&flags, e + 8, 4);
			madt_add_lapic(m, id, flags);
		} else if (e[0] == MADT_IOAPIC && e[1] >= 12) {
			if (!m->nioapics++)
				kmemcpy(&m->ioapic_addr, e + 4, 4);
		} else if (e[0] == MADT_LAPIC_OVERRIDE && e[1] >= 12) {
			uint64_t a;

			kmemcpy(&a, e + 4, 8);
			if (a < ACPI_LIMIT)
				m->lapic_addr = (uint32_t)a;
		}
	}
}

bool x86_acpi_read_madt(uint64_t rsdp_hint, struct x86_madt *m)
{
	const struct acpi_rsdp *r = acpi_find_rsdp(rsdp_hint);
	const struct acpi_madt *madt;

	kmemset(m, 0, sizeof(*m));
	if (!r)
		return false;
	madt = (const struct acpi_madt *)acpi_find_table(r, "APIC");
	if (!madt || madt->hdr.length < sizeof(*madt))
		return false;
	m->lapic_addr = madt->lapic_addr;
	x86_madt_entries(madt->entries, madt->hdr.length - sizeof(*madt), m);
	return true;
}

/* The FADT's power-management timer (ACPI 6.5, 5.2.9): PM_TMR_BLK at
 * byte 76, PM_TMR_LEN (4 when there is one) at 91, the flags at 112
 * (TMR_VAL_EXT, bit 8: 32 bits, else 24), X_PM_TMR_BLK (a generic
 * address: space, width, offset, access size, address) at 208, which
 * wins when it is given.  Only the I/O-port timer is used. */
#define FADT_PM_TMR_BLK		76
#define FADT_PM_TMR_LEN		91
#define FADT_FLAGS		112
#define FADT_X_PM_TMR_BLK	208
#define FADT_TMR_VAL_EXT	(1u << 8)
#define GAS_SIZE		12
#define GAS_SYSTEM_IO		1

bool x86_acpi_pm_timer(uint64_t rsdp_hint, uint16_t *port, bool *bits32)
{
	const struct acpi_rsdp *r = acpi_find_rsdp(rsdp_hint);
	const uint8_t *f;
	uint32_t blk = 0, flags = 0, len;

	if (!r)
		return false;
	f = (const uint8_t *)acpi_find_table(r, "FACP");
	if (!f)
		return false;
	len = ((const struct acpi_sdt *)f)->length;

	if (len >= FADT_FLAGS + 4)
		kmemcpy(&flags, f + FADT_FLAGS, 4);
	if (len >= FADT_X_PM_TMR_BLK + GAS_SIZE) {
		uint64_t a;

		kmemcpy(&a, f + FADT_X_PM_TMR_BLK + 4, 8);
		if (a && f[FADT_X_PM_TMR_BLK] == GAS_SYSTEM_IO && a <= 0xffff)
			blk = (uint32_t)a;
		else if (a)
			return false;		/* memory-mapped: not ours */
	}
	if (!blk && len > FADT_PM_TMR_LEN && f[FADT_PM_TMR_LEN] == 4)
		kmemcpy(&blk, f + FADT_PM_TMR_BLK, 4);
	if (!blk || blk > 0xffff)
		return false;
	*port = (uint16_t)blk;
	*bits32 = flags & FADT_TMR_VAL_EXT;
	return true;
}
