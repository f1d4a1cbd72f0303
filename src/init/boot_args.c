/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd= and cpus=, declared as command-line keys by the boot story that
 * reads them. */
#include "init/boot_args.h"

#include "hal/cpu.h"
#include "kernel/cmdline.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "lib/parse.h"

static struct boot_args args;

const struct boot_args *boot_args(void)
{
	return &args;
}

void boot_args_reset(void)
{
	args.cmd[0] = '\0';
	args.cpus = 0;
}

static int boot_key_cmd(const char *value, size_t len, struct out *err)
{
	if (!cmdline_value_copy(args.cmd, sizeof(args.cmd), value, len)) {
		out_printf(err, "cmdline: cmd= is %zu bytes, longer than %d; ignored\n",
			   len, BOOT_CMD_MAX);
		return -E2BIG;
	}
	return 0;
}

/* N in 1 .. HAL_MAX_CPUS. */
static int boot_key_cpus(const char *value, size_t len, struct out *err)
{
	char text[24];
	uint64_t n = 0;

	if (!cmdline_value_copy(text, sizeof(text), value, len) ||
	    parse_u64(text, &n) < 0 || n < 1 || n > HAL_MAX_CPUS) {
		out_printf(err, "cmdline: cpus= must be 1-%d (got '%.*s'); ignored\n",
			   HAL_MAX_CPUS, (int)len, value);
		return -EINVAL;
	}
	args.cpus = (unsigned)n;
	return 0;
}

CMDLINE_KEY(boot_key_cmd_entry, .name = "cmd", .set = boot_key_cmd,
	    .help = "\"CMD;CMD...\"  shell commands to run at boot, as if typed");
CMDLINE_KEY(boot_key_cpus_entry, .name = "cpus", .set = boot_key_cpus,
	    .help = "N  bring up at most N CPUs (default every one)");
