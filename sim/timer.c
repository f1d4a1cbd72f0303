/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/timer.h for ksim: the clock is the host's CLOCK_MONOTONIC from the
 * machine's start; the tick itself is SIGPROF from a per-thread timer,
 * set up by each CPU thread (sim/tick.c). */
#define _GNU_SOURCE
#include <signal.h>
#include <time.h>

#include "hal/timer.h"
#include "sim/sim.h"

static uint64_t sim_boot_ns;

/* The same reading as sim/cpu.c's cycle clock, kept static in each so
 * that the compiler inlines it, as it did when both lived in one file. */
static uint64_t sim_clock_read(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sim_timer_start(void)
{
	sim_boot_ns = sim_clock_read(CLOCK_MONOTONIC);
}

/* Each CPU thread set up its own tick timer when it started. */
void hal_timer_init(void)
{
}

uint64_t hal_clock_ns(void)
{
	return sim_clock_read(CLOCK_MONOTONIC) - sim_boot_ns;
}

/* The default rate is --hz.  A CPU thread the host leaves unscheduled
 * is late, not dead: on a loaded 2-core host, threads of four CPUs have
 * waited over 200 ms for a core.  Only a thread that is really stuck
 * misses the answer bound. */
void hal_timer_info(struct hal_timer_info *info)
{
	info->name = "tick/sigprof";
	info->default_hz = sim_config.hz;
	info->answer_ns = 5000000000ull;
	info->irq = SIGPROF;
}
