/* SPDX-License-Identifier: BSD-2-Clause */
/* The other CPUs: the device tree's /cpus, each started with PSCI
 * CPU_ON at a64_secondary_entry (boot.S) with its index as the context
 * id, one at a time, and left waiting for the scheduler. */
#include "hal/cpu.h"

#include "hal/entry.h"
#include "hal/timer.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "lib/out.h"
#include "a64.h"

/* How long a started CPU may take to say it is up: a TCG vCPU thread can
 * start late on a loaded host. */
#define SMP_WAIT_NS	2000000000ull

static unsigned smp_ncpus = 1;

unsigned a64_smp_cpu_count(void)
{
	return smp_ncpus;
}

void a64_secondary_main(unsigned id) __attribute__((noreturn));

void a64_secondary_main(unsigned id)
{
	struct a64_cpu *c = &a64_cpus[id];

	a64_cpu_init(id);
	a64_gic_init_cpu();
	a64_timer_start_cpu();
	__atomic_store_n(&c->started, true, __ATOMIC_RELEASE);
	kernel_ap_main();
}

static bool smp_start_one(unsigned id, uint64_t mpidr)
{
	int64_t rc = a64_psci_call(PSCI_CPU_ON, mpidr,
				   (uintptr_t)a64_secondary_entry, id);
	uint64_t start;

	if (rc != 0) {
		out_printf(&out_console, "smp: cpu 0x%lx: PSCI CPU_ON returned %ld\n",
			   (unsigned long)mpidr, (long)rc);
		return false;
	}
	start = hal_clock_ns();
	while (!__atomic_load_n(&a64_cpus[id].started, __ATOMIC_ACQUIRE))
		if (hal_clock_ns() - start > SMP_WAIT_NS)
			return false;
	return true;
}

void a64_smp_start(unsigned max)
{
	uint64_t self = a64_this_cpu()->mpidr;

	for (unsigned i = 0; i < a64_machine.ncpus && smp_ncpus < max; i++) {
		if (a64_machine.cpu_mpidr[i] == self)
			continue;
		if (!smp_start_one(smp_ncpus, a64_machine.cpu_mpidr[i]))
			break;
		smp_ncpus++;
	}
}

void hal_cpus_start(unsigned max)
{
	unsigned limit = max ? max : HAL_MAX_CPUS;

	a64_mem_split_ram();
	if (!a64_machine.psci) {
		out_puts(&out_console, "smp: no PSCI in the device tree; running on the boot cpu\n");
		return;
	}
	a64_smp_start(limit);
	out_printf(&out_console, "smp: %u of %u cpus up (psci %s)", hal_cpu_count(),
		   a64_machine.ncpus ? a64_machine.ncpus : 1,
		   a64_machine.psci_smc ? "smc" : "hvc");
	if (limit < a64_machine.ncpus)
		out_printf(&out_console, " (cpus=%u)", limit);
	out_puts(&out_console, "\n");
}
