/* hal/pmu.h for x86_64, first stage: the probe reports what CPUID claims;
 * no counter is programmed yet, so the profiler stays on the tick. */
#include "hal/pmu.h"
#include "lib/errno.h"

#include "lib/fmt.h"
#include "lib/kstring.h"
#include "x86.h"

struct x86_pmu_claim {
	char vendor[13];
	unsigned arch_perfmon;		/* CPUID 0xA EAX[7:0] */
	unsigned gp_counters;		/* CPUID 0xA EAX[15:8] */
	bool amd_core_ext;		/* CPUID 0x80000001 ECX bit 23 */
	bool amd_perfmon_v2;		/* CPUID 0x80000022 EAX bit 0 */
};

static void pmu_read_cpuid(struct x86_pmu_claim *c)
{
	uint32_t r[4], max, max_ext;

	cpuid(0, 0, r);
	max = r[0];
	kmemcpy(c->vendor, &r[1], 4);
	kmemcpy(c->vendor + 4, &r[3], 4);
	kmemcpy(c->vendor + 8, &r[2], 4);
	c->vendor[12] = '\0';
	if (max >= 0xa) {
		cpuid(0xa, 0, r);
		c->arch_perfmon = r[0] & 0xff;
		c->gp_counters = (r[0] >> 8) & 0xff;
	}
	cpuid(0x80000000, 0, r);
	max_ext = r[0];
	if (max_ext >= 0x80000001) {
		cpuid(0x80000001, 0, r);
		c->amd_core_ext = r[2] >> 23 & 1;
	}
	if (max_ext >= 0x80000022) {
		cpuid(0x80000022, 0, r);
		c->amd_perfmon_v2 = r[0] & 1;
	}
}

void hal_pmu_probe(struct hal_pmu_info *info)
{
	struct x86_pmu_claim c = { 0 };

	pmu_read_cpuid(&c);
	kmemset(info, 0, sizeof(*info));
	if (c.arch_perfmon)
		ksnprintf(info->claim, sizeof(info->claim),
			  "%s arch perfmon v%u, %u counters", c.vendor,
			  c.arch_perfmon, c.gp_counters);
	else if (c.amd_perfmon_v2)
		ksnprintf(info->claim, sizeof(info->claim),
			  "%s core-ext counters, perfmonv2", c.vendor);
	else if (c.amd_core_ext)
		ksnprintf(info->claim, sizeof(info->claim),
			  "%s core-ext counters", c.vendor);
	else
		ksnprintf(info->claim, sizeof(info->claim),
			  "%s, no performance counters", c.vendor);
	info->claimed = c.arch_perfmon >= 2 || c.amd_core_ext;
	info->counts = false;
	info->events_per_sec = x86_tsc_hz();
	kstrlcpy(info->why_not, "counter backend not implemented yet",
		 sizeof(info->why_not));
}

/* Never called: the probe never proves a counter, so the profiler uses
 * the tick (the backend is its own issue). */
int hal_pmu_arm(uint64_t period)
{
	(void)period;
	return -ENOSYS;
}

int hal_pmu_disarm(void)
{
	return -ENOSYS;
}

/* Counting: the events `stat` names, none of them counted until the
 * counter backend exists (and QEMU's TCG claims no PMU at all). */
unsigned hal_pmu_count_events(const char *names[], unsigned bits[])
{
	names[0] = "cycles";
	names[1] = "instructions";
	bits[0] = bits[1] = 48;
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

bool hal_pmu_ack(void)
{
	return false;
}

uint64_t hal_pmu_throttled(void)
{
	return 0;
}

void hal_pmu_lscpu(struct out *o)
{
	(void)o;
}
