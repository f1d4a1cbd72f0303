/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/power.h: status N (1-127) leaves through QEMU's isa-debug-exit
 * device (iobase 0xf4, iosize 4), which ends QEMU with exit code
 * (N << 1) | 1: 3-255.  Status 0 cannot leave that way, since 1 is also
 * what QEMU exits with when it fails by itself (a taken port, a bad
 * option): it resets the machine through the PIIX's reset control
 * register instead, which QEMU's -no-reboot turns into an exit with 0.
 * So QEMU's 0 or 2N+1 is the kernel's poweroff, anything else QEMU's own
 * failure (arch/x86_64/qemu-run decodes it; arm64 gives the same codes).
 * Without either device the CPU halts. */
#include "hal/power.h"

#include "hal/cpu.h"
#include "kernel/panic.h"
#include "x86.h"

#define DEBUG_EXIT_PORT 0xf4
#define RESET_CONTROL_PORT 0xcf9
#define RESET_CONTROL_HARD 0x06	/* system reset + reset the CPU */

void hal_power_off(int status)
{
	hal_irq_save();
	if (status != 0)
		outl(DEBUG_EXIT_PORT, (uint32_t)status);
	else
		outb(RESET_CONTROL_PORT, RESET_CONTROL_HARD);
	/* No such device: the machine stops here, every CPU of it. */
	panic_stop_others();
	panic_end();
}
