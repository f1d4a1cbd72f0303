/* SPDX-License-Identifier: BSD-2-Clause */
/* ksim internals shared by the files of sim/.
 *
 * Host side and kernel side, as User-mode Linux keeps its *_user.c files
 * apart: a file of sim/ either uses the host (libc and system headers,
 * pthreads, signals, sockets) or includes the portable kernel's headers
 * (kernel/, net/, shell/, lib/), never both.  The kernel side is
 * kglue.c (fault reports, the UDP shell's task); every other file is
 * host side (the network device's receive task is the stack's own,
 * src/net/rx.c, polling sim/netdev.c through hal/netdev.h).  The
 * headers of src/hal/, this header, sim/ksim.h and sim/netdev.h are the
 * boundary both sides include: plain C types only.  lib/errno.h counts
 * as a boundary header too (constants only, no code): sim/netdev.c
 * includes it beside <errno.h>, so that a host whose values differ from
 * the kernel's draws a redefinition warning (an error under
 * --enable-werror).
 *
 * File names: sim/X.c implements src/hal/X.h (pmu_count.c the counting
 * half of hal/pmu.h), as arch/x86_64/X.c does; the other files are named
 * for what they do (doc/arch/sim.md, "Files"). */
#ifndef KPROF_SIM_SIM_H
#define KPROF_SIM_SIM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "hal/pmu.h"
#include "sim/ksim.h"

/* The interrupted state a signal handler hands the kernel: the three
 * registers hal/trap.h reads, copied out of the signal's ucontext. */
struct trap_frame {
	uintptr_t ip, fp, sp;
};

/* Where a CPU's counter stands (hal_pmu_ack() reads it). */
enum sim_pmu_state {
	SIM_PMU_OFF,		/* stopped; an overflow now is not ours */
	SIM_PMU_RUNNING,	/* armed by hal_pmu_arm() */
	SIM_PMU_DISARMING,	/* inside hal_pmu_disarm() */
};

/* One simulated CPU: a thread and what belongs to it.  Reached from the
 * thread itself through sim_self (thread-local); other threads only read
 * the counters in .stats. */
struct sim_cpu {
	unsigned id;
	int tid;			/* kernel thread id, for timers and signals */
	void *thread;			/* pthread_t, kept opaque here */
	uintptr_t stack_lo, stack_hi;	/* the thread's own (boot) stack */
	uintptr_t irq_lo, irq_hi;	/* its alternate signal stack */
	void *timer;			/* timer_t of the tick */
	int perf_fd;			/* overflow counter, -1 without one */
	int perf_errno;			/* why perf_fd is -1 */
	volatile int pmu_state;		/* enum sim_pmu_state */
	uint64_t pmu_period;		/* period the counter is set to */
	uint64_t pmu_read;		/* its count at the last sample (0 at arming) */
	void *ring;			/* its perf mmap page and ring, NULL without */
	uint64_t ring_data_offset, ring_data_size;
	uint64_t pmu_asked;		/* the period the profiler asked for */
	const void *nmi_info;		/* siginfo_t of the overflow being handled */
	int count_fd[HAL_PMU_COUNT_MAX];	/* `stat`'s events, -1 when not open */
	unsigned count_n;		/* how many the last open asked */
	struct ksim_cpu_stats stats;
};

/* The machine's state (sim/machine.c). */
extern struct sim_cpu sim_cpus[HAL_MAX_CPUS];
extern unsigned sim_ncpus;
extern __thread struct sim_cpu *sim_self;

/* The machine's configuration, fixed once ksim_start() has run. */
extern struct ksim_config sim_config;

/* The overflow signal (a real-time signal, chosen at start). */
extern int sim_pmu_signo;
/* The tick's preemption, raised by the tick on its CPU's interrupt
 * stack and taken on the task's own (sim/tick.c). */
extern int sim_preempt_signo;

/* Event type the counters use, decided at start (sim/pmu.c). */
void sim_pmu_init(void);
/* Say on stderr why the counter could not be opened, and what to do. */
void sim_pmu_say_refused(void);
/* On a CPU thread, at its start: open its counter (when the source
 * allows one) and direct its overflow signal at the thread. */
void sim_pmu_cpu_init(struct sim_cpu *c);
/* Install the overflow and tick handlers (process-wide, once). */
void sim_pmu_install_handler(void);
void sim_tick_install_handler(void);
/* On a CPU thread: start its tick timer, first expiry random. */
void sim_tick_cpu_init(struct sim_cpu *c);
/* On a CPU thread, at its start: map its interrupt stack, the
 * alternate signal stack the tick, the overflow signal and faults run on
 * (sim/trap.c). */
void sim_trap_cpu_stack(struct sim_cpu *c);
/* Call @fn(@tf) with its frame marked for hal_trap_frame_at()
 * (sim/tick_entry.S); @tf 16-byte aligned. */
bool sim_tick_call(bool (*fn)(struct trap_frame *tf), struct trap_frame *tf);
/* Copy the interrupted registers out of a signal's ucontext. */
void sim_trap_from_ucontext(struct trap_frame *tf, const void *uc);
/* The same for the overflow signal: when it interrupted the very first
 * instruction of one of ksim's handlers (two signals delivered at once),
 * the state comes from the context that handler was about to handle. */
void sim_trap_from_signal(struct trap_frame *tf, const void *uc);
/* Install @handler for @sig (SA_SIGINFO | @flags), with @mask1 and
 * @mask2 (0: none) blocked while it runs; ksim cannot run without it, so
 * a refusal ends the process with "ksim: sigaction(@what): why". */
void sim_trap_install(int sig, void (*handler)(int, siginfo_t *, void *), int flags,
		      int mask1, int mask2, const char *what);
/* Name the handler at @entry as one of ksim's, when it is installed. */
void sim_trap_note_handler(uintptr_t entry);
/* A tick or overflow signal that is not @c's (@c NULL off the CPU
 * threads): counted in @c's stats with its si_code, nothing more. */
void sim_trap_foreign(struct sim_cpu *c, int si_code);

/* Count one event in a CPU's stats (other threads read them). */
static inline void sim_stat_inc(uint64_t *v)
{
	__atomic_fetch_add(v, 1, __ATOMIC_RELAXED);
}

/* Start hal_clock_ns() at zero (sim/timer.c).  Once, before the CPUs
 * start. */
void sim_timer_start(void);

/* Console (sim/console.c). */
void sim_console_init(void);

/* recvmsg() on @fd (with @flags, and MSG_TRUNC: the datagram's real
 * length is returned even when cut to @size), also reading the socket's
 * drop count (SO_RXQ_OVFL) into *@overflowed when the datagram carries
 * one.  @from, *@fromlen: the sender's address, as recvfrom(); NULL when
 * not wanted.  Returns the length, or -1 with errno set (sim/netdev.c). */
long sim_recv_counting_drops(int fd, void *buf, size_t size, int flags,
			     void *from, unsigned *fromlen, uint32_t *overflowed);

/* UDP shell transport (sim/udp.c): the socket thread fills a queue of
 * datagrams; the kernel task (sim/kglue.c) drains it and answers. */
struct sim_dgram {
	uint32_t addr;		/* source, host byte order */
	uint16_t port;
	uint16_t len;
	uint32_t size;		/* as sent: more than len when it was cut */
	char data[1500];
};
int sim_udp_init(void);
bool sim_udp_pop(struct sim_dgram *d);
/* Returns 0 or a negative errno. */
int sim_udp_reply(uint32_t addr, uint16_t port, const void *buf, size_t len);
/* Datagrams lost before the shell saw them: *@ring_full while the queue
 * to the shell's task was full, *@overflowed by the socket's own queue. */
void sim_udp_losses(uint64_t *ring_full, uint64_t *overflowed);

/* Read --udp-key's file for hal_fw_file_read() (sim/firmware.c).
 * Returns 0, or -1 after saying why on stderr (never the key). */
int sim_fw_load_key(const char *path);

/* Faults on CPU threads become kernel panics (sim/fault.c). */
void sim_fault_install_handlers(void);
/* Probes (sim/probe.c): the site table sorted and each entry made one
 * 5-byte NOP, before any CPU thread runs; and the SIGTRAP of a CPU that
 * met an entry being patched, stepped over it (true) or not ours. */
void sim_probe_init(void);
bool sim_probe_trap(void *uc);

/* Kernel-side glue (sim/kglue.c). */
bool sim_kernel_ready(void);
/* A CPU faulted at @tf: panic with the faulting state.  Never returns. */
void sim_kernel_fault(const struct trap_frame *tf, const char *what,
		      uintptr_t addr) __attribute__((noreturn));
/* Start the UDP shell's kernel task, serving what sim/udp.c queues
 * (hal_platform_late_init(), when --udp asked for the shell). */
void sim_udpsh_start(void);

/* The machine's end (sim/machine.c).  Open what sim_machine_exit()
 * writes to: 0, or -1 after saying why on stderr.  Once, from
 * ksim_start(). */
int sim_machine_exit_init(void);
/* End the simulation with @status: wakes whoever waits in ksim_wait(). */
void sim_machine_exit(int status);

/* Park the calling thread for good, every signal blocked. */
void sim_thread_park(void) __attribute__((noreturn));

#endif
