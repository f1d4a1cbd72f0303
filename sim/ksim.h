/* SPDX-License-Identifier: BSD-2-Clause */
/* ksim, the Linux-hosted machine, as a library: sim/main.c is the `ksim`
 * program around it, and the Check suites start a machine in-process
 * (inside a checked fixture or the test itself, in Check's forked child:
 * one machine per process, never restarted). */
#ifndef KPROF_SIM_KSIM_H
#define KPROF_SIM_KSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ksim_source {
	KSIM_SOURCE_AUTO,	/* the counter when it counts, else the tick */
	KSIM_SOURCE_PMU,	/* the counter, or refuse to start */
	KSIM_SOURCE_TICK,	/* never open a counter */
};

/* Exit statuses of the simulated machine besides a command's own. */
#define KSIM_EXIT_PANIC 70	/* a CPU halted after a panic */

struct ksim_config {
	unsigned cpus;			/* 1 .. HAL_MAX_CPUS; default 4 */
	unsigned hz;			/* tick rate per CPU; default 100 */
	enum ksim_source source;
	/* Test hook: behave as if perf_event_open were refused (also set
	 * by the environment variable KSIM_PERF_REFUSE=1). */
	bool perf_refuse;
	int udp_port;			/* -1: no UDP shell; 0: any free port */
	int in_fd;			/* console input, -1: only ksim_console_feed() */
	int out_fd;			/* console output; default 1 */
	/* -c: lines fed one at a time, each once the shell is waiting for
	 * input; the machine ends with status 0 after the last has run. */
	const char *const *commands;
	unsigned ncommands;
	/* End (status 0) at end of in_fd once the shell has run all input. */
	bool exit_on_eof;
	/* Called once in task context on CPU 0 (its idle task, interrupts
	 * off) before that CPU first idles: a test creates its tasks here. */
	void (*late_init)(void);
	const char *cmdline;		/* kernel command line; default "" */
	/* --udp-key: a file holding the UDP shells' key in hex, served as
	 * the firmware file opt/kprof/udpsh.key (hal/firmware.h).  NULL:
	 * none. */
	const char *udp_key_file;
	/* The network device (sim/netdev.h): Ethernet frames in UDP on
	 * 127.0.0.1, received on net_port, sent to net_peer_port.
	 * 0: no device. */
	int net_port, net_peer_port;
	/* Test and bench hook: arm the counter for this many overflows per
	 * second of a CPU's time instead of the profiler's rate.  0: the
	 * profiler's. */
	unsigned pmu_hz;
	/* `stat`'s general counters: how many host events one CPU opens at
	 * once (--pmu-counters, 1-8; default 8); more listed are
	 * multiplexed, as on a part with that many counters. */
	unsigned pmu_counters;
};

struct ksim_cpu_stats {
	uint64_t ticks;		/* SIGPROF from this CPU's timer: kernel_tick() */
	uint64_t idle_ticks;	/* ... that interrupted hal_cpu_idle()'s wait */
	uint64_t foreign;	/* SIGPROF or overflow signals that were neither
				 * (kill, tgkill, sigqueue, a stranger's timer) */
	int last_foreign_code;	/* si_code of the last of those */
	uint64_t overflows;	/* counter overflow signals: kernel_nmi() */
	uint64_t unclaimed;	/* ... that kernel_nmi() did not claim */
	uint64_t tick_overruns;	/* timer expirations merged into a tick that
				 * was still pending (si_overrun): ticks plus
				 * these are the expirations */
	/* The counter's events: given to samples as their weights
	 * (hal_pmu_sample_events()), and counted in all, read once at each
	 * disarm; the samples weighed by a read(2) of the counter, where
	 * its ring could not be mapped. */
	uint64_t weighed, counted, disarms, read_weights;
};

void ksim_config_defaults(struct ksim_config *cfg);

/* Start the machine: handlers, CPU threads (CPU 0 enters kernel_main()),
 * the console and, when asked, the UDP shell.  Returns 0, or -1 after
 * printing why to stderr.  Blocks the tick and overflow signals in the
 * calling thread. */
int ksim_start(const struct ksim_config *cfg);

/* Wait for the machine to end; its exit status.  With @timeout_ms > 0,
 * returns -1 if it has not ended by then. */
int ksim_wait(unsigned timeout_ms);

/* Bytes for the console, as if typed (any thread but the CPUs). */
void ksim_console_feed(const char *bytes, size_t n);

/* The UDP shell's port once started, else 0. */
unsigned ksim_udp_port(void);

unsigned ksim_cpu_count(void);
/* A snapshot of @cpu's signal counters. */
void ksim_cpu_stats(unsigned cpu, struct ksim_cpu_stats *st);
/* The kernel thread id of @cpu's thread (for tests that signal it). */
int ksim_cpu_tid(unsigned cpu);

/* What the probe would say about the counter without opening one: the
 * event name in use ("cycles", "task-clock") or NULL with no counter. */
const char *ksim_pmu_event_name(void);
/* True when that counter counts the thread's kernel time too (the host
 * allowed it); false when it counts user space only, and skips the
 * overflows that fall due in the kernel. */
bool ksim_pmu_counts_kernel(void);

/* The address a CPU idling in hal_cpu_idle() is interrupted at: just
 * after its system call instruction. */
extern const char ksim_idle_resume[];

#endif
