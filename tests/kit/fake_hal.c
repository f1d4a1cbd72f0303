/* SPDX-License-Identifier: BSD-2-Clause */
/* The fake platform: see fake_hal.h.  Only the CPU, clock, console,
 * memory, context and trap parts; the PMU and the NIC have their own. */
#include "fake_hal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hal/console.h"
#include "hal/context.h"
#include "hal/entry.h"
#include "hal/firmware.h"
#include "hal/image.h"
#include "hal/mem.h"
#include "hal/power.h"
#include "hal/random.h"
#include "hal/timer.h"
#include "hal/trap.h"
#include "kernel/page.h"
#include "kernel/sched.h"
#include "prof/profiler.h"

unsigned fake_cpu;
unsigned fake_ncpus = 1;
uint64_t fake_now_ns = 1000000000ull;
uint64_t fake_cpu_time[HAL_MAX_CPUS];
bool fake_irq_off[HAL_MAX_CPUS];
unsigned fake_switches;
void *fake_last_switch_from, *fake_last_switch_to;
void *fake_released_stack;
char fake_console_out[65536];
size_t fake_console_len;
unsigned fake_idle_calls;
void (*fake_idle_hook)(void);
void (*fake_switch_hook)(void);
void (*fake_switch_midway_hook)(void);

static char console_in[4096];
static size_t console_in_len, console_in_pos;

unsigned hal_cpu_id(void) { return fake_cpu; }
unsigned hal_cpu_count(void) { return fake_ncpus; }

unsigned long hal_irq_save(void)
{
	unsigned long was = fake_irq_off[fake_cpu];

	fake_irq_off[fake_cpu] = true;
	return was;
}

void hal_irq_restore(unsigned long flags) { fake_irq_off[fake_cpu] = flags != 0; }
void hal_irq_enable(void) { fake_irq_off[fake_cpu] = false; }
bool hal_irq_disabled(void) { return fake_irq_off[fake_cpu]; }
/* Not kept, as on the kernels. */
uint64_t hal_irq_masked_ns(void) { return UINT64_MAX; }
void hal_cpu_relax(void) { }

void hal_cpu_idle(void)
{
	fake_idle_calls++;
	if (fake_idle_hook)
		fake_idle_hook();
}

/* The test plays every CPU: there is no other to stop. */
const char *hal_cpu_interrupt_others(void) { return "fake"; }
void hal_cpu_park(void) { abort(); }
void hal_cpu_halt(void) { abort(); }
/* As the simulator does: a test can expect the exit (tcase_add_exit_test). */
void hal_power_off(int status) { exit(status); }
uint64_t hal_cycles(void) { return fake_now_ns; }
uint64_t hal_cycles_per_sec(void) { return 1000000000ull; }
uint64_t hal_cpu_time(void) { return fake_cpu_time[fake_cpu]; }
uint64_t hal_cpu_time_per_sec(void) { return 1000000000ull; }
void (*fake_clock_hook)(void);

/* The hook runs once per call, not nested: it may read the clock. */
uint64_t hal_clock_ns(void)
{
	void (*hook)(void) = fake_clock_hook;

	if (hook) {
		fake_clock_hook = NULL;
		hook();
	}
	return fake_now_ns;
}

void hal_timer_info(struct hal_timer_info *info)
{
	info->name = "tick";
	info->default_hz = 100;
	info->answer_ns = 20000000ull;
	info->irq = 0;
}

/* The test plays every tick itself. */
void hal_timer_start(unsigned hz) { (void)hz; }

void hal_console_write(const char *buf, size_t len)
{
	size_t room = sizeof(fake_console_out) - 1 - fake_console_len;

	if (len > room)
		len = room;
	memcpy(fake_console_out + fake_console_len, buf, len);
	fake_console_len += len;
	fake_console_out[fake_console_len] = '\0';
}

void hal_console_info(struct hal_console_info *info)
{
	info->echo = false;
	info->crlf = false;
}

int hal_console_getc(void)
{
	if (console_in_pos == console_in_len)
		return -1;
	return (unsigned char)console_in[console_in_pos++];
}

void fake_console_clear(void)
{
	fake_console_len = 0;
	fake_console_out[0] = '\0';
}

void fake_console_input(const char *bytes, size_t n)
{
	if (n > sizeof(console_in) - console_in_len)
		n = sizeof(console_in) - console_in_len;
	memcpy(console_in + console_in_len, bytes, n);
	console_in_len += n;
}

/* The fake machine's RAM: enough for every suite's tasks and buffers.
 * Its pages are handed out by the kernel's own allocator, made ready
 * before main() as a boot would.  It is mapped between two pages that
 * fault, not taken from malloc: LeakSanitizer reads every reachable heap
 * block through at each exit, and a Check suite exits once per test (a
 * forked child each), so 64 MiB of it took nine tenths of the sanitizer
 * build's time in those suites.  Only the kernel's allocator
 * hands out this memory; a run past either end still stops the test. */
#define FAKE_RAM_SIZE (64u << 20)

static void *fake_ram_map(void)
{
	size_t len = FAKE_RAM_SIZE + 2 * HAL_PAGE_SIZE;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	if (mprotect(m, HAL_PAGE_SIZE, PROT_NONE) != 0 ||
	    mprotect(m + HAL_PAGE_SIZE + FAKE_RAM_SIZE, HAL_PAGE_SIZE,
		     PROT_NONE) != 0) {
		munmap(m, len);
		return NULL;
	}
	return m + HAL_PAGE_SIZE;
}

size_t hal_mem_ranges(struct hal_mem_range *r, size_t max)
{
	static void *ram;

	if (!ram)
		ram = fake_ram_map();
	if (max && ram) {
		r[0].addr = (uintptr_t)ram;
		r[0].size = FAKE_RAM_SIZE;
		r[0].kind = HAL_MEM_RAM;
	}
	return ram ? 1 : 0;
}

__attribute__((constructor)) static void fake_mem_boot(void)
{
	page_init();
}

void *hal_context_prepare(void *stack, size_t size, void (*entry)(void *),
			  void *arg)
{
	/* Kept at the top of the new stack, as a real platform would. */
	struct fake_ctx *c = (struct fake_ctx *)((char *)stack + size) - 1;

	c->entry = entry;
	c->arg = arg;
	c->stack = stack;
	c->size = size;
	return c;
}

/* Records the switch and returns at once: the test then plays the
 * incoming task.  *save gets a recognisable non-NULL handle. */
void hal_context_switch(void **save, void *to)
{
	if (save)
		*save = save;
	fake_last_switch_from = save;
	fake_last_switch_to = to;
	fake_switches++;
	if (fake_switch_midway_hook)
		fake_switch_midway_hook();
	/* The incoming task has run its first instructions (the scheduler's
	 * finish of the switch): from here it is the CPU's current. */
	cpus[fake_cpu].current = cpus[fake_cpu].switch_to;
	if (fake_switch_hook)
		fake_switch_hook();
}

/* The fake keeps no registers: a walk of a saved context finds no
 * stack to walk. */
void hal_context_saved_regs(const void *ctx, struct hal_context_regs *r)
{
	(void)ctx;
	r->pc = r->fp = r->sp = 0;
}

void hal_context_release(void *stack, size_t size)
{
	(void)size;
	fake_released_stack = stack;
}

void hal_context_boot_stack(uintptr_t *lo, uintptr_t *hi)
{
	*lo = *hi = 0;
}

uintptr_t hal_trap_ip(const struct trap_frame *tf) { return tf->ip; }
uintptr_t hal_trap_fp(const struct trap_frame *tf) { return tf->fp; }
uintptr_t hal_trap_sp(const struct trap_frame *tf) { return tf->sp; }
uintptr_t hal_trap_lr(const struct trap_frame *tf) { return tf->lr; }

/* The test's exception entry: its return address, and a frame pointer
 * of the frame + 1, as the kernels' entries make. */
uintptr_t fake_trap_entry_ra;

const struct trap_frame *hal_trap_frame_at(uintptr_t ra, uintptr_t fp, size_t *size)
{
	if (!fake_trap_entry_ra || ra != fake_trap_entry_ra || (fp & 7) != 1)
		return NULL;
	*size = sizeof(struct trap_frame);
	return (const struct trap_frame *)(fp - 1);
}

/* As on a kernel; a test may name foreign code. */
const char *fake_foreign_name;
const char *hal_trap_foreign_name(void) { return fake_foreign_name; }

const void *fake_build_id_note;
size_t fake_build_id_note_len;
const void *hal_image_build_id_note(size_t *len)
{
	*len = fake_build_id_note_len;
	return fake_build_id_note;
}

void hal_trap_irq_stack(uintptr_t *lo, uintptr_t *hi)
{
	*lo = *hi = 0;
}

void fake_cpu_boot(unsigned cpu)
{
	fake_cpu = cpu;
	if (fake_ncpus <= cpu)
		fake_ncpus = cpu + 1;
	fake_irq_off[cpu] = true;
	sched_cpu_init();
	/* As the boot story does: the profiler's hooks on the tick and
	 * the counter's interrupt (kernel_on_tick() and the rest). */
	prof_init();
}

void fake_tick(unsigned cpu, uint64_t ns)
{
	struct trap_frame tf = { 0 };

	fake_cpu = cpu;
	fake_now_ns += ns;
	fake_cpu_time[cpu] += ns;
	fake_irq_off[cpu] = true;
	kernel_tick(&tf);
}

/* Firmware files and random numbers. */
const char *fake_fw_key;
const char *fake_fw_seed;
uint64_t fake_random = 0x0123456789abcdefull;

long hal_fw_file_read(const char *name, void *buf, size_t size)
{
	const char *text = NULL;
	size_t n;

	if (strcmp(name, HAL_FW_UDPSH_KEY) == 0)
		text = fake_fw_key;
	else if (strcmp(name, HAL_FW_RANDOM_SEED) == 0)
		text = fake_fw_seed;
	if (!text)
		return -2;	/* -ENOENT */
	n = strlen(text);
	memcpy(buf, text, n < size ? n : size);
	return (long)n;
}

bool hal_random_hw(uint64_t *v)
{
	if (!fake_random)
		return false;
	*v = fake_random;
	return true;
}

/* No guard pages here yet: the page below a task stack stays ordinary
 * memory (test overflow refuses to run). */
bool hal_mem_guard(uintptr_t page, bool guard)
{
	(void)page;
	(void)guard;
	return false;
}
