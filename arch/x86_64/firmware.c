/* SPDX-License-Identifier: BSD-2-Clause */
/* QEMU's firmware configuration device (docs/specs/fw_cfg.rst) through
 * its I/O ports, the way every PC machine of QEMU has it: write a 16-bit
 * selector to 0x510, read the item a byte at a time from 0x511.  Item
 * 0x0000 is the signature "QEMU", item 0x0019 the file directory: a
 * big-endian 32-bit count, then per file {be32 size, be16 select, be16
 * reserved, char name[56]}.  `-fw_cfg name=opt/kprof/udpsh.key,file=F`
 * shows up there, so the key never passes through the command line,
 * which other users of the host can read in /proc.  No DMA interface:
 * a key is a few dozen bytes. */
#include "hal/firmware.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "x86.h"

#define FW_CFG_PORT_SEL 0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000
#define FW_CFG_FILE_DIR 0x0019
#define FW_CFG_NAME_MAX 56

static void x86_fw_select(uint16_t item)
{
	outw(FW_CFG_PORT_SEL, item);
}

static void x86_fw_read(void *buf, size_t n)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < n; i++)
		p[i] = inb(FW_CFG_PORT_DATA);
}

static uint32_t x86_fw_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Without the device the data port reads as 0xff: no signature. */
static bool x86_fw_present(void)
{
	char sig[4];

	x86_fw_select(FW_CFG_SIGNATURE);
	x86_fw_read(sig, sizeof(sig));
	return kmemcmp(sig, "QEMU", 4) == 0;
}

long hal_fw_file_read(const char *name, void *buf, size_t size)
{
	uint8_t count[4];
	uint32_t n;

	if (!x86_fw_present())
		return -ENOENT;
	x86_fw_select(FW_CFG_FILE_DIR);
	x86_fw_read(count, sizeof(count));
	n = x86_fw_be32(count);
	for (uint32_t i = 0; i < n && i < 4096; i++) {
		uint8_t e[8];
		char fname[FW_CFG_NAME_MAX];
		uint32_t fsize;
		uint16_t sel;

		x86_fw_read(e, sizeof(e));
		x86_fw_read(fname, sizeof(fname));
		fname[FW_CFG_NAME_MAX - 1] = '\0';
		if (!kstreq(fname, name))
			continue;
		fsize = x86_fw_be32(e);
		sel = (uint16_t)(e[4] << 8 | e[5]);
		x86_fw_select(sel);
		x86_fw_read(buf, fsize < size ? fsize : size);
		return (long)fsize;
	}
	return -ENOENT;
}
