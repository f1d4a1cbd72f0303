/* SPDX-License-Identifier: BSD-2-Clause */
/* ksim's steps of the boot story (hal/platform.h).  ksim_start() has done
 * what a kernel's early set-up does (signal handlers for traps, the CPU
 * threads, the console); the steps left here are small.  The late step
 * starts the UDP shell's kernel task (sim/kglue.c). */
#include "hal/platform.h"
#include "sim/sim.h"

void hal_platform_early_init(void)
{
}

/* ksim prints no banner (no arch): its command line and CPUs are the
 * caller's. */
void hal_platform_facts(struct hal_platform_facts *f)
{
	f->entry_el = -1;
}

const char *hal_platform_cmdline(void)
{
	return sim_config.cmdline;
}

/* The boot story calls this once every CPU runs its scheduler, so late
 * work may place tasks on any of them. */
void hal_platform_late_init(void)
{
	if (sim_config.udp_port >= 0)
		sim_udpsh_start();
	if (sim_config.late_init)
		sim_config.late_init();
}
