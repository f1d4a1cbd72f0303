/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shells serving on this machine (shell/udpsh/serving.h).
 *
 * What it guarantees: `net` may read the list and every shell's counters
 * from any context while a transport adds itself (release, then
 * acquire); at most UDPSH_SERVING_MAX shells.  Bookkeeping only: no
 * peer's bytes reach it. */
#include "shell/udpsh/serving.h"

#include "lib/errno.h"

static struct udpsh_serving serving[UDPSH_SERVING_MAX];
static unsigned nserving;

int udpsh_serving_add(struct udpsh *u, const char *name,
		      void (*losses)(struct udpsh_losses *l))
{
	unsigned n = __atomic_load_n(&nserving, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++) {
		if (serving[i].u == u) {
			__atomic_store_n(&serving[i].name, name, __ATOMIC_RELEASE);
			__atomic_store_n(&serving[i].losses, losses, __ATOMIC_RELEASE);
			return 0;
		}
	}
	if (n == UDPSH_SERVING_MAX)
		return -ENOSPC;
	serving[n] = (struct udpsh_serving){ u, name, losses };
	/* Readers see the entry whole once they see the count. */
	__atomic_store_n(&nserving, n + 1, __ATOMIC_RELEASE);
	return 0;
}

bool udpsh_serving_get(unsigned i, struct udpsh_serving *s)
{
	if (i >= __atomic_load_n(&nserving, __ATOMIC_ACQUIRE))
		return false;
	s->u = serving[i].u;
	s->name = __atomic_load_n(&serving[i].name, __ATOMIC_ACQUIRE);
	s->losses = __atomic_load_n(&serving[i].losses, __ATOMIC_ACQUIRE);
	return true;
}

void udpsh_stats_read(const struct udpsh *u, struct udpsh_stats *s)
{
	/* struct udpsh_stats is nothing but uint64_t counters. */
	const uint64_t *src = (const uint64_t *)&u->stats;
	uint64_t *dst = (uint64_t *)s;

	for (unsigned i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}
