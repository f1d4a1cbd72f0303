/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shells serving on this machine, so that `net` shows the
 * counters of every one in use: the kernel's on src/net's UDP, ksim's on
 * its loopback socket.  A transport adds its core once it serves. */
#ifndef KPROF_SHELL_UDPSH_SERVING_H
#define KPROF_SHELL_UDPSH_SERVING_H

#include <stdbool.h>
#include <stdint.h>

#include "shell/udpsh/udpsh.h"

#define UDPSH_SERVING_MAX 4

/* Datagrams a transport lost before its shell saw them. */
struct udpsh_losses {
	uint64_t queue_full;	/* its queue to the shell's task was full */
	uint64_t overflowed;	/* the host socket's own queue was full */
};

struct udpsh_serving {
	struct udpsh *u;
	const char *name;	/* "udp port 5555", "ksim 127.0.0.1:40000" */
	/* The transport's losses below the shell; NULL where it has none of
	 * its own (src/net counts its drops in `net`'s drop list). */
	void (*losses)(struct udpsh_losses *l);
};

/* Add @u under @name (a string that lives as long as @u), or update it
 * when it is there already.  Returns 0, or -ENOSPC when
 * UDPSH_SERVING_MAX shells serve.  Task context, one caller at a time
 * (start-up). */
int udpsh_serving_add(struct udpsh *u, const char *name,
		      void (*losses)(struct udpsh_losses *l));

/* The @i-th shell added, into @s; false past the last.  Any context. */
bool udpsh_serving_get(unsigned i, struct udpsh_serving *s);

/* A consistent-enough copy of @u's counters (each read atomically).
 * Any context. */
void udpsh_stats_read(const struct udpsh *u, struct udpsh_stats *s);

#endif
