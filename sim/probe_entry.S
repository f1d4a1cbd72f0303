/* SPDX-License-Identifier: BSD-2-Clause */
/* The probes' trampolines on ksim's x86_64 host: the kernel's own
 * (x86_probe_tramp and x86_probe_ret), one code for both. */
#include "../arch/x86_64/probe_entry.S"
