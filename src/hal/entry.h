/* SPDX-License-Identifier: BSD-2-Clause */
/* The few entry points a platform calls into the portable kernel. */
#ifndef KPROF_HAL_ENTRY_H
#define KPROF_HAL_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/netdev.h"

struct trap_frame;

/* The boot story (src/init/main.c), on the boot CPU, called by the
 * platform's entry as soon as it runs C on a stack: it calls the
 * platform's own steps (hal/platform.h) in their order.  Interrupts off.
 * Never returns. */
void kernel_main(void) __attribute__((noreturn));

/* Every other CPU, once it runs C with its own tick started; it waits
 * (spinning) until kernel_main() has published the scheduler
 * (kernel_cpus_ready()).  Interrupts off.  Never returns: it becomes
 * that CPU's idle task. */
void kernel_ap_main(void) __attribute__((noreturn));

/* The per-CPU tick, tick_hz() times a second (kernel/tick.h), in the
 * timer interrupt with interrupts masked.  May switch tasks (preemption)
 * before returning. */
void kernel_tick(struct trap_frame *tf);

/* kernel_tick() in its two halves, for a platform whose tick runs on a
 * per-CPU interrupt stack that a task switch must not leave a frame on
 * (ksim's alternate signal stack): kernel_tick_irq() there, with
 * interrupts masked -- the panic stop, the profiler's sample, the
 * scheduler's accounting; it never switches, and returns true when the
 * interrupted task is to be preempted -- then, when it did, back on the
 * interrupted task's own stack with interrupts still masked,
 * kernel_tick_preempt(), which may switch tasks before returning. */
bool kernel_tick_irq(struct trap_frame *tf);
void kernel_tick_preempt(struct trap_frame *tf);

/* One maskable interrupt taken (the tick's too), counted as the
 * kernel's `interrupts` event (kernel/kevents.h); the platform calls it
 * first thing in its interrupt dispatch, on the interrupted CPU,
 * interrupts masked.  NMIs are counted by kernel_nmi() instead. */
void kernel_interrupt(void);

/* A device's interrupt @irq (the x86 vector, the arm64 INTID) begins
 * and ends: the platform calls these around its handler, for `trace`'s
 * irq_entry and irq_exit.  The tick's are kernel_tick()'s own.  Any
 * interrupt context. */
void kernel_irq_enter(unsigned irq);
void kernel_irq_exit(unsigned irq);

/* The profiler's counter interrupt (NMI on x86, the overflow signal in the
 * simulator).  Returns true when the profiler claimed it; on false the
 * platform takes its genuine-NMI path.  Never switches tasks. */
bool kernel_nmi(struct trap_frame *tf);

/* How long the overflow handler that kernel_nmi() just claimed took, in
 * nanoseconds, as the platform measured it around kernel_nmi() (entry
 * and exit included where it can).  From that same overflow interrupt,
 * on its CPU, only when kernel_nmi() returned true.  The profiler's
 * throttle (doc/profiler.md) may call hal_pmu_set_period() from it. */
void kernel_pmu_took(uint64_t ns);

/* One received Ethernet frame, task context: the stack's receive loop
 * (src/net) hands it to each device poll (hal/netdev.h) as the sink's
 * deliver; tests call it directly. */
void net_rx(const void *frame, size_t len);

/* @n more frames lost below net_rx() for @why: the sink's lost.  Task
 * context (the receive task). */
void net_rx_lost(enum net_rx_loss why, uint64_t n);

/* The network device has frames, or may have: wake the stack's receive
 * task (a device whose netdev_rx says irq).  Any context, interrupt
 * handlers included; nothing happens before net_start(). */
void net_rx_wake(void);

/* Probes (hal/probe.h): the entry trampoline calls probe_entry() with the
 * patched entry's address and the stack slot holding the probed
 * function's return address, which it may replace with
 * hal_probe_ret_addr(); the return trampoline calls probe_exit(), which
 * returns the real return address.  Any context, a probed function's. */
void probe_entry(uintptr_t site, uintptr_t *ret_slot);
uintptr_t probe_exit(void);

#endif
