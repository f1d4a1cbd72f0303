/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/firmware.h on QEMU's fw_cfg (src/drivers/fw_cfg/), memory-mapped
 * as QEMU's virt has it where the device tree's "qemu,fw-cfg-mmio" says:
 * the data register at +0 (read a byte at a time), the 16-bit selector
 * at +8, big-endian.  The window lies in the Device map (128 MiB -
 * 1 GiB). */
#include "hal/firmware.h"

#include "drivers/fw_cfg/fw_cfg.h"
#include "lib/errno.h"
#include "a64.h"

#define FW_CFG_DATA		0x0
#define FW_CFG_SEL		0x8

static void a64_fw_select(const struct fw_cfg_bus *b, uint16_t item)
{
	/* Big-endian on the MMIO interface, whatever the CPU's order. */
	*(volatile uint16_t *)(b->base + FW_CFG_SEL) = (uint16_t)(item << 8 | item >> 8);
	__asm__ volatile("" : : : "memory");
}

static uint8_t a64_fw_read8(const struct fw_cfg_bus *b)
{
	return *(volatile uint8_t *)(b->base + FW_CFG_DATA);
}

long hal_fw_file_read(const char *name, void *buf, size_t size)
{
	struct fw_cfg_bus bus = {
		.select = a64_fw_select,
		.read8 = a64_fw_read8,
		.base = a64_machine.fw_cfg,
	};

	if (!a64_machine.fw_cfg || !a64_mem_map_device(a64_machine.fw_cfg, 0x10))
		return -ENOENT;
	return fw_cfg_file_read(&bus, name, buf, size);
}
