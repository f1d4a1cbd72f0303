/* SPDX-License-Identifier: BSD-2-Clause */
/* QEMU's fw_cfg file directory: see fw_cfg.h. */
#include "drivers/fw_cfg/fw_cfg.h"

#include <stdbool.h>

#include "lib/errno.h"
#include "lib/kstring.h"

static void fw_cfg_read(const struct fw_cfg_bus *b, void *buf, size_t n)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < n; i++)
		p[i] = b->read8(b);
}

static uint32_t fw_cfg_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Without the device the data register reads as 0xff (x86's open bus)
 * or 0: no signature. */
static bool fw_cfg_present(const struct fw_cfg_bus *b)
{
	char sig[4];

	b->select(b, FW_CFG_SIGNATURE);
	fw_cfg_read(b, sig, sizeof(sig));
	return kmemcmp(sig, "QEMU", 4) == 0;
}

long fw_cfg_file_read(const struct fw_cfg_bus *b, const char *name, void *buf,
		      size_t size)
{
	uint8_t count[4];
	uint32_t n;

	/* An entry holds at most FW_CFG_NAME_MAX - 1 characters and its
	 * NUL: a longer name matches none, so the device is not asked. */
	if (kstrlen(name) >= FW_CFG_NAME_MAX || !fw_cfg_present(b))
		return -ENOENT;
	b->select(b, FW_CFG_FILE_DIR);
	fw_cfg_read(b, count, sizeof(count));
	n = fw_cfg_be32(count);
	for (uint32_t i = 0; i < n && i < FW_CFG_FILES_MAX; i++) {
		uint8_t e[8];
		char fname[FW_CFG_NAME_MAX];
		uint32_t fsize;

		fw_cfg_read(b, e, sizeof(e));
		fw_cfg_read(b, fname, sizeof(fname));
		fname[FW_CFG_NAME_MAX - 1] = '\0';
		if (!kstreq(fname, name))
			continue;
		fsize = fw_cfg_be32(e);
		b->select(b, (uint16_t)(e[4] << 8 | e[5]));
		fw_cfg_read(b, buf, fsize < size ? fsize : size);
		return (long)fsize;
	}
	return -ENOENT;
}
