/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/firmware.h for ksim, its firmware files: `--udp-key FILE` is read
 * once at start and served as QEMU's fw_cfg serves opt/kprof/udpsh.key,
 * so the kernel takes its key the same way on every platform. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hal/firmware.h"
#include "sim/sim.h"

/* Room for the longest key in hex and some blanks; a longer file is not
 * a key. */
#define SIM_FW_KEY_MAX 512

static char sim_fw_key[SIM_FW_KEY_MAX];
static long sim_fw_key_len = -1;

/* Hex digits in pairs, then only blanks: the shape udpsh_key_parse()
 * takes.  Checked here too so that a bad file stops ksim at once with a
 * message that names the file, never its contents. */
static int sim_fw_key_digits(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && strchr("0123456789abcdefABCDEF", s[i]) && s[i])
		i++;
	for (size_t j = i; j < n; j++)
		if (!strchr(" \t\r\n", s[j]) || !s[j])
			return -1;
	return (int)i;
}

int sim_fw_load_key(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int digits;

	if (fd < 0) {
		fprintf(stderr, "ksim: --udp-key %s: %s\n", path, strerror(errno));
		return -1;
	}
	do
		n = read(fd, sim_fw_key, sizeof(sim_fw_key));
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0) {
		fprintf(stderr, "ksim: --udp-key %s: %s\n", path, strerror(errno));
		return -1;
	}
	digits = n < (ssize_t)sizeof(sim_fw_key) ? sim_fw_key_digits(sim_fw_key, (size_t)n) : -1;
	if (digits < 32 || digits > 128 || digits % 2) {
		fprintf(stderr, "ksim: --udp-key %s: not a key of 16-64 bytes in hex (32-128 hex digits)\n",
			path);
		memset(sim_fw_key, 0, sizeof(sim_fw_key));
		return -1;
	}
	sim_fw_key_len = n;
	return 0;
}

long hal_fw_file_read(const char *name, void *buf, size_t size)
{
	if (strcmp(name, HAL_FW_UDPSH_KEY) != 0 || sim_fw_key_len < 0)
		return -ENOENT;
	memcpy(buf, sim_fw_key, size < (size_t)sim_fw_key_len ? size : (size_t)sim_fw_key_len);
	return sim_fw_key_len;
}
