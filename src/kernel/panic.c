#include <stdarg.h>

#include "kernel/kernel.h"

#include "hal/console.h"
#include "hal/cpu.h"
#include "kernel/backtrace.h"
#include "lib/out.h"

static int panicking;

void panic(const char *fmt, ...)
{
	va_list ap;

	hal_irq_save();
	hal_cpu_stop_others();
	/* A second panic (on another CPU, or from inside this one) only
	 * stops: the first owns the console and is printing. */
	if (__atomic_exchange_n(&panicking, 1, __ATOMIC_ACQ_REL))
		hal_cpu_halt();
	out_printf(&out_console, "\npanic on cpu %u: ", hal_cpu_id());
	va_start(ap, fmt);
	out_vprintf(&out_console, fmt, ap);
	va_end(ap);
	out_puts(&out_console, "\n");
	backtrace_print_here(&out_console);
	hal_cpu_halt();
}
