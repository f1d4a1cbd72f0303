/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/firmware.h on QEMU's fw_cfg (src/drivers/fw_cfg/) through its I/O
 * ports, the way every PC machine of QEMU has it: a 16-bit selector
 * written to 0x510, the item read a byte at a time from 0x511. */
#include "hal/firmware.h"

#include "drivers/fw_cfg/fw_cfg.h"
#include "x86.h"

#define FW_CFG_PORT_SEL		0x510
#define FW_CFG_PORT_DATA	0x511

static void x86_fw_select(const struct fw_cfg_bus *b, uint16_t item)
{
	(void)b;
	outw(FW_CFG_PORT_SEL, item);
}

static uint8_t x86_fw_read8(const struct fw_cfg_bus *b)
{
	(void)b;
	return inb(FW_CFG_PORT_DATA);
}

long hal_fw_file_read(const char *name, void *buf, size_t size)
{
	static const struct fw_cfg_bus bus = {
		.select = x86_fw_select,
		.read8 = x86_fw_read8,
	};

	return fw_cfg_file_read(&bus, name, buf, size);
}
