/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/probe.h on the x86_64 kernel.  src/ is built with
 * -fpatchable-function-entry=5 (m4/kp_flags.m4): gcc starts each of its
 * functions with five one-byte NOPs and lists them in
 * __patchable_function_entries, which kernel.ld keeps in the data
 * segment.  A CPU may be between two of those NOPs, so x86_probe_init()
 * rewrites each into one 5-byte NOP at boot, before a second CPU runs
 * (hal_platform_early_init()), and sorts the table in place.  From then
 * on an entry is one instruction, the NOP or a call of x86_probe_tramp
 * (probe_entry.S), changed by the breakpoint protocol, as ksim does
 * (sim/probe.c): int3 over the first byte, every CPU serialized, the
 * other four bytes, serialize, the first byte, serialize.  A CPU that
 * meets the int3 meanwhile takes #BP and x86_probe_int3() steps it over
 * the whole entry.  The kernel's text is identity-mapped writable.
 *
 * Serializing every CPU: each other online CPU takes a tick after the
 * write (its count moves), and an interrupt's delivery and its IRET are
 * serializing; the calling CPU, whose interrupts the probe layer holds
 * off, serializes itself (CPUID). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/cpu.h"
#include "hal/probe.h"
#include "kernel/sched.h"
#include "x86.h"

#define SITE_LEN 5
#define OP_CALL 0xe8
#define OP_INT3 0xcc

extern uintptr_t __start___patchable_function_entries[];
extern uintptr_t __stop___patchable_function_entries[];

void x86_probe_tramp(void);
void x86_probe_ret(void);

static const uint8_t nop5[SITE_LEN] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const uint8_t nop1x5[SITE_LEN] = { 0x90, 0x90, 0x90, 0x90, 0x90 };

/* Byte loops of its own: the library's kmemcpy() has an entry, and may
 * be the very function being patched. */
static bool same(const void *a, const void *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((const uint8_t *)a)[i] != ((const uint8_t *)b)[i])
			return false;
	return true;
}

static void copy(void *to, const void *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((uint8_t *)to)[i] = ((const uint8_t *)from)[i];
}

static size_t nsites(void)
{
	return (size_t)(__stop___patchable_function_entries -
			__start___patchable_function_entries);
}

static bool site_known(uintptr_t site)
{
	const uintptr_t *s = __start___patchable_function_entries;
	size_t lo = 0, hi = nsites();

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid] == site)
			return true;
		if (s[mid] < site)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

void x86_probe_init(void)
{
	uintptr_t *s = __start___patchable_function_entries;
	size_t n = nsites();

	/* Insertion sort: a few hundred entries, nearly in order already
	 * (the linker lays them out object by object). */
	for (size_t i = 1; i < n; i++) {
		uintptr_t v = s[i];
		size_t j = i;

		for (; j > 0 && s[j - 1] > v; j--)
			s[j] = s[j - 1];
		s[j] = v;
	}
	for (size_t i = 0; i < n; i++)
		if (same((const void *)s[i], nop1x5, SITE_LEN))
			copy((void *)s[i], nop5, SITE_LEN);
}

bool x86_probe_int3(struct trap_frame *tf)
{
	uintptr_t site = tf->rip - 1;

	if (!site_known(site))
		return false;
	tf->rip = site + SITE_LEN;
	return true;
}

static void sync_core(void)
{
	uint32_t a = 0, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d) : : "memory");
}

/* Every other online CPU has taken an interrupt since the write. */
static void sync_cpus(void)
{
	uint64_t seen[HAL_MAX_CPUS];
	unsigned me = hal_cpu_id(), n = hal_cpu_count();

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	sync_core();
	for (unsigned c = 0; c < n; c++)
		seen[c] = sched_cpu_ticks(c);
	for (unsigned c = 0; c < n; c++)
		while (c != me && sched_cpu_online(c) && sched_cpu_ticks(c) == seen[c])
			hal_cpu_relax();
}

static void write_text(uintptr_t at, const uint8_t *bytes, size_t len)
{
	for (size_t i = 0; i < len; i++)
		__atomic_store_n((uint8_t *)at + i, bytes[i], __ATOMIC_RELAXED);
}

static void call_bytes(uintptr_t site, uint8_t out[SITE_LEN])
{
	int32_t rel = (int32_t)((intptr_t)(uintptr_t)x86_probe_tramp - (intptr_t)(site + SITE_LEN));

	out[0] = OP_CALL;
	copy(out + 1, &rel, sizeof(rel));
}

const uintptr_t *hal_probe_sites(size_t *n)
{
	*n = nsites();
	return __start___patchable_function_entries;
}

bool hal_probe_site_ok(uintptr_t site)
{
	uint8_t call[SITE_LEN];

	if (!site_known(site))
		return false;
	call_bytes(site, call);
	return same((const void *)site, nop5, SITE_LEN) ||
	       same((const void *)site, call, SITE_LEN);
}

int hal_probe_patch(uintptr_t site, bool on)
{
	uint8_t want[SITE_LEN];
	const uint8_t int3 = OP_INT3;

	if (!site_known(site))
		return -1;
	if (on)
		call_bytes(site, want);
	else
		copy(want, nop5, SITE_LEN);
	if (same((const void *)site, want, SITE_LEN))
		return 0;
	write_text(site, &int3, 1);
	sync_cpus();
	write_text(site + 1, want + 1, SITE_LEN - 1);
	sync_cpus();
	write_text(site, want, 1);
	sync_cpus();
	return 0;
}

uintptr_t hal_probe_ret_addr(void)
{
	return (uintptr_t)x86_probe_ret;
}
