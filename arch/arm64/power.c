/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/power.h: a non-zero status N (1-127) leaves through semihosting's
 * SYS_EXIT with 2N + 1 (QEMU's -semihosting: QEMU exits with that, 3-255,
 * as x86's isa-debug-exit makes it); otherwise, or without semihosting,
 * PSCI SYSTEM_OFF (QEMU exits with 0).  N itself would clash: QEMU exits
 * with 1 when it fails by itself (a taken port, a bad option), which
 * would read as poweroff 1.  So QEMU's 0 or 2N+1 is the kernel's
 * poweroff on both architectures, anything else QEMU's own failure
 * (arch/arm64/qemu-run decodes it).  Without semihosting the HLT is an
 * undefined instruction, which trap.c skips when it is this probe's. */
#include "hal/power.h"

#include "hal/cpu.h"
#include "kernel/panic.h"
#include "a64.h"

#define SEMIHOST_SYS_EXIT		0x18
#define ADP_STOPPED_APPLICATION_EXIT	0x20026

volatile bool a64_semihosting_absent;
volatile uintptr_t a64_semihosting_probe_pc;

static void semihosting_exit(int status)
{
	static uint64_t block[2];
	register uint64_t x0 __asm__("x0") = SEMIHOST_SYS_EXIT;
	register uint64_t x1 __asm__("x1") = (uintptr_t)block;
	uintptr_t pc;

	block[0] = ADP_STOPPED_APPLICATION_EXIT;
	block[1] = 2 * (uint64_t)status + 1;
	__asm__ volatile("adr %0, 1f\n\t"
			 "str %0, [%3]\n\t"
			 "1: hlt #0xf000"
			 : "=&r"(pc), "+r"(x0)
			 : "r"(x1), "r"(&a64_semihosting_probe_pc)
			 : "memory");
}

void hal_power_off(int status)
{
	hal_irq_save();
	if (status != 0)
		semihosting_exit(status);
	a64_psci_call(PSCI_SYSTEM_OFF, 0, 0, 0);
	/* Neither worked: the machine stops here, every CPU of it. */
	panic_stop_others();
	panic_end();
}
