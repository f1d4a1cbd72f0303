/* SPDX-License-Identifier: BSD-2-Clause */
/* QEMU's firmware configuration device (QEMU's docs/specs/fw_cfg.rst),
 * its file directory read through a selector and a data register, as
 * every QEMU machine kprof boots on has it: the platform says how to
 * reach the two registers (port I/O on x86, MMIO on arm64's virt), this
 * driver does the rest.  `-fw_cfg name=opt/kprof/udpsh.key,file=F`
 * shows up in the directory, so the key never passes through the
 * command line, which other users of the host can read in /proc.  No
 * DMA interface: a file here is a few dozen bytes. */
#ifndef KPROF_DRIVERS_FW_CFG_FW_CFG_H
#define KPROF_DRIVERS_FW_CFG_FW_CFG_H

#include <stddef.h>
#include <stdint.h>

/* Item 0x0000 is the signature "QEMU", item 0x0019 the file directory:
 * a big-endian 32-bit count, then per file {be32 size, be16 select, be16
 * reserved, char name[56]} (the name NUL-terminated when shorter). */
#define FW_CFG_SIGNATURE	0x0000
#define FW_CFG_FILE_DIR		0x0019
#define FW_CFG_NAME_MAX		56
/* More entries than any QEMU has: a directory that claims more is read
 * no further. */
#define FW_CFG_FILES_MAX	4096

/* How the platform reaches the device.  Filled by the platform, read by
 * the driver; a test fills it with a modelled device.  Task context. */
struct fw_cfg_bus {
	/* Select @item: the data register reads it from its first byte. */
	void (*select)(const struct fw_cfg_bus *b, uint16_t item);
	/* The selected item's next byte. */
	uint8_t (*read8)(const struct fw_cfg_bus *b);
	uintptr_t base;		/* the platform's: a port, an address */
	void *ctx;		/* a test's */
};

/* Copy the file @name into @buf of @size bytes.  Returns its length
 * (which may exceed @size: only @size bytes were copied), or -ENOENT
 * when the device is absent (no signature), has no such file, or @name
 * is longer than a directory entry can hold. */
long fw_cfg_file_read(const struct fw_cfg_bus *b, const char *name, void *buf,
		      size_t size);

#endif
