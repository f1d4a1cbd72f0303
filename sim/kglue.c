/* SPDX-License-Identifier: BSD-2-Clause */
/* The simulator's kernel-side glue: it includes the portable kernel's
 * headers and no libc header (sim/sim.h says why).  Fault reports, and
 * the UDP shell's kernel task over the socket of sim/udp.c. */
#include "hal/cpu.h"
#include "hal/console.h"
#include "hal/firmware.h"
#include "hal/trap.h"
#include "kernel/backtrace.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/panic.h"
#include "kernel/random.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "shell/udpsh/udpsh.h"
#include "shell/udpsh/net.h"
#include "shell/udpsh/serving.h"
#include "sim/sim.h"

/* How often the UDP shell task looks for datagrams: a sleep ends at the
 * next tick, so this is one tick in practice. */
#define SIM_UDPSH_POLL_MS 1

static struct udpsh sim_udpsh;
static char sim_udpsh_name[32];		/* for `net` */

static void sim_udpsh_losses(struct udpsh_losses *l)
{
	sim_udp_losses(&l->queue_full, &l->overflowed);
}

bool sim_kernel_ready(void)
{
	return kernel_cpus_ready();
}

/* A fault in the guard page below the running task's stack, or with
 * its sp already there (the host's push of a signal frame found it): the
 * task overflowed, and the line says which, as the kernels' do. */
static void sim_report_overflow(const struct trap_frame *tf, uintptr_t addr)
{
	task_report_guard_hit(&out_console,
			      task_guard_owner(addr) ? addr : hal_trap_sp(tf));
}

/* As the kernel's trap panic: the other CPUs stopped, then the faulting
 * instruction and its callers.  A fault while reporting one only halts
 * (panic_begin()). */
void sim_kernel_fault(const struct trap_frame *tf, const char *what,
		      uintptr_t addr)
{
	panic_begin();
	out_printf(&out_console, "\npanic on cpu %u: %s, address 0x%lx\n",
		   hal_cpu_id(), what, (unsigned long)addr);
	sim_report_overflow(tf, addr);
	out_puts(&out_console, "backtrace:\n");
	backtrace_print_trap(&out_console, tf);
	panic_end();
}

static int sim_udpsh_send(void *ctx, uint32_t addr, uint16_t port,
			  const char *data, size_t len)
{
	(void)ctx;
	return sim_udp_reply(addr, port, data, len);
}

/* --udp-key's key (hal_fw_file_read), when given; ksim checked it.
 * Without one the shell is keyless only when udpsh.key=none said so
 * (ksim --udp-insecure); else it does not start: 1. */
static int sim_udpsh_key(struct udpsh *u)
{
	char text[2 * UDPSH_KEY_MAX + 64];
	uint8_t key[UDPSH_KEY_MAX];
	long n = hal_fw_file_read(HAL_FW_UDPSH_KEY, text, sizeof(text));
	bool hw;
	int len;

	if (n < 0 && udpsh_config()->key_none) {
		uint64_t secret[4];

		/* Keyless: 3x the request until the address echoes its cookie. */
		for (unsigned i = 0; i < 4; i++)
			secret[i] = random_nonce64(&hw);
		udpsh_cookie_set(u, secret, sizeof(secret));
		return 0;
	}
	if (n < 0)
		return 1;
	len = n <= (long)sizeof(text) ? udpsh_key_parse(text, (size_t)n, key) : -1;
	kmemset(text, 0, sizeof(text));
	if (len < 0 || udpsh_key_set(u, key, (size_t)len, random_nonce64(&hw)) != 0)
		return -1;
	kmemset(key, 0, sizeof(key));
	return 0;
}

/* A kernel task on CPU 0 serves the datagrams the socket thread queued,
 * one at a time, with the same UDP shell core the kernel's network
 * stack feeds. */
static void sim_udpsh_task(void *arg)
{
	static struct sim_dgram d;

	(void)arg;
	for (;;) {
		while (sim_udp_pop(&d))
			udpsh_input_sized(&sim_udpsh, d.data, d.len, d.size,
					  d.addr, d.port);
		sched_sleep_ms(SIM_UDPSH_POLL_MS);
	}
}

void sim_udpsh_start(void)
{
	int key;

	udpsh_init(&sim_udpsh, sim_udpsh_send, NULL);
	if (udpsh_allow_set(&sim_udpsh, "127.0.0.0/8") != 0 ||
	    (key = sim_udpsh_key(&sim_udpsh)) < 0)
		panic("ksim: cannot start the UDP shell");
	if (key > 0) {
		out_puts(&out_console, "ksim: udp shell not started: no key (--udp-key FILE); --udp-insecure serves it keyless\n");
		return;
	}
	if (!task_create("udpsh", sim_udpsh_task, NULL, 0))
		panic("ksim: cannot start the UDP shell");
	ksnprintf(sim_udpsh_name, sizeof(sim_udpsh_name), "ksim 127.0.0.1:%u",
		  ksim_udp_port());
	udpsh_serving_add(&sim_udpsh, sim_udpsh_name, sim_udpsh_losses);
}
