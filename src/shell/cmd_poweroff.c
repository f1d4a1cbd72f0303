/* SPDX-License-Identifier: BSD-2-Clause */
/* poweroff: end the machine, with an exit status for whoever started it
 * (QEMU's exit code, the simulator's). */
#include <stdint.h>

#include "hal/power.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "shell/commands.h"
#include "shell/shell.h"

/* QEMU's isa-debug-exit turns status s into exit code 2s + 1, and an
 * exit code has 8 bits: above 127 the status would be lost. */
#define POWEROFF_STATUS_MAX 127

int cmd_poweroff(struct shell_ctx *sh, int argc, char **argv)
{
	uint64_t status = 0;

	if (argc > 2) {
		out_puts(sh->out, "poweroff: usage: " CMD_POWEROFF_USAGE "\n");
		return 1;
	}
	if (argc == 2 && (parse_u64(argv[1], &status) < 0 ||
			  status > POWEROFF_STATUS_MAX)) {
		out_printf(sh->out, "poweroff: status must be 0-%d (got %s)\n",
			   POWEROFF_STATUS_MAX, argv[1]);
		return 1;
	}
	out_printf(sh->out, "powering off (status %d)\n", (int)status);
	hal_power_off((int)status);
}
