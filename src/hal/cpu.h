/* SPDX-License-Identifier: BSD-2-Clause */
/* The CPU contract: identity, interrupt masking, idling, clocks. */
#ifndef KPROF_HAL_CPU_H
#define KPROF_HAL_CPU_H

#include <stdbool.h>
#include <stdint.h>

/* Upper bound on CPUs any platform brings up; per-CPU arrays are sized by it. */
#define HAL_MAX_CPUS 16

/* The span per-CPU data written from interrupts is aligned to, so that
 * no two CPUs write one line: 128 bytes, the line of parts that have
 * such lines and the pair x86's adjacent-line prefetcher moves together;
 * a multiple of every smaller line. */
#define HAL_CACHELINE 128

/* Index of the calling CPU, 0 .. hal_cpu_count() - 1.  Any context.
 * Only meaningful while the caller cannot migrate (interrupts off, or a
 * task pinned to its CPU, as every task here is). */
unsigned hal_cpu_id(void);

/* The boot story's CPU step: start at most @max CPUs in all (0: every
 * one the platform finds), the boot CPU included; each other CPU waits
 * for kernel_cpus_ready() and then enters kernel_ap_main().  Prints one
 * line saying what came up, or why only the boot CPU did.  Boot CPU,
 * once, interrupts off. */
void hal_cpus_start(unsigned max);

/* Number of CPUs that are up and running the scheduler.  Any context.
 * Fixed once kernel_main() has been entered on every CPU. */
unsigned hal_cpu_count(void);

/* Mask maskable interrupts on the calling CPU and return the previous
 * state for hal_irq_restore().  Any context; never sleeps.  The profiler's
 * counter interrupt (an NMI, or its stand-in) is not masked by this. */
unsigned long hal_irq_save(void);

/* Restore the interrupt state hal_irq_save() returned, on the same CPU. */
void hal_irq_restore(unsigned long flags);

/* Unmask interrupts on the calling CPU.  Task context only. */
void hal_irq_enable(void);

/* True when maskable interrupts are masked on the calling CPU. */
bool hal_irq_disabled(void);

/* When the calling CPU's interrupts were masked, on hal_clock_ns()'s
 * clock, read just before the outermost hal_irq_save() that masked them
 * -- where the platform keeps it: in ksim the mask is a system call,
 * where the host may hold the CPU's thread, and a tick that came due
 * meanwhile waits for the unmask.  UINT64_MAX where the platform does
 * not keep it (the kernels: a mask is one instruction), or while they
 * are not masked by hal_irq_save().  Interrupts off. */
uint64_t hal_irq_masked_ns(void);

/* A spin-wait hint (pause / yield).  Any context. */
void hal_cpu_relax(void);

/* Wait for the next interrupt with interrupts enabled, then return with
 * them as they were.  Called only by the calling CPU's idle task; the
 * instruction (or system call) that waits is inside a platform function,
 * so samples taken while idle resolve to it. */
void hal_cpu_idle(void);

/* Interrupt every other CPU at the highest priority the platform has
 * (an NMI on x86; on arm64 an SGI at the pseudo-NMI priority), so that
 * each enters kernel_nmi() even while spinning with interrupts masked
 * where the platform allows.  Returns once the interrupts are sent, with
 * a word for how ("nmi") that the panic report prints.  The panic
 * protocol's one hook (kernel/panic.h); interrupts off. */
const char *hal_cpu_interrupt_others(void);

/* Stop this CPU for good, interrupts off, saying nothing; the rest of
 * the machine goes on.  A CPU answering a panic's stop parks here. */
void hal_cpu_park(void) __attribute__((noreturn));

/* The panicking CPU's last act, after its report: stop for good.  Where
 * the machine is a process (ksim) the process ends, with the panic's
 * exit status.  Never returns. */
void hal_cpu_halt(void) __attribute__((noreturn));

/* A free-running cycle clock of the calling CPU and its rate in Hz.
 * Any context, never sleeps; used for short bounded waits. */
uint64_t hal_cycles(void);
uint64_t hal_cycles_per_sec(void);

/* The quantity the profiler samples, counted on the calling CPU: core
 * cycles on hardware, the CPU thread's CPU time in ns in the simulator.
 * Any context.  Only differences taken on one CPU mean anything; the
 * scheduler charges them to the running task (task_runtime()). */
uint64_t hal_cpu_time(void);

/* Units of hal_cpu_time() per second. */
uint64_t hal_cpu_time_per_sec(void);

#endif
