/* SPDX-License-Identifier: BSD-2-Clause */
/* notrace: a function built without a patchable entry, so no probe can
 * ever be put on it (prof/probe.c).  The probe machinery's own handler
 * and what only it calls are notrace: a probe there would call itself.
 * gcc's no_instrument_function keeps the entry; this removes it. */
#ifndef KPROF_LIB_NOTRACE_H
#define KPROF_LIB_NOTRACE_H

#define notrace __attribute__((patchable_function_entry(0, 0)))

#endif
