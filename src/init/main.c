/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot story: the one place that knows the order in which the
 * machine comes up.  Each platform's entry (each kernel's platform.c,
 * sim/start.c's CPU 0 thread) calls kernel_main() and every other CPU
 * kernel_ap_main(); nothing else orders boot.  Read it top to bottom. */
#include "hal/console.h"
#include "hal/cpu.h"
#include "hal/entry.h"
#include "hal/platform.h"
#include "hal/power.h"
#include "hal/timer.h"
#include "init/banner.h"
#include "init/boot_args.h"
#include "kernel/cmdline.h"
#include "lib/kstring.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/page.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "kernel/tick.h"
#include "lib/out.h"
#include "net/net.h"
#include "prof/profiler.h"
#include "shell/shell.h"
#include "shell/udpsh/net.h"

/* How long the boot waits for the other CPUs to join the scheduler. */
#define INIT_CPUS_WAIT_NS 2000000000ull

/* The platform started the other CPUs, but each joins the scheduler in
 * its own time: wait (bounded) until all have, so that cmd= and the first
 * typed command may place tasks on any of them. */
static void init_wait_cpus_online(void)
{
	uint64_t start = hal_clock_ns();

	for (unsigned cpu = 0; cpu < hal_cpu_count(); cpu++) {
		while (!sched_cpu_online(cpu)) {
			if (hal_clock_ns() - start > INIT_CPUS_WAIT_NS) {
				out_printf(&out_console, "kernel: cpu %u did not join the scheduler\n",
					   cpu);
				break;
			}
			sched_sleep_ms(1);
		}
	}
}

/* The status a cmd= whose poweroff failed powers off with (doc/boot.md,
 * cmd=): the top of poweroff's 0-127. */
#define BOOT_POWEROFF_FAILED 127

/* Whether @line's first word is poweroff. */
static bool init_is_poweroff(const char *line, size_t len)
{
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	return len >= 8 && kmemcmp(line, "poweroff", 8) == 0 &&
	       (len == 8 || line[8] == ' ' || line[8] == '\t');
}

/* The commands of the command line's cmd=, each shown after a prompt as
 * if typed.  They run in the shell task, so they finish before the
 * console reads its first byte.  A poweroff among them that fails (a
 * status out of range) still ends the machine: whoever wrote it meant
 * the boot to end there, and a script waiting on QEMU would wait
 * forever on a machine nobody types into. */
static void init_run_boot_commands(void)
{
	struct shell_ctx sh = { .out = &out_console, .remote = false };
	const char *pos = boot_args()->cmd, *line;
	size_t len;

	while ((line = cmdline_next_command(&pos, &len))) {
		out_printf(&out_console, SHELL_PROMPT "%.*s\n", (int)len, line);
		if (shell_run_line(&sh, line, len) != 0 && init_is_poweroff(line, len)) {
			out_printf(&out_console, "cmdline: cmd='s poweroff failed: powering off with status %d\n",
				   BOOT_POWEROFF_FAILED);
			hal_power_off(BOOT_POWEROFF_FAILED);
		}
	}
}

/* Everything after the scheduler runs in this task: subsystems that
 * sleep or make tasks of their own, then the shells. */
static void init_task(void *arg)
{
	init_wait_cpus_online();
	hal_platform_late_init();		/* what the platform serves itself */
	net_start(&out_console);		/* the network, before cmd= uses it */
	udpsh_net_start(&out_console);		/* the UDP shell on it */
	init_run_boot_commands();
	shell_console_task(arg);		/* the console shell; never returns */
}

void kernel_main(void)
{
	hal_irq_save();
	hal_platform_early_init();		/* platform: boot CPU, traps, early console */
	page_init();				/* memory: RAM less what is reserved */
	hal_timer_init();			/* the clock; the tick calibrated, not yet running */
	kernel_clock_start();			/* uptime counts from here */
	init_banner(&out_console);		/* console: what the platform found */
	cmdline_parse(hal_platform_cmdline(), &out_console);	/* every key to its owner */
	prof_init();				/* profiler: its hooks on the tick and the counter */
	tick_start();				/* the tick at its rate (tick.hz=) */
	hal_cpus_start(boot_args()->cpus);	/* CPUs: each waits for the scheduler */
	sched_cpu_init();			/* scheduler */
	kernel_publish_cpus_ready();
	if (!task_create("shell", init_task, (void *)(uintptr_t)console_wants_echo(), 0))
		panic("cannot create the console shell task");
	sched_idle_loop();
}

void kernel_ap_main(void)
{
	hal_irq_save();
	while (!kernel_cpus_ready())		/* the scheduler, published */
		hal_cpu_relax();
	sched_cpu_init();
	sched_idle_loop();
}
