/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/firmware.h for ksim, its firmware files: `--udp-key FILE` is read
 * once at start and served as QEMU's fw_cfg serves opt/kprof/udpsh.key,
 * so the kernel takes its key the same way on every platform. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hal/firmware.h"
#include "shell/udpsh/wire.h"
#include "../tools/keyfile.h"
#include "sim/sim.h"

/* The key in hex, as the kernel reads the firmware file. */
static char sim_fw_key[2 * UDPSH_KEY_MAX + 1];
static long sim_fw_key_len = -1;

/* The file is checked by tools/keyfile.c's rules (a regular file, mode
 * 600, 16-64 bytes in hex, not one byte repeated), so a bad file stops
 * ksim at once with a message that names the file, never its contents. */
int sim_fw_load_key(const char *path)
{
	uint8_t key[UDPSH_KEY_MAX];
	int n = keyfile_read("ksim", path, key);

	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++)
		snprintf(sim_fw_key + 2 * i, 3, "%02x", key[i]);
	memset(key, 0, sizeof(key));
	sim_fw_key_len = 2 * n;
	return 0;
}

long hal_fw_file_read(const char *name, void *buf, size_t size)
{
	if (strcmp(name, HAL_FW_UDPSH_KEY) != 0 || sim_fw_key_len < 0)
		return -ENOENT;
	memcpy(buf, sim_fw_key, size < (size_t)sim_fw_key_len ? size : (size_t)sim_fw_key_len);
	return sim_fw_key_len;
}
