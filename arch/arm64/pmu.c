/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/pmu.h for arm64, first stage: the probe reports what the ID
 * registers claim (MIDR, the PMU version in ID_AA64DFR0_EL1); no counter
 * is programmed yet, so the profiler stays on the tick. */
#include "hal/pmu.h"

#include "lib/errno.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "a64.h"

void hal_pmu_probe(struct hal_pmu_info *info)
{
	uint64_t midr = A64_SYSREG_READ(midr_el1);
	unsigned pmuver = (A64_SYSREG_READ(id_aa64dfr0_el1) >> 8) & 0xf;

	kmemset(info, 0, sizeof(*info));
	if (pmuver && pmuver != 0xf)
		ksnprintf(info->claim, sizeof(info->claim),
			  "midr 0x%08lx, pmuv3 (pmuver 0x%x)", (unsigned long)midr, pmuver);
	else
		ksnprintf(info->claim, sizeof(info->claim),
			  "midr 0x%08lx, no pmuv3", (unsigned long)midr);
	info->claimed = pmuver && pmuver != 0xf;
	info->counts = false;
	info->events_per_sec = a64_timer_hz();
	kstrlcpy(info->why_not, "counter backend not implemented yet",
		 sizeof(info->why_not));
}

/* Never called: the probe never proves a counter. */
int hal_pmu_arm(uint64_t period)
{
	(void)period;
	return -ENOSYS;
}

int hal_pmu_disarm(void)
{
	return -ENOSYS;
}

bool hal_pmu_ack(void)
{
	return false;
}

unsigned hal_pmu_count_events(const char *names[], unsigned bits[])
{
	names[0] = "cycles";
	names[1] = "instructions";
	bits[0] = 64;
	bits[1] = 32;
	return 2;
}

void hal_pmu_count_open(bool open[])
{
	open[0] = open[1] = false;
}

void hal_pmu_count_read(uint64_t values[])
{
	values[0] = values[1] = 0;
}

void hal_pmu_count_close(void)
{
}

/* No counter is armed on arm64 yet, so nothing is ever throttled. */
uint64_t hal_pmu_throttled(void)
{
	return 0;
}

/* The claim lines (MIDR, PMU version) are the portable ones. */
void hal_pmu_lscpu(struct out *o)
{
	(void)o;
}
