/* SPDX-License-Identifier: BSD-2-Clause */
/* Probes' platform half (issue 59): the image's patchable function
 * entries, and patching one into a call of the platform's entry
 * trampoline and back while other CPUs may be running it.  The
 * trampoline calls probe_entry() (hal/entry.h) with the entry's address
 * and the slot holding the probed function's return address; a return
 * address replaced by hal_probe_ret_addr() brings the function's return
 * to probe_exit(), which gives back the real one. */
#ifndef KPROF_HAL_PROBE_H
#define KPROF_HAL_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The entry trampoline builds two frame records before it calls
 * probe_entry(): one whose return address is the probed function's own
 * (its caller's frame, which the function has not made yet), below one
 * whose return address is inside the probed function; so a walk from the
 * handler loses no caller, and `stack` skips exactly those two (after
 * the trampoline's own return) to reach the caller. */

/* The image's patchable entries, in no particular order (*@n of them;
 * NULL and 0 on a platform that builds none).  Each is a function's
 * first instruction.  Any context; the table never changes. */
const uintptr_t *hal_probe_sites(size_t *n);

/* Whether the entry at @site holds the platform's entry NOP, the one
 * state hal_probe_patch() starts from; false names a site the compiler
 * did not lay out as expected (never patched). */
bool hal_probe_site_ok(uintptr_t site);

/* Turn the entry at @site into a call of the entry trampoline (@on) or
 * back into its NOP, while any CPU may be executing it: when it returns,
 * every CPU runs the new instruction.  Task context, one caller at a
 * time (the probe layer's lock); it may take milliseconds.  Returns 0,
 * or a negative errno when the platform cannot write its text. */
int hal_probe_patch(uintptr_t site, bool on);

/* The return trampoline's address: what a probed function's return
 * address reads while the probe times it.  Stack walkers give the real
 * one from the task's shadow stack instead (kernel/stacktrace.c).
 * 0 where the platform has no probes. */
uintptr_t hal_probe_ret_addr(void);

#endif
