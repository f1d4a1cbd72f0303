/* SPDX-License-Identifier: BSD-2-Clause */
/* The dispatch of every exception (entry.S), the panic for faults, and
 * hal/trap.h's accessors. */
#include "hal/trap.h"

#include "hal/cpu.h"
#include "hal/entry.h"
#include "kernel/backtrace.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/panic.h"
#include "kernel/stacktrace.h"
#include "kernel/task.h"
#include "lib/out.h"
#include "a64.h"
#include "irqflags.h"

#define ESR_EC(esr)	(((esr) >> 26) & 0x3f)
#define EC_UNKNOWN	0x00
#define EC_IABT_CUR	0x21
#define EC_DABT_CUR	0x25

static const char *const ec_names[64] = {
	[0x00] = "unknown instruction",
	[0x01] = "wfi/wfe trapped",
	[0x07] = "fp/simd access",
	[0x0e] = "illegal execution state",
	[0x15] = "svc",
	[0x16] = "hvc",
	[0x17] = "smc",
	[0x18] = "msr/mrs trapped",
	[0x20] = "instruction abort from el0",
	[0x21] = "instruction abort",
	[0x22] = "pc alignment fault",
	[0x24] = "data abort from el0",
	[0x25] = "data abort",
	[0x26] = "sp alignment fault",
	[0x2f] = "serror",
	[0x3c] = "brk",
};

static const char *const kind_names[] = {
	[A64_EXC_FIQ_SP0] = "fiq",
	[A64_EXC_SERROR_SP0] = "serror",
	[A64_EXC_IRQ_SPX] = "irq on the exception stack",
	[A64_EXC_FIQ_SPX] = "fiq",
	[A64_EXC_SERROR_SPX] = "serror",
	[A64_EXC_LOWER] = "exception from a lower level",
};

static void print_regs(const struct trap_frame *tf)
{
	struct out *o = &out_console;

	for (unsigned i = 0; i < 30; i += 3)
		out_printf(o, "x%-2u %016lx  x%-2u %016lx  x%-2u %016lx\n",
			   i, (unsigned long)tf->x[i], i + 1,
			   (unsigned long)tf->x[i + 1], i + 2,
			   (unsigned long)tf->x[i + 2]);
	out_printf(o, "x30 %016lx  sp  %016lx  spsr %08lx\n",
		   (unsigned long)tf->x[30], (unsigned long)tf->sp,
		   (unsigned long)tf->spsr);
}

/* A data abort in the guard page below the running task's stack: it
 * overflowed. */
static void print_overflow(const struct trap_frame *tf)
{
	if (ESR_EC(tf->esr) == EC_DABT_CUR)
		task_report_guard_hit(&out_console, tf->far);
}

/* A data or instruction abort's fault status, as words. */
static const char *abort_kind(uint64_t esr)
{
	unsigned fsc = esr & 0x3f;

	switch (fsc >> 2) {
	case 1: return "translation fault";
	case 2: return "access flag fault";
	case 3: return "permission fault";
	}
	return fsc == 0x21 ? "alignment fault" : "other fault";
}

static void print_far(const struct trap_frame *tf)
{
	unsigned ec = ESR_EC(tf->esr);

	if (ec == EC_DABT_CUR || ec == EC_IABT_CUR)
		out_printf(&out_console, "far 0x%016lx (%s, level %u, %s)\n",
			   (unsigned long)tf->far, abort_kind(tf->esr),
			   (unsigned)(tf->esr & 3),
			   ec == EC_IABT_CUR ? "instruction fetch" :
			   tf->esr & (1u << 6) ? "write" : "read");
	else
		out_printf(&out_console, "far 0x%016lx\n", (unsigned long)tf->far);
}

static void trap_panic(const struct trap_frame *tf, const char *what)
	__attribute__((noreturn));

static void trap_panic(const struct trap_frame *tf, const char *what)
{
	struct out *o = &out_console;
	unsigned ec = ESR_EC(tf->esr);

	panic_begin();
	out_printf(o, "\npanic on cpu %u: %s (ec 0x%02x), esr 0x%lx\n",
		   hal_cpu_id(), what, ec, (unsigned long)tf->esr);
	out_printf(o, "elr 0x%016lx\n", (unsigned long)tf->elr);
	print_far(tf);
	print_overflow(tf);
	print_regs(tf);
	out_puts(o, "backtrace:\n");
	backtrace_print_trap(o, tf);
	panic_end();
}

/* A pseudo-NMI (an interrupt at A64_PRIO_NMI), with DAIF.I still set:
 * nothing nests into it, it never switches tasks, and what it reaches
 * takes no lock.  On GICv2 the same interrupts come as plain IRQs, here
 * too.  The PMU's overflow is cleared and its counter rearmed before the
 * EOI (pmu.c): its line is level-sensitive and would fire again. */
static void trap_nmi(struct trap_frame *tf, unsigned iar, unsigned intid)
{
	if (intid == a64_machine.pmu_intid) {
		a64_pmu_irq(tf);
		a64_gic_eoi(iar);
		return;
	}
	a64_gic_eoi(iar);
	if (intid == A64_SGI_STOP) {
		if (!kernel_nmi(tf))
			trap_panic(tf, "unclaimed stop interrupt");
		return;
	}
	trap_panic(tf, "unexpected interrupt");
}

static void trap_irq(struct trap_frame *tf)
{
	unsigned iar = a64_gic_ack(), intid = iar & 0x3ff;

	if (intid >= 1020) {
		/* Nothing pending by the time it was acknowledged (a PMU
		 * line dropped by a disarm, say): counted, never an NMI. */
		a64_this_cpu()->spurious++;
		return;
	}
	/* Always the case when the interrupted code had the PMR at "off":
	 * nothing else passes it. */
	if (a64_gic_is_nmi(intid)) {
		trap_nmi(tf, iar, intid);
		return;
	}
	/* A plain interrupt: "off" by the PMR and DAIF.I clear while it is
	 * handled, so that a pseudo-NMI can still preempt the tick and the
	 * scheduler.  The GIC's running priority holds back any interrupt
	 * of this one's priority until its EOI. */
	kernel_interrupt();
	if (a64_irq_by_pmr) {
		a64_pmr_write(A64_PMR_OFF);
		a64_daif_unmask_irq();
	}
	if (intid == A64_PPI_VTIMER) {
		/* Rearmed and acknowledged first: kernel_tick() may switch
		 * to another task, and the tick must keep coming. */
		a64_timer_irq(tf);
		a64_gic_eoi(iar);
		kernel_tick(tf);
		/* Back in this task, maybe after a switch: resumed with
		 * DAIF.I set it would never see the pseudo-NMI again. */
		if (a64_irq_by_pmr && (a64_daif() & A64_DAIF_I))
			panic("cpu %u: resumed from the tick with DAIF.I set", hal_cpu_id());
		return;
	}
	/* The network device's SPI, a plain interrupt (never from the
	 * pseudo-NMI path: net_rx_wake() wakes a task).  Its status is
	 * acknowledged (the line lowered) before the EOI, so a
	 * level-triggered SPI is not taken again at once. */
	kernel_irq_enter(intid);
	if (a64_netdev_irq(intid)) {
		kernel_irq_exit(intid);
		a64_gic_eoi(iar);
		return;
	}
	kernel_irq_exit(intid);
	a64_gic_eoi(iar);
	trap_panic(tf, "unexpected interrupt");
}

void a64_trap_dispatch(struct trap_frame *tf)
{
	unsigned ec = ESR_EC(tf->esr);

	switch (tf->kind) {
	case A64_EXC_IRQ_SP0:
		trap_irq(tf);
		return;
	case A64_EXC_SYNC_SP0:
	case A64_EXC_SYNC_SPX:
		/* The semihosting probe's HLT, where semihosting is off. */
		if (ec == EC_UNKNOWN && tf->elr == a64_semihosting_probe_pc) {
			a64_semihosting_absent = true;
			tf->elr += 4;
			return;
		}
		trap_panic(tf, ec_names[ec] ? ec_names[ec] : "exception");
	default:
		trap_panic(tf, tf->kind < sizeof(kind_names) / sizeof(kind_names[0]) &&
				       kind_names[tf->kind] ? kind_names[tf->kind]
							    : "exception");
	}
}

uintptr_t hal_trap_ip(const struct trap_frame *tf)
{
	return tf->elr;
}

uintptr_t hal_trap_fp(const struct trap_frame *tf)
{
	return tf->x[29];
}

uintptr_t hal_trap_sp(const struct trap_frame *tf)
{
	return tf->sp;
}

uintptr_t hal_trap_lr(const struct trap_frame *tf)
{
	return tf->x[30];
}

/* The return address after entry.S's call of a64_trap_dispatch. */
extern const char a64_exc_dispatch_ret[];

/* entry.S calls the handler with x29 = the frame + 1. */
const struct trap_frame *hal_trap_frame_at(uintptr_t ra, uintptr_t fp, size_t *size)
{
	return stacktrace_marked_frame(ra, fp, (uintptr_t)a64_exc_dispatch_ret,
				       sizeof(struct trap_frame), size);
}
