/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/probe.h on the kernels, for now: they are built without patchable
 * entries (m4/kp_flags.m4 adds -fpatchable-function-entry to ksim's
 * build only) and their linker scripts keep no site table, so there is
 * nothing to patch; `probe sites` says so and `probe add` refuses.
 * Compiled into each kernel's own archive, as arch/common/'s other
 * files. */
#include "hal/probe.h"

const uintptr_t *hal_probe_sites(size_t *n)
{
	*n = 0;
	return NULL;
}

bool hal_probe_site_ok(uintptr_t site)
{
	(void)site;
	return false;
}

int hal_probe_patch(uintptr_t site, bool on)
{
	(void)site;
	(void)on;
	return -1;
}

uintptr_t hal_probe_ret_addr(void)
{
	return 0;
}
