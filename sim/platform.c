/* ksim's steps of the boot story (hal/platform.h).  ksim_start() has done
 * what a kernel's early set-up does (signal handlers for traps, the CPU
 * threads, the console); the steps left here are small.  The late step,
 * which starts kernel tasks, is kernel-side glue: sim/kglue.c. */
#include "hal/cpu.h"
#include "hal/mem.h"
#include "hal/platform.h"
#include "hal/timer.h"
#include "sim/sim.h"

void hal_platform_early_init(void)
{
}

/* Pages come from the host's allocator (hal_mem_alloc_pages()). */
void hal_mem_init(void)
{
}

/* Each CPU thread set up its own tick timer when it started. */
void hal_timer_init(void)
{
}

/* ksim prints no banner: its command line and CPUs are the caller's. */
void hal_platform_banner(struct out *o)
{
	(void)o;
}

const char *hal_platform_cmdline(void)
{
	return sim_config.cmdline;
}

/* The CPUs are ksim's threads, all started by ksim_start() (--cpus), each
 * already waiting for the scheduler; cpus= cannot take one away. */
void hal_cpus_start(unsigned max)
{
	(void)max;
}
