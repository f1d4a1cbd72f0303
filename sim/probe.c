/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/probe.h for ksim on an x86_64 host.  src/ is built with
 * -fpatchable-function-entry=5 (m4/kp_flags.m4): gcc starts each function
 * with five one-byte NOPs and lists them in __patchable_function_entries.
 * A CPU may be between two of those NOPs, so they cannot be patched
 * live: ksim_start() rewrites each into one 5-byte NOP before any CPU
 * thread exists.  From then on an entry is one instruction, the NOP or a
 * call of x86_probe_tramp (arch/x86_64/probe_entry.S, the kernel's own,
 * which sim/probe_entry.S includes), changed by the x86 breakpoint
 * protocol, as Linux's text_poke_bp does: write int3 over the
 * first byte, make every CPU serialize, write the other four, serialize,
 * write the first byte, serialize.  A CPU that meets the int3 meanwhile
 * takes SIGTRAP and sim_probe_trap() steps it over the whole entry, as
 * if it were the NOP (that call is not counted).  The CPUs serialize
 * through membarrier(PRIVATE_EXPEDITED_SYNC_CORE), which interrupts
 * every thread of the process that is running; where the host lacks it,
 * the mprotect() back to read-only text does the same, by the TLB
 * shootdown it sends to every CPU running the process. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "hal/probe.h"
#include "sim/sim.h"

#define SITE_LEN 5
#define OP_CALL 0xe8
#define OP_INT3 0xcc

/* The linker's bounds of gcc's table; absent (weak, NULL) in a program
 * whose code has no patchable entries. */
extern const uintptr_t __start___patchable_function_entries[] __attribute__((weak));
extern const uintptr_t __stop___patchable_function_entries[] __attribute__((weak));

void x86_probe_tramp(void);
void x86_probe_ret(void);

static const uint8_t nop5[SITE_LEN] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const uint8_t nop1x5[SITE_LEN] = { 0x90, 0x90, 0x90, 0x90, 0x90 };

/* The table sorted by address, so the SIGTRAP handler and the probe
 * layer can search it. */
static uintptr_t *sim_sites;
static size_t sim_nsites;
static bool sim_sync_core;
static uint64_t sim_int3_steps;

static int sim_site_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static bool sim_site_known(uintptr_t site)
{
	size_t lo = 0, hi = sim_nsites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sim_sites[mid] == site)
			return true;
		if (sim_sites[mid] < site)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Every CPU thread executes a serializing instruction before this
 * returns (see the top). */
static void sim_sync_cpus(void)
{
	if (sim_sync_core)
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}

static int sim_text_prot(uintptr_t at, size_t len, int prot)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = at & ~(page - 1), hi = (at + len + page - 1) & ~(page - 1);

	return mprotect((void *)lo, hi - lo, prot) == 0 ? 0 : -errno;
}

/* Write @len bytes of text at @at, the page(s) writable meanwhile and
 * executable throughout (other CPUs run code on the same pages). */
static int sim_text_write(uintptr_t at, const uint8_t *bytes, size_t len)
{
	int err = sim_text_prot(at, len, PROT_READ | PROT_WRITE | PROT_EXEC);

	if (err)
		return err;
	for (size_t i = 0; i < len; i++)
		__atomic_store_n((uint8_t *)at + i, bytes[i], __ATOMIC_RELAXED);
	return sim_text_prot(at, len, PROT_READ | PROT_EXEC);
}

static void sim_call_bytes(uintptr_t site, uint8_t out[SITE_LEN])
{
	int32_t rel = (int32_t)((intptr_t)(uintptr_t)x86_probe_tramp - (intptr_t)(site + SITE_LEN));

	out[0] = OP_CALL;
	memcpy(out + 1, &rel, sizeof(rel));
}

void sim_probe_init(void)
{
	const uintptr_t *t = __start___patchable_function_entries;
	size_t n = t ? (size_t)(__stop___patchable_function_entries - t) : 0;

	if (sim_sites || !n)
		return;
	sim_sites = malloc(n * sizeof(*sim_sites));
	if (!sim_sites)
		return;
	memcpy(sim_sites, t, n * sizeof(*sim_sites));
	qsort(sim_sites, n, sizeof(*sim_sites), sim_site_cmp);
	sim_nsites = n;
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
		    0, 0) == 0)
		sim_sync_core = true;
	/* No CPU thread runs yet: the one time the NOPs may change under
	 * nobody. */
	for (size_t i = 0; i < n; i++)
		if (memcmp((const void *)sim_sites[i], nop1x5, SITE_LEN) == 0)
			sim_text_write(sim_sites[i], nop5, SITE_LEN);
}

bool sim_probe_trap(void *uc)
{
	ucontext_t *u = uc;
	uintptr_t site = (uintptr_t)u->uc_mcontext.gregs[REG_RIP] - 1;

	if (!sim_sites || !sim_site_known(site))
		return false;
	u->uc_mcontext.gregs[REG_RIP] = (greg_t)(site + SITE_LEN);
	__atomic_fetch_add(&sim_int3_steps, 1, __ATOMIC_RELAXED);
	return true;
}

const uintptr_t *hal_probe_sites(size_t *n)
{
	*n = sim_nsites;
	return sim_sites;
}

bool hal_probe_site_ok(uintptr_t site)
{
	uint8_t call[SITE_LEN];

	if (!sim_site_known(site))
		return false;
	sim_call_bytes(site, call);
	return memcmp((const void *)site, nop5, SITE_LEN) == 0 ||
	       memcmp((const void *)site, call, SITE_LEN) == 0;
}

int hal_probe_patch(uintptr_t site, bool on)
{
	uint8_t want[SITE_LEN];
	const uint8_t int3 = OP_INT3;
	int err;

	if (!sim_site_known(site))
		return -EINVAL;
	if (on)
		sim_call_bytes(site, want);
	else
		memcpy(want, nop5, SITE_LEN);
	if (memcmp((const void *)site, want, SITE_LEN) == 0)
		return 0;
	if ((err = sim_text_write(site, &int3, 1)) != 0)
		return err;
	sim_sync_cpus();
	if ((err = sim_text_write(site + 1, want + 1, SITE_LEN - 1)) != 0)
		return err;
	sim_sync_cpus();
	if ((err = sim_text_write(site, want, 1)) != 0)
		return err;
	sim_sync_cpus();
	return 0;
}

uintptr_t hal_probe_ret_addr(void)
{
	return (uintptr_t)x86_probe_ret;
}
