/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel's software events (kernel/kevents.h). */
#include "kernel/kevents.h"

#include "hal/cpu.h"
#include "kernel/sched.h"

/* A cache line per CPU: each CPU advances only its own. */
static struct {
	uint64_t n[KEV_COUNT];
} __attribute__((aligned(HAL_CACHELINE))) kevents[HAL_MAX_CPUS];

static const struct {
	const char *name, *what;
} kevent_info[KEV_COUNT] = {
	[KEV_CONTEXT_SWITCHES] = { "context-switches", "switches from one task to another" },
	[KEV_TICKS] = { "ticks", "ticks taken" },
	[KEV_INTERRUPTS] = { "interrupts", "maskable interrupts taken, ticks included" },
	[KEV_NMIS] = { "nmis", "entries to the kernel's nmi path" },
	[KEV_NET_RX_FRAMES] = { "net-rx-frames", "frames received" },
	[KEV_NET_TX_FRAMES] = { "net-tx-frames", "frames sent" },
};

const char *kevent_name(enum kevent e)
{
	return (unsigned)e < KEV_COUNT ? kevent_info[e].name : "?";
}

const char *kevent_what(enum kevent e)
{
	return (unsigned)e < KEV_COUNT ? kevent_info[e].what : "?";
}

void kevent_count(enum kevent e)
{
	unsigned cpu = hal_cpu_id();

	if (cpu < HAL_MAX_CPUS && (unsigned)e < KEV_COUNT)
		__atomic_fetch_add(&kevents[cpu].n[e], 1, __ATOMIC_RELAXED);
}

/* Switches and ticks the scheduler counts already (struct cpu): read
 * there, so that the switch path pays nothing more for them. */
uint64_t kevent_read(unsigned cpu, enum kevent e)
{
	if (cpu >= HAL_MAX_CPUS || (unsigned)e >= KEV_COUNT)
		return 0;
	if (e == KEV_CONTEXT_SWITCHES)
		return __atomic_load_n(&cpus[cpu].switches, __ATOMIC_RELAXED);
	if (e == KEV_TICKS)
		return __atomic_load_n(&cpus[cpu].ticks, __ATOMIC_RELAXED);
	return __atomic_load_n(&kevents[cpu].n[e], __ATOMIC_RELAXED);
}
