/* SPDX-License-Identifier: BSD-2-Clause */
/* The platform's steps of the boot story (src/init/main.c), each called
 * once, in this order, on the boot CPU. */
#ifndef KPROF_HAL_PLATFORM_H
#define KPROF_HAL_PLATFORM_H

struct out;

/* First thing: what must precede everything else on this platform (x86:
 * the boot CPU's descriptor and trap tables and the serial port, so that
 * any later step can report).  Interrupts off; never sleeps. */
void hal_platform_early_init(void);

/* One line (or none) saying what the platform found, and any problem
 * with how it was booted (a command line cut short), on @o.  After
 * memory; interrupts off. */
void hal_platform_banner(struct out *o);

/* The kernel command line (key=value words), never NULL.  Any time
 * after hal_platform_early_init(). */
const char *hal_platform_cmdline(void);

/* In the boot story's first task, once every CPU runs the scheduler:
 * what the platform serves itself (ksim: its host-socket UDP shell and a
 * test's late hook).  May sleep and create tasks. */
void hal_platform_late_init(void);

#endif
