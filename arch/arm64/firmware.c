/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/firmware.h: no firmware files on arm64 yet (QEMU's virt has an
 * MMIO fw_cfg, which a later issue may read). */
#include "hal/firmware.h"

#include "lib/errno.h"

long hal_fw_file_read(const char *name, void *buf, size_t size)
{
	(void)name;
	(void)buf;
	(void)size;
	return -ENOENT;
}
