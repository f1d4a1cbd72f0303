/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/probe.h on the fake platform: a site table a test installs
 * (fake_probe_use_sites()) and a patch that only records each site's
 * state; the test plays the trampolines by calling probe_entry() and
 * probe_exit() itself (tests/prof/check_probe_hit.c). */
#include "fake_probe.h"

#include "hal/probe.h"

static const uintptr_t *fake_sites;
static size_t fake_nsites;
static bool fake_on[FAKE_PROBE_MAX_SITES];
unsigned fake_probe_patches;

void fake_probe_use_sites(const uintptr_t *sorted, size_t n)
{
	fake_sites = sorted;
	fake_nsites = n < FAKE_PROBE_MAX_SITES ? n : FAKE_PROBE_MAX_SITES;
	for (size_t i = 0; i < FAKE_PROBE_MAX_SITES; i++)
		fake_on[i] = false;
}

static long fake_index(uintptr_t site)
{
	for (size_t i = 0; i < fake_nsites; i++)
		if (fake_sites[i] == site)
			return (long)i;
	return -1;
}

bool fake_probe_is_on(uintptr_t site)
{
	long i = fake_index(site);

	return i >= 0 && fake_on[i];
}

__attribute__((noinline)) void fake_probe_ret(void)
{
	__asm__ volatile("");
}

const uintptr_t *hal_probe_sites(size_t *n)
{
	*n = fake_nsites;
	return fake_sites;
}

bool hal_probe_site_ok(uintptr_t site)
{
	return fake_index(site) >= 0;
}

int hal_probe_patch(uintptr_t site, bool on)
{
	long i = fake_index(site);

	if (i < 0)
		return -1;
	fake_on[i] = on;
	fake_probe_patches++;
	return 0;
}

uintptr_t hal_probe_ret_addr(void)
{
	return (uintptr_t)fake_probe_ret;
}
