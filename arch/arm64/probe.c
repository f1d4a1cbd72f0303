/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/probe.h on the arm64 kernel, for now: it is built without
 * patchable entries (m4/kp_flags.m4 gives -fpatchable-function-entry to
 * ksim on an x86_64 host and the x86_64 kernel only) and its linker
 * script keeps no site table, so there is nothing to patch; `probe
 * sites` says so and `probe add` refuses.  The route for arm64 is
 * -fpatchable-function-entry=2 and single-instruction NOP <-> BL
 * patches (doc/profiler.md, "Probes"). */
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
