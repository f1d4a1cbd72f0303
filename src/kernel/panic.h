/* SPDX-License-Identifier: BSD-2-Clause */
/* The panic protocol: the first CPU to panic stops the others, prints
 * its report alone, and halts.  panic() is the whole of it; a platform's
 * fatal trap, which prints its own registers, uses the three steps. */
#ifndef KPROF_KERNEL_PANIC_H
#define KPROF_KERNEL_PANIC_H

#include <stdbool.h>

/* Start a report: interrupts off, every other CPU stopped
 * (panic_stop_others()).  Returns on the first CPU to panic; a CPU that
 * loses that race stops inside for good, and a second panic on the
 * winning CPU (a fault while printing) ends at panic_end(). */
void panic_begin(void);

/* End the report: how many of the other CPUs answered the stop, then
 * "cpu N halted", the line that tells a reader nothing more is coming;
 * then the CPU halts (hal_cpu_halt()). */
void panic_end(void) __attribute__((noreturn));

/* Interrupt every other CPU (hal_cpu_interrupt_others()) and wait, a
 * bounded time, for each to answer by stopping; then take the console
 * from whichever of them held it.  Returns on the first CPU to call it,
 * and again on that CPU; any other caller stops inside for good.  For a
 * platform's power-off that finds nothing to turn the machine off with. */
void panic_stop_others(void);

/* The other CPUs' side: called first by kernel_nmi() and kernel_tick().
 * When another CPU is stopping the machine, counts this CPU's answer
 * and parks it (hal_cpu_park()); otherwise returns at once. */
void panic_answer_stop(void);

#endif
