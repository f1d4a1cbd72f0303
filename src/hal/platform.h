/* SPDX-License-Identifier: BSD-2-Clause */
/* The platform's steps of the boot story (src/init/main.c), each called
 * once, in this order, on the boot CPU. */
#ifndef KPROF_HAL_PLATFORM_H
#define KPROF_HAL_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* First thing: what must precede everything else on this platform (x86:
 * the boot CPU's descriptor and trap tables and the serial port, so that
 * any later step can report).  Interrupts off; never sleeps. */
void hal_platform_early_init(void);

/* What the platform found and how it was booted, as data: the boot story
 * prints the banner from it (src/init/banner.c).  A field a platform has
 * nothing for stays as hal_platform_facts() found it: zero, NULL. */
struct hal_platform_facts {
	const char *arch;		/* "x86_64", "arm64"; NULL: no banner (ksim) */
	const char *mem_source;		/* where the memory map came from */
	const char *irqc;		/* the interrupt controller, where named */
	const char *clock;		/* the clock the kernel counts time by */
	uint64_t clock_hz;
	bool clock_in_khz;		/* its rate in kHz, else in MHz */
	const char *clock_by;		/* what its rate was measured against */
	int entry_el;			/* the exception level entered at, or -1 */
	/* The loader's information was malformed (the loader's name, where
	 * it was): no memory map, command line or ACPI from it. */
	const char *bad_boot_info;
	uint32_t bad_boot_info_at;
	/* Bytes of command line the loader gave; more than the kernel kept
	 * (kstrlen(hal_platform_cmdline())) means it was cut short. */
	size_t cmdline_given;
};

/* Fill @f (zeroed by the caller).  After memory; interrupts off. */
void hal_platform_facts(struct hal_platform_facts *f);

/* The kernel command line (key=value words), never NULL.  Any time
 * after hal_platform_early_init(). */
const char *hal_platform_cmdline(void);

/* In the boot story's first task, once every CPU runs the scheduler:
 * what the platform serves itself (ksim: its host-socket UDP shell and a
 * test's late hook).  May sleep and create tasks. */
void hal_platform_late_init(void);

#endif
