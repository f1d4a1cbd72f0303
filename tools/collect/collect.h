/* SPDX-License-Identifier: BSD-2-Clause */
/* kprof-collect: many kernels' sessions, one interval after another
 * (doc/collect.md).  main.c reads the command line and the targets and
 * runs one thread per target and the status line; target.c is what a
 * target's thread says to its kernel (start, rotate, stop) and how it
 * recovers (reboots, silence); store.c writes each interval's files, the
 * target's index, and deletes the oldest under retention. */
#ifndef KPROF_TOOLS_COLLECT_H
#define KPROF_TOOLS_COLLECT_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "udpsh_client.h"

#define COLLECT_PROG "kprof-collect"
#define COLLECT_NAME_MAX 64
#define COLLECT_ADDR_MAX 256
/* Intervals turned into files at once (store.c). */
#define COLLECT_STORE_SLOTS 4

/* The run's options, read once by main(). */
struct collect_opts {
	const char *targets, *out;
	int64_t interval_ns;
	unsigned hz, depth;		/* 0: the kernel's default */
	int64_t retain_ns;		/* 0: keep everything (or by bytes) */
	uint64_t max_bytes;		/* 0: no limit by size */
	int timeout_ms;			/* one exchange's silence */
	bool quiet;
};

/* A file of one interval kept in a target's folder (retention). */
struct kept_file {
	char base[48];			/* <start UTC>, without .pb.gz */
	uint64_t bytes;			/* both files */
	int64_t start_ns;		/* host clock */
};

/* One interval as the kernel printed it and the host mapped it. */
struct interval {
	uint64_t seq, start_ns, end_ns, samples, dropped;
	int64_t host_start_ns, err_ns;	/* start on the host, ± err */
	char build_id[129];
	const char *text;		/* the folded block, NUL-terminated */
	size_t len;
};

struct target {
	char name[COLLECT_NAME_MAX];
	char addr[COLLECT_ADDR_MAX];
	char keyfile[PATH_MAX];
	char dir[PATH_MAX];
	struct udpsh_client c;
	pthread_t thread;
	/* The session it runs: the kernel's boot nonce, the next interval
	 * to ask for, and the clock offset (host - kernel, ns) with its
	 * error bound from the last fresh cut. */
	bool session;
	uint64_t nonce, seq;
	int64_t offset_ns, offset_err_ns;
	bool have_offset;
	bool refetch;			/* the last ask for seq got no reply */
	/* Not answering: when to try again, and the wait after that. */
	int64_t retry_at_ns, backoff_ns;
	/* A gap: from the host time the last interval ended (or the run
	 * began), open until an interval comes again. */
	bool in_gap;
	int64_t gap_from_ns, last_end_ns;
	char gap_reason[64];
	FILE *index;
	struct kept_file *kept;
	size_t nkept, capkept;
	uint64_t kept_bytes;
	/* For the status line, under the status lock. */
	uint64_t round_done, round_samples;
	bool round_answered;
	unsigned long long gaps;
};

extern struct collect_opts opts;

/* Host clocks in ns. */
int64_t now_real_ns(void);
int64_t now_mono_ns(void);

/* target.c */
/* The target's work at round @round: start a session if it has none,
 * else rotate; on @final, rotate, stop and take the last interval. */
void target_round(struct target *t, uint64_t round, bool final);

/* store.c */
/* Once, before the threads start. */
void store_init(void);
/* Make DIR/NAME, open its index (appending), list its kept files.
 * Returns 0 or -1 (said on stderr). */
int store_open(struct target *t);
/* Write interval @iv's pprof and folded text, and its index line; then
 * delete the oldest files retention asks for.  Returns 0 or -1 (said). */
int store_interval(struct target *t, const struct interval *iv);
/* Record what `profile stop` said of the whole session (its samples
 * and drops, which its intervals add up to). */
void store_stopped(struct target *t, const char *reply);
/* Record the gap from t->gap_from_ns to @to_ns in the index. */
void store_gap(struct target *t, int64_t to_ns);
/* "20261206T101500.123Z": @ns since the epoch, UTC, into @buf. */
void store_utc(char *buf, size_t size, int64_t ns, bool compact);

#endif
