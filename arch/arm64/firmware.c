/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/firmware.h on QEMU's firmware configuration device
 * (docs/specs/fw_cfg.rst), memory-mapped as QEMU's virt has it where the
 * device tree's "qemu,fw-cfg-mmio" says: the data register at +0 (read a
 * byte at a time), the 16-bit selector at +8, big-endian.  Item 0x0000
 * is the signature "QEMU", item 0x0019 the file directory: a big-endian
 * 32-bit count, then per file {be32 size, be16 select, be16 reserved,
 * char name[56]}.  `-fw_cfg name=opt/kprof/udpsh.key,file=F` shows up
 * there, so the key never passes through the command line, which other
 * users of the host can read in /proc.  No DMA interface: a key is a few
 * dozen bytes.  The window lies in the Device map (128 MiB - 1 GiB). */
#include "hal/firmware.h"

#include "lib/errno.h"
#include "lib/kstring.h"
#include "a64.h"

#define FW_CFG_DATA		0x0
#define FW_CFG_SEL		0x8
#define FW_CFG_SIGNATURE	0x0000
#define FW_CFG_FILE_DIR		0x0019
#define FW_CFG_NAME_MAX		56

static void a64_fw_select(uint16_t item)
{
	/* Big-endian on the MMIO interface, whatever the CPU's order. */
	*(volatile uint16_t *)(a64_machine.fw_cfg + FW_CFG_SEL) =
		(uint16_t)(item << 8 | item >> 8);
	__asm__ volatile("" : : : "memory");
}

static void a64_fw_read(void *buf, size_t n)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < n; i++)
		p[i] = *(volatile uint8_t *)(a64_machine.fw_cfg + FW_CFG_DATA);
}

static uint32_t a64_fw_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool a64_fw_present(void)
{
	char sig[4];

	if (!a64_machine.fw_cfg || !a64_mem_map_device(a64_machine.fw_cfg, 0x10))
		return false;
	a64_fw_select(FW_CFG_SIGNATURE);
	a64_fw_read(sig, sizeof(sig));
	return kmemcmp(sig, "QEMU", 4) == 0;
}

long hal_fw_file_read(const char *name, void *buf, size_t size)
{
	uint8_t count[4];
	uint32_t n;

	if (!a64_fw_present())
		return -ENOENT;
	a64_fw_select(FW_CFG_FILE_DIR);
	a64_fw_read(count, sizeof(count));
	n = a64_fw_be32(count);
	for (uint32_t i = 0; i < n && i < 4096; i++) {
		uint8_t e[8];
		char fname[FW_CFG_NAME_MAX];
		uint32_t fsize;
		uint16_t sel;

		a64_fw_read(e, sizeof(e));
		a64_fw_read(fname, sizeof(fname));
		fname[FW_CFG_NAME_MAX - 1] = '\0';
		if (!kstreq(fname, name))
			continue;
		fsize = a64_fw_be32(e);
		sel = (uint16_t)(e[4] << 8 | e[5]);
		a64_fw_select(sel);
		a64_fw_read(buf, fsize < size ? fsize : size);
		return (long)fsize;
	}
	return -ENOENT;
}
