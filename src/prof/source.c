/* SPDX-License-Identifier: BSD-2-Clause */
/* What the profiler samples on: the counter's probe (once, for every
 * CPU), what the boot asked for (profile.source=), and the choice
 * between the counter and the tick a run makes from them.  Task
 * context. */
#include "prof/profiler.h"

#include "hal/pmu.h"
#include "kernel/cmdline.h"
#include "kernel/tick.h"
#include "lib/errno.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/spinlock.h"

/* What the boot asked for: profile.source=auto|pmu|tick. */
enum prof_source { PROF_SOURCE_AUTO, PROF_SOURCE_PMU, PROF_SOURCE_TICK };
static enum prof_source prof_source_asked = PROF_SOURCE_AUTO;

/* The probe's answer, made once under its lock. */
static struct spinlock prof_probe_lock = SPINLOCK_INIT;
static bool pmu_ready;
static struct hal_pmu_info pmu_info;

/* Under prof_probe_lock. */
static void prof_probe_locked(void)
{
	if (pmu_ready)
		return;
	kmemset(&pmu_info, 0, sizeof(pmu_info));
	hal_pmu_probe(&pmu_info);
	/* Other CPUs arm on the strength of this answer. */
	__atomic_store_n(&pmu_ready, true, __ATOMIC_RELEASE);
}

const struct hal_pmu_info *prof_pmu_info(void)
{
	unsigned long flags;

	if (!__atomic_load_n(&pmu_ready, __ATOMIC_ACQUIRE)) {
		flags = spin_lock_irqsave(&prof_probe_lock);
		prof_probe_locked();
		spin_unlock_irqrestore(&prof_probe_lock, flags);
	}
	return &pmu_info;
}

int prof_set_source(const char *name)
{
	if (kstreq(name, "auto"))
		prof_source_asked = PROF_SOURCE_AUTO;
	else if (kstreq(name, "pmu"))
		prof_source_asked = PROF_SOURCE_PMU;
	else if (kstreq(name, "tick"))
		prof_source_asked = PROF_SOURCE_TICK;
	else
		return -EINVAL;
	return 0;
}

/* profile.source=auto|pmu|tick, as ksim's --source. */
static int prof_key_source(const char *value, size_t len, struct out *err)
{
	char name[8];

	if (!cmdline_value_copy(name, sizeof(name), value, len) ||
	    prof_set_source(name) < 0) {
		out_printf(err, "cmdline: profile.source= must be auto, pmu or tick (got '%.*s'); ignored\n",
			   (int)len, value);
		return -EINVAL;
	}
	return 0;
}

CMDLINE_KEY(prof_key_source_entry, .name = "profile.source", .set = prof_key_source,
	    .help = "auto|pmu|tick  what profile samples on (default auto)");

bool prof_counter_counts(const struct hal_pmu_info *info)
{
	return info->counts && info->events_per_sec >= PROF_COUNTER_HZ &&
	       info->source[0];
}

bool prof_counter_usable(const struct hal_pmu_info *info)
{
	return prof_source_asked != PROF_SOURCE_TICK && prof_counter_counts(info);
}

bool prof_run_uses_counter(const struct hal_pmu_info *info,
			   enum prof_run_source source)
{
	if (source == PROF_RUN_TICK)
		return false;
	if (source == PROF_RUN_PMU)
		return prof_counter_counts(info);
	return prof_counter_usable(info);
}

bool prof_counter_required_but_absent(const struct hal_pmu_info *info)
{
	return prof_source_asked == PROF_SOURCE_PMU && !prof_counter_usable(info);
}

const char *prof_source_name(const struct hal_pmu_info *info)
{
	return prof_counter_usable(info) ? info->source : tick_source();
}
