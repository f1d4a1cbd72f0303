#include "kernel/kernel.h"

#include "hal/console.h"
#include "hal/cpu.h"
#include "hal/entry.h"
#include "hal/timer.h"
#include "kernel/cmdline.h"
#include "kernel/profiler.h"
#include "kernel/stat.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/out.h"
#include "net/net.h"
#include "shell/shell.h"

static bool cpus_ready;
static uint64_t boot_ns;
static struct cmdline boot_cmdline;

bool kernel_cpus_ready(void)
{
	return __atomic_load_n(&cpus_ready, __ATOMIC_ACQUIRE);
}

uint64_t kernel_uptime_ns(void)
{
	return hal_clock_ns() - boot_ns;
}

/* How long the shell waits for the other CPUs to join the scheduler. */
#define KERNEL_CPUS_WAIT_NS 2000000000ull

/* The platform started every CPU before kernel_main(), but each joins
 * the scheduler in its own time: wait (bounded) until all have, so that
 * cmd= and the first typed command may place tasks on any of them. */
static void kernel_wait_cpus_online(void)
{
	uint64_t start = hal_clock_ns();

	for (unsigned cpu = 0; cpu < hal_cpu_count(); cpu++) {
		while (!sched_cpu_online(cpu)) {
			if (hal_clock_ns() - start > KERNEL_CPUS_WAIT_NS) {
				out_printf(&out_console, "kernel: cpu %u did not join the scheduler\n",
					   cpu);
				break;
			}
			sched_sleep_ms(1);
		}
	}
}

/* The commands of the command line's cmd=, each shown after a prompt as
 * if typed, then the console shell.  They run in the shell task, so they
 * finish before the console reads its first byte. */
static void kernel_shell_task(void *arg)
{
	struct shell_ctx sh = { .out = &out_console, .remote = false };
	const char *pos = boot_cmdline.cmd, *line;
	size_t len;

	/* The network comes up in task context, before cmd= runs, so
	 * those commands can use it. */
	kernel_wait_cpus_online();
	net_start(&out_console);
	while ((line = cmdline_next_command(&pos, &len))) {
		out_printf(&out_console, SHELL_PROMPT "%.*s\n", (int)len, line);
		shell_run_line(&sh, line, len);
	}
	shell_console_task(arg);
}

void kernel_main(const char *cmdline)
{
	boot_ns = hal_clock_ns();
	hal_irq_save();
	cmdline_init(&boot_cmdline);
	cmdline_parse(&boot_cmdline, cmdline, &out_console);
	sched_cpu_init();
	__atomic_store_n(&cpus_ready, true, __ATOMIC_RELEASE);
	if (!task_create("shell", kernel_shell_task,
			 (void *)(uintptr_t)hal_console_wants_echo(), 0))
		panic("cannot create the console shell task");
	sched_idle_loop();
}

void kernel_ap_main(void)
{
	hal_irq_save();
	sched_cpu_init();
	sched_idle_loop();
}

void kernel_tick(struct trap_frame *tf)
{
	/* A CPU may tick before its scheduler exists (early boot). */
	if (!sched_cpu_online(hal_cpu_id()))
		return;
	prof_tick(tf);
	stat_tick();
	sched_tick();
	sched_preempt();
}

bool kernel_nmi(struct trap_frame *tf)
{
	return prof_nmi(tf);
}
