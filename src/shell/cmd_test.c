/* SPDX-License-Identifier: BSD-2-Clause */
/* test: crash the machine on purpose, to see the panic path work, or
 * use a known depth of stack.  Serial console only (the table marks it
 * so). */
#include <stdint.h>

#include "hal/cpu.h"
#include "hal/timer.h"
#include "kernel/cmdline.h"
#include "kernel/heap.h"
#include "kernel/kernel.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/parse.h"
#include "shell/commands.h"
#include "shell/shell.h"

/* How long `test panic CPU` waits for the machine to stop. */
#define TEST_PANIC_WAIT_MS 5000
/* Bytes each `test recurse` frame holds besides its frame record. */
#define TEST_RECURSE_PAD 96
/* Stack left untouched below the deepest frame, for what the tick and
 * the deepest call still push there. */
#define TEST_RECURSE_MARGIN 2048
#define TEST_RECURSE_MAX 100000
/* `test irqsoff`: how long the spin may last and wait to begin. */
#define TEST_IRQSOFF_MAX_MS 10000
#define TEST_IRQSOFF_DELAY_DEFAULT_MS 200
/* Work between clock reads, so that the spin's time is spent in its own
 * instructions rather than in the clock's. */
#define TEST_IRQSOFF_BATCH 4096

/* Addresses read through a volatile so the compiler cannot see the
 * fault coming and replace the access with a trap of its own.  Page 0 is
 * left unmapped so that NULL-ish pointers fault; the other address is
 * non-canonical on x86_64 (a general protection fault there). */
static volatile uintptr_t test_null_addr = 0x10;
static volatile uintptr_t test_noncanonical_addr = 0x8000000000000000ull;

/* Each step is its own function, kept out of line and out of the
 * compiler's interprocedural passes (noipa: no .isra clones, no .cold
 * split of the caller), so the backtrace shows a known chain:
 * test_panic_inner <- test_panic_outer <- cmd_test. */
__attribute__((noipa)) static void test_panic_inner(void)
{
	panic("test panic from the shell");
}

__attribute__((noipa)) static void test_panic_outer(void)
{
	test_panic_inner();
	__asm__ volatile("");	/* keep the call a call, not a jump */
}

/* `test panic CPU`: a task pinned to that CPU panics there. */
__attribute__((noipa)) static void test_panic_task(void *arg)
{
	(void)arg;
	test_panic_outer();
	__asm__ volatile("");
}

/* One frame per level with TEST_RECURSE_PAD bytes written, so the
 * paint below the stack's high-water mark is really gone.  Returns the
 * address of the deepest level's pad. */
__attribute__((noipa)) static uintptr_t test_recurse(unsigned n)
{
	volatile char pad[TEST_RECURSE_PAD];
	uintptr_t deepest;

	for (unsigned i = 0; i < TEST_RECURSE_PAD; i++)
		pad[i] = (char)n;
	deepest = n > 1 ? test_recurse(n - 1) : (uintptr_t)pad;
	pad[0] = pad[TEST_RECURSE_PAD - 1];	/* no tail call: the frame stays */
	return deepest;
}

static int test_recurse_cmd(struct shell_ctx *sh, const char *arg)
{
	struct task *self = task_current();
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	uintptr_t frame, need, left;
	uint64_t n;

	if (parse_u64(arg, &n) < 0 || n < 1 || n > TEST_RECURSE_MAX) {
		out_printf(sh->out, "test: recurse depth must be 1-%d (got %s)\n",
			   TEST_RECURSE_MAX, arg);
		return 1;
	}
	/* One level's size, as this compiler laid it out. */
	frame = test_recurse(1) - test_recurse(2);
	need = (uintptr_t)n * frame + TEST_RECURSE_MARGIN;
	left = here - self->stack_lo;
	if (here < self->stack_lo || need > left) {
		out_printf(sh->out, "test: recurse %lu needs %lu bytes of stack, %lu left\n",
			   (unsigned long)n, (unsigned long)need, (unsigned long)left);
		return 1;
	}
	out_printf(sh->out, "test: recursed %lu frames of %lu bytes, %lu bytes below the shell's frame\n",
		   (unsigned long)n, (unsigned long)frame,
		   (unsigned long)(here - test_recurse((unsigned)n)));
	return 0;
}

/* `test overflow`: a pinned task recurses with no depth check until its
 * stack runs into the guard page below it, which must fault and be
 * reported on a good stack. */
__attribute__((noipa)) static void test_overflow_task(void *arg)
{
	(void)arg;
	test_recurse(TEST_RECURSE_MAX);
	__asm__ volatile("");
}

static int test_overflow_cmd(struct shell_ctx *sh, int argc, char **argv)
{
	uint64_t cpu = hal_cpu_id();

	if (argc > 3) {
		out_puts(sh->out, "test: usage: test overflow [cpu]\n");
		return 1;
	}
	if (argc == 3 && (parse_u64(argv[2], &cpu) < 0 || cpu >= hal_cpu_count())) {
		out_printf(sh->out, "test: cpu must be 0-%u (got %s)\n",
			   hal_cpu_count() - 1, argv[2]);
		return 1;
	}
	/* Without a guard the recursion would overwrite whatever lies below
	 * the stack: refused.  Every task stack is made alike, so the
	 * shell's own says. */
	if (!task_current()->stack_guarded) {
		out_puts(sh->out, "test: overflow needs a guard page below task stacks, which this platform does not make\n");
		return 1;
	}
	if (!task_create("overflow", test_overflow_task, NULL, (unsigned)cpu)) {
		out_printf(sh->out, "test: cannot start a task on cpu %lu\n",
			   (unsigned long)cpu);
		return 1;
	}
	sched_sleep_ms(TEST_PANIC_WAIT_MS);
	out_puts(sh->out, "test: overflow did not stop the machine\n");
	return 1;
}

/* The shell waits (it is not the CPU that panics); the panic's NMI
 * stops this CPU wherever it is. */
static int test_panic_on(struct shell_ctx *sh, const char *arg)
{
	uint64_t cpu;

	if (parse_u64(arg, &cpu) < 0 || cpu >= hal_cpu_count()) {
		out_printf(sh->out, "test: cpu must be 0-%u (got %s)\n",
			   hal_cpu_count() - 1, arg);
		return 1;
	}
	if (!task_create("panic", test_panic_task, NULL, (unsigned)cpu)) {
		out_printf(sh->out, "test: cannot start a task on cpu %lu\n",
			   (unsigned long)cpu);
		return 1;
	}
	sched_sleep_ms(TEST_PANIC_WAIT_MS);
	out_printf(sh->out, "test: panic on cpu %lu did not stop the machine\n",
		   (unsigned long)cpu);
	return 1;
}

/* `test irqsoff`: a pinned task waits, then spins with interrupts masked
 * so that neither the tick nor anything else can interrupt it; only the
 * profiler's counter overflow (an NMI, or the simulator's unmasked
 * overflow signal) can see where its time goes. */
struct test_irqsoff_args {
	uint64_t spin_ms, delay_ms;
};

static volatile unsigned long test_irqsoff_sink;

/* The function the profile must show: it reads the clock only between
 * batches of its own work. */
__attribute__((noipa)) static void irqsoff_spin(uint64_t ms)
{
	uint64_t end = hal_clock_ns() + ms * 1000000u;

	while ((int64_t)(hal_clock_ns() - end) < 0)
		for (unsigned i = 0; i < TEST_IRQSOFF_BATCH; i++)
			test_irqsoff_sink += i;
}

static void test_irqsoff_task(void *arg)
{
	struct test_irqsoff_args a = *(struct test_irqsoff_args *)arg;
	unsigned long flags;

	kfree(arg);
	sched_sleep_ms(a.delay_ms);
	flags = hal_irq_save();
	irqsoff_spin(a.spin_ms);
	hal_irq_restore(flags);
}

static int test_parse_ms(struct shell_ctx *sh, const char *what,
			 const char *s, uint64_t min, uint64_t *ms)
{
	if (parse_u64(s, ms) < 0 || *ms < min || *ms > TEST_IRQSOFF_MAX_MS) {
		out_printf(sh->out, "test: irqsoff %s must be %lu-%d ms (got %s)\n",
			   what, (unsigned long)min, TEST_IRQSOFF_MAX_MS, s);
		return -1;
	}
	return 0;
}

/* test irqsoff CPU MS [DELAY_MS]: returns at once; the spin starts on
 * CPU after DELAY_MS, so a profile started meanwhile sees it. */
static int test_irqsoff_cmd(struct shell_ctx *sh, int argc, char **argv)
{
	struct test_irqsoff_args *a;
	uint64_t cpu, spin, delay = TEST_IRQSOFF_DELAY_DEFAULT_MS;

	if (argc < 4 || argc > 5) {
		out_puts(sh->out, "test: usage: test irqsoff CPU MS [DELAY_MS]\n");
		return 1;
	}
	if (parse_u64(argv[2], &cpu) < 0 || cpu >= hal_cpu_count()) {
		out_printf(sh->out, "test: cpu must be 0-%u (got %s)\n",
			   hal_cpu_count() - 1, argv[2]);
		return 1;
	}
	if (test_parse_ms(sh, "time", argv[3], 1, &spin) < 0 ||
	    (argc == 5 && test_parse_ms(sh, "delay", argv[4], 0, &delay) < 0))
		return 1;
	a = kmalloc(sizeof(*a));
	if (!a) {
		out_puts(sh->out, "test: out of memory\n");
		return 1;
	}
	a->spin_ms = spin;
	a->delay_ms = delay;
	if (!task_create("irqsoff", test_irqsoff_task, a, (unsigned)cpu)) {
		kfree(a);
		out_printf(sh->out, "test: cannot start a task on cpu %lu\n",
			   (unsigned long)cpu);
		return 1;
	}
	out_printf(sh->out, "test: irqsoff on cpu %lu for %lu ms in %lu ms\n",
		   (unsigned long)cpu, (unsigned long)spin, (unsigned long)delay);
	return 0;
}

__attribute__((noipa)) static int test_fault_read(uintptr_t addr)
{
	return *(volatile int *)addr;
}

__attribute__((noipa)) static void test_invalid_opcode(void)
{
	__builtin_trap();
}

/* Every command-line key linked into this image, one per line, "KEY=
 * VALUE  what it does": tests check doc/boot.md against it. */
static int test_keys_cmd(struct shell_ctx *sh)
{
	size_t n;
	const struct cmdline_key *const *keys = cmdline_keys(&n);

	for (size_t i = 0; i < n; i++)
		out_printf(sh->out, "%s= %s\n", keys[i]->name, keys[i]->help);
	return 0;
}

int cmd_test(struct shell_ctx *sh, int argc, char **argv)
{
	if (argc == 2 && kstreq(argv[1], "keys"))
		return test_keys_cmd(sh);
	if (argc >= 2 && kstreq(argv[1], "irqsoff"))
		return test_irqsoff_cmd(sh, argc, argv);
	if (argc == 3 && kstreq(argv[1], "panic"))
		return test_panic_on(sh, argv[2]);
	if (argc >= 2 && kstreq(argv[1], "overflow"))
		return test_overflow_cmd(sh, argc, argv);
	if (argc >= 2 && kstreq(argv[1], "recurse")) {
		if (argc != 3) {
			out_puts(sh->out, "test: usage: test recurse N\n");
			return 1;
		}
		return test_recurse_cmd(sh, argv[2]);
	}
	if (argc != 2) {
		out_puts(sh->out, "test: usage: " CMD_TEST_USAGE "\n");
		return 1;
	}
	if (kstreq(argv[1], "panic")) {
		test_panic_outer();
	} else if (kstreq(argv[1], "fault")) {
		out_printf(sh->out, "test: reading 0x%lx\n",
			   (unsigned long)test_null_addr);
		test_fault_read(test_null_addr);
	} else if (kstreq(argv[1], "gp")) {
		out_printf(sh->out, "test: reading 0x%lx\n",
			   (unsigned long)test_noncanonical_addr);
		test_fault_read(test_noncanonical_addr);
	} else if (kstreq(argv[1], "ud")) {
		test_invalid_opcode();
	} else {
		out_printf(sh->out, "test: unknown test '%s' (panic, recurse, overflow, fault, gp, ud, irqsoff or keys)\n",
			   argv[1]);
		return 1;
	}
	out_printf(sh->out, "test: %s did not stop the machine\n", argv[1]);
	return 1;
}
