/* SPDX-License-Identifier: BSD-2-Clause */
/* The panic protocol (kernel/panic.h), the same on every platform: the
 * platform only interrupts the other CPUs at the highest priority it has
 * and parks or halts a CPU. */
#include "kernel/panic.h"

#include <stdarg.h>

#include "hal/cpu.h"
#include "kernel/backtrace.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "lib/out.h"

/* How long the stopping CPU waits for the others to answer.  An NMI is
 * taken within microseconds; a CPU that has not answered in this long
 * will not (a platform without an NMI, a CPU spinning with interrupts
 * off there), and its report must not wait on it.  A second, as Linux's
 * smp_send_stop() waits: under QEMU a vCPU is a host thread, and a loaded
 * host left one unscheduled past 200 ms ("stopped 2 of 3 other cpus" on
 * arm64 at a load of 20). */
#define PANIC_STOP_WAIT_US 1000000

static int stop_owner = -1;		/* the CPU stopping the others */
static unsigned stop_acks;		/* CPUs parked by its interrupt */
static bool stop_answered[HAL_MAX_CPUS];
static const char *stop_how;		/* what interrupted them: "nmi" */
static int panicking;

static bool stopped_by_other(void)
{
	int owner = __atomic_load_n(&stop_owner, __ATOMIC_ACQUIRE);

	return owner >= 0 && owner != (int)hal_cpu_id();
}

static void wait_for_stop_answers(unsigned others)
{
	uint64_t start = hal_cycles();
	uint64_t limit = hal_cycles_per_sec() / 1000000 * PANIC_STOP_WAIT_US;

	while (__atomic_load_n(&stop_acks, __ATOMIC_ACQUIRE) < others &&
	       hal_cycles() - start < limit)
		hal_cpu_relax();
}

void panic_stop_others(void)
{
	int me = (int)hal_cpu_id(), expected = -1;

	if (!__atomic_compare_exchange_n(&stop_owner, &expected, me, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (expected == me)
			return;
		hal_cpu_park();	/* another CPU is stopping the machine */
	}
	stop_how = hal_cpu_interrupt_others();
	wait_for_stop_answers(hal_cpu_count() - 1);
	console_break();
}

/* Counted once per CPU: a CPU that a tick parked still takes the NMI
 * that follows (an NMI ends hlt even with interrupts off). */
void panic_answer_stop(void)
{
	if (!stopped_by_other())
		return;
	if (!__atomic_exchange_n(&stop_answered[hal_cpu_id()], true, __ATOMIC_ACQ_REL))
		__atomic_fetch_add(&stop_acks, 1, __ATOMIC_ACQ_REL);
	hal_cpu_park();
}

void panic_begin(void)
{
	hal_irq_save();
	panic_stop_others();
	/* A second panic (a fault while printing this one) only stops: the
	 * first owns the console and is printing. */
	if (__atomic_exchange_n(&panicking, 1, __ATOMIC_ACQ_REL))
		panic_end();
}

/* On the stopping CPU, before its last line: how many of the others
 * answered. */
static void print_stopped(void)
{
	unsigned others = hal_cpu_count() - 1, acks;

	if (__atomic_load_n(&stop_owner, __ATOMIC_ACQUIRE) != (int)hal_cpu_id() ||
	    !others)
		return;
	acks = __atomic_load_n(&stop_acks, __ATOMIC_ACQUIRE);
	if (acks == others)
		out_printf(&out_console, "stopped %u other cpus (%s)\n", others, stop_how);
	else
		out_printf(&out_console, "stopped %u of %u other cpus (%s); the rest did not answer\n",
			   acks, others, stop_how);
}

void panic_end(void)
{
	hal_irq_save();
	if (stopped_by_other())
		hal_cpu_park();
	print_stopped();
	out_printf(&out_console, "cpu %u halted\n", hal_cpu_id());
	hal_cpu_halt();
}

void panic(const char *fmt, ...)
{
	va_list ap;

	panic_begin();
	out_printf(&out_console, "\npanic on cpu %u: ", hal_cpu_id());
	va_start(ap, fmt);
	out_vprintf(&out_console, fmt, ap);
	va_end(ap);
	out_puts(&out_console, "\n");
	backtrace_print_here(&out_console);
	panic_end();
}
