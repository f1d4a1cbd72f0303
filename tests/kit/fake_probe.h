/* SPDX-License-Identifier: BSD-2-Clause */
/* The fake platform's probe sites (tests/kit/fake_probe.c). */
#ifndef KPROF_TESTS_FAKE_PROBE_H
#define KPROF_TESTS_FAKE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAKE_PROBE_MAX_SITES 64

/* Use @n sites (sorted by address, kept by the caller) from now on. */
void fake_probe_use_sites(const uintptr_t *sorted, size_t n);
/* Whether the last patch of @site turned it on. */
bool fake_probe_is_on(uintptr_t site);
/* What hal_probe_ret_addr() answers. */
void fake_probe_ret(void);
/* hal_probe_patch() calls so far. */
extern unsigned fake_probe_patches;

#endif
