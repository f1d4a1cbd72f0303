/* hal/cpu.h for x86_64 (hal_cpu_id() and hal_cpu_count() are in smp.c). */
#include "hal/cpu.h"

#include "lib/out.h"
#include "x86.h"

unsigned long hal_irq_save(void)
{
	unsigned long flags = read_rflags() & X86_RFLAGS_IF;

	cli();
	return flags;
}

void hal_irq_restore(unsigned long flags)
{
	if (flags & X86_RFLAGS_IF)
		sti();
}

void hal_irq_enable(void)
{
	sti();
}

bool hal_irq_disabled(void)
{
	return !(read_rflags() & X86_RFLAGS_IF);
}

void hal_cpu_relax(void)
{
	__asm__ volatile("pause" : : : "memory");
}

/* `sti; hlt` is one step: sti holds interrupts off for one more
 * instruction, so a wake-up cannot slip in between and be slept through.
 * Idle samples land on the instruction after the hlt, inside this
 * function. */
__attribute__((noinline)) void hal_cpu_idle(void)
{
	unsigned long flags = read_rflags();

	__asm__ volatile("sti; hlt" : : : "memory");
	if (!(flags & X86_RFLAGS_IF))
		cli();
}

/* Says so on the console first: after a panic that line is the end of
 * the output, which tells a reader (and the QEMU tests) that nothing
 * more is coming.  A CPU that another CPU is stopping says nothing: that
 * CPU's report is the whole output. */
void hal_cpu_halt(void)
{
	cli();
	if (x86_smp_stopped_by_other())
		x86_cpu_park();
	x86_smp_print_stopped();
	out_printf(&out_console, "cpu %u halted\n", hal_cpu_id());
	x86_cpu_park();
}

uint64_t hal_cycles(void)
{
	return rdtsc();
}

uint64_t hal_cycles_per_sec(void)
{
	return x86_tsc_hz();
}

/* The TSC stands in for core cycles until the counter backend exists:
 * it counts while the task runs, which is what the scheduler charges. */
uint64_t hal_cpu_time(void)
{
	return rdtsc();
}

uint64_t hal_cpu_time_per_sec(void)
{
	return x86_tsc_hz();
}
