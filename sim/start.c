/* SPDX-License-Identifier: BSD-2-Clause */
/* Bringing the simulated machine up: ksim_start() checks the
 * configuration, sets up the host side of the handlers and devices and
 * starts the CPU threads; each CPU thread sets up its own signals,
 * counter and tick, then CPU 0 enters kernel_main() and the others
 * kernel_ap_main().  This file calls the start of every other file of
 * sim/ and nothing calls it back but the CPU threads' entry
 * (sim/thread_entry.S). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hal/entry.h"
#include "sim/netdev.h"
#include "sim/sim.h"

#define SIM_CPU_STACK_SIZE (256 * 1024)

static unsigned sim_cpus_up;
static bool sim_go;

void ksim_config_defaults(struct ksim_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->cpus = 4;
	cfg->hz = 100;
	cfg->pmu_counters = 8;
	cfg->source = KSIM_SOURCE_AUTO;
	cfg->udp_port = -1;
	cfg->in_fd = -1;
	cfg->out_fd = 1;
	cfg->cmdline = "";
}

static void sim_cpu_find_stack(struct sim_cpu *c)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &a) != 0 ||
	    pthread_attr_getstack(&a, &addr, &size) != 0) {
		perror("ksim: cpu stack bounds");
		exit(1);
	}
	pthread_attr_destroy(&a);
	c->stack_lo = (uintptr_t)addr;
	c->stack_hi = (uintptr_t)addr + size;
}

/* The CPU's signal mask outside its handlers: the tick masked until the
 * kernel enables it, the overflow signal always open. */
static void sim_cpu_initial_mask(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGPROF);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	sigemptyset(&s);
	sigaddset(&s, sim_pmu_signo);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}

/* Entered through sim_cpu_thread_start (thread_entry.S). */
void *sim_cpu_thread(void *arg);
void *sim_cpu_thread_start(void *arg);

void *sim_cpu_thread(void *arg)
{
	struct sim_cpu *c = arg;
	struct timespec wait_ts = { 0, 100000 };

	sim_self = c;
	c->tid = gettid();
	sim_cpu_initial_mask();
	sim_cpu_find_stack(c);
	sim_trap_cpu_stack(c);
	sim_pmu_cpu_init(c);
	sim_tick_cpu_init(c);
	__atomic_fetch_add(&sim_cpus_up, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&sim_go, __ATOMIC_ACQUIRE))
		nanosleep(&wait_ts, NULL);
	if (c->id == 0)
		kernel_main();
	while (!sim_kernel_ready())
		nanosleep(&wait_ts, NULL);
	kernel_ap_main();
}

static int sim_check_config(const struct ksim_config *cfg)
{
	if (cfg->cpus < 1 || cfg->cpus > HAL_MAX_CPUS) {
		fprintf(stderr, "ksim: cpus must be 1-%u (got %u)\n", HAL_MAX_CPUS,
			cfg->cpus);
		return -1;
	}
	if (cfg->hz < 1 || cfg->hz > 100000) {
		fprintf(stderr, "ksim: hz must be 1-100000 (got %u)\n", cfg->hz);
		return -1;
	}
	if (cfg->udp_port > 65535) {
		fprintf(stderr, "ksim: udp port must be 0-65535 (got %d)\n",
			cfg->udp_port);
		return -1;
	}
	return 0;
}

/* Everything that is not a CPU (this thread, the console reader, the UDP
 * thread, which inherit its mask) keeps both signals blocked, so a
 * process-wide SIGPROF can only land on a CPU. */
static void sim_block_cpu_signals(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGPROF);
	sigaddset(&s, sim_pmu_signo);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
}

static int sim_start_cpus(void)
{
	struct timespec wait_ts = { 0, 100000 };
	pthread_attr_t a;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, SIM_CPU_STACK_SIZE);
	for (unsigned i = 0; i < sim_ncpus; i++) {
		pthread_t t;

		sim_cpus[i].id = i;
		if (pthread_create(&t, &a, sim_cpu_thread_start, &sim_cpus[i]) != 0) {
			perror("ksim: cpu thread");
			return -1;
		}
		pthread_detach(t);
	}
	pthread_attr_destroy(&a);
	while (__atomic_load_n(&sim_cpus_up, __ATOMIC_ACQUIRE) < sim_ncpus)
		nanosleep(&wait_ts, NULL);
	return 0;
}

int ksim_start(const struct ksim_config *cfg)
{
	if (sim_check_config(cfg) != 0)
		return -1;
	if (cfg->udp_key_file && sim_fw_load_key(cfg->udp_key_file) != 0)
		return -1;
	sim_config = *cfg;
	if (!sim_config.cmdline)
		sim_config.cmdline = "";
	sim_ncpus = cfg->cpus;
	sim_probe_init();
	if (sim_machine_exit_init() != 0)
		return -1;
	sim_timer_start();
	sim_pmu_init();
	if (cfg->source == KSIM_SOURCE_PMU && !ksim_pmu_event_name()) {
		sim_pmu_say_refused();
		return -1;
	}
	sim_block_cpu_signals();
	sim_tick_install_handler();
	sim_pmu_install_handler();
	sim_fault_install_handlers();
	if (cfg->udp_port >= 0 && sim_udp_init() != 0)
		return -1;
	if (sim_netdev_init() != 0)
		return -1;
	sim_console_init();
	if (sim_start_cpus() != 0)
		return -1;
	__atomic_store_n(&sim_go, true, __ATOMIC_RELEASE);
	return 0;
}
