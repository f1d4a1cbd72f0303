/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot banner (src/init/banner.c). */
#ifndef KPROF_INIT_BANNER_H
#define KPROF_INIT_BANNER_H

struct out;

/* Print on @o what the platform found (hal_platform_facts()) and any
 * problem with how it was booted; nothing where the platform names no
 * arch (ksim).  Boot CPU, after memory and the clock; interrupts off. */
void init_banner(struct out *o);

#endif
