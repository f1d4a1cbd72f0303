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

#include "report.h"
#include "udpsh_client.h"

#define COLLECT_PROG "kprof-collect"
#define COLLECT_NAME_MAX 64
#define COLLECT_ADDR_MAX 256
/* Intervals turned into files at once (store.c). */
#define COLLECT_STORE_SLOTS 4
/* Labels a target's line may give (service_name=..., env=...), and the
 * ones every sample gets besides: target, service_name, build_id. */
#define COLLECT_LABELS_MAX 8
#define COLLECT_LABEL_KEY_MAX 32
#define COLLECT_LABEL_VALUE_MAX 128

/* The run's options, read once by main(). */
struct collect_opts {
	const char *targets, *out;
	int64_t interval_ns;
	unsigned hz, depth;		/* 0: the kernel's default */
	int64_t retain_ns;		/* 0: keep everything (or by bytes) */
	uint64_t max_bytes;		/* 0: no limit by size */
	uint64_t max_reply;		/* 0: what the session can produce */
	int timeout_ms;			/* one exchange's silence */
	bool quiet;
	const char *elf_dir;		/* --elf-dir: address views, resolved */
};

/* The labels every sample of a target's intervals gets: target=NAME,
 * service_name (NAME unless its line names one), the line's others. */
struct target_labels {
	const char *keys[COLLECT_LABELS_MAX + 2];
	const char *values[COLLECT_LABELS_MAX + 2];
	size_t n;
};

/* An image loaded for a build-id (images.c), kept for the run; its lock
 * is held while an interval is resolved against it (libdw's handles
 * are not shared between threads). */
struct coll_image {
	char build_id[BUILD_ID_HEX_MAX + 1];
	struct image *im;		/* NULL: not loaded (reason) */
	pthread_mutex_t lock;
	const char *reason;		/* "no-image", "bad-image" */
	char err[PATH_MAX + 512];
	int64_t retry_at_ns;
	bool said;
	struct coll_image *next;
};

/* What one interval's reply may hold (interval.c): its bytes, and the
 * reader's caps on its lines, frames and names. */
struct interval_caps {
	uint64_t reply_max;
	struct folded_limits lim;
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
	bool addr;			/* `# frames=addr`: an address view */
	struct coll_image *image;	/* what its addresses resolve against */
	const char *by_name;		/* why an address view was not had */
};

struct target {
	char name[COLLECT_NAME_MAX];
	char addr[COLLECT_ADDR_MAX];
	char keyfile[PATH_MAX];
	char dir[PATH_MAX];		/* for messages: files go through dirfd */
	/* Points into this struct (name, label_text): set again once the
	 * targets array stops moving (targets_read()). */
	struct target_labels labels;
	char label_text[COLLECT_LABELS_MAX][COLLECT_LABEL_KEY_MAX + COLLECT_LABEL_VALUE_MAX + 2];
	size_t nlabel_text;		/* label_text[] used: "KEY\0VALUE" */
	int dirfd;			/* DIR/NAME, opened without following links */
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
	/* The session's last interval stored ended here on the kernel's
	 * clock: a next one that starts here lost nothing, and the silence
	 * between them is no gap. */
	uint64_t last_kernel_end_ns;
	FILE *index;
	/* Index lines are the target's thread's, but for the line main()
	 * writes for a target whose last round never ended. */
	pthread_mutex_t index_lock;
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

/* interval.c */
/* The caps for a run at @hz and @depth (0: the kernel's defaults)
 * rotating every @interval_ns; @reply_max given (--max-reply) or 0 for
 * what such a session can produce. */
void interval_caps(struct interval_caps *c, unsigned hz, unsigned depth,
		   int64_t interval_ns, uint64_t reply_max);
/* The block of a `profile rotate` reply (@len bytes): seq, start_ns,
 * end_ns, samples and dropped from its own header lines only, each once
 * and at most INT64_MAX, and iv->text/len the block up to its end line.
 * False with the reason in @err. */
bool interval_header(const char *text, size_t len, struct interval *iv, char *err,
		     size_t errlen);
/* @iv's block read under @lim and written as pprof into @out, stamped
 * with @labels and the block's build-id (into iv->build_id); an address
 * view with iv->image resolved against it (Mapping, Locations, Lines,
 * weights).  False with the reason in @err, never an exit. */
bool interval_pprof(struct interval *iv, const struct target_labels *labels,
		    const struct folded_limits *lim, struct buf *out, char *err,
		    size_t errlen);

/* images.c */
/* The image of @build_id under --elf-dir, loaded at its first interval
 * and kept; NULL when there is none to use, the word why in *@reason
 * (said on stderr once per failed load, naming @who). */
struct coll_image *images_get(const char *build_id, const char *who, const char **reason);

/* target.c */
/* The target's work at round @round: start a session if it has none,
 * else rotate; on @final, rotate, stop and take the last interval. */
void target_round(struct target *t, uint64_t round, bool final);

/* store.c */
/* Once, before the threads start: make and open --out, refused when
 * others may write in it without the sticky bit.  Returns 0 or -1
 * (said on stderr). */
int store_init(void);
/* Make DIR/NAME, open it (never through a link) and its index
 * (appending), list its kept files.  Returns 0 or -1 (said on stderr). */
int store_open(struct target *t);
/* Write interval @iv's pprof and folded text, and its index line; then
 * delete the oldest files retention asks for.  Returns NULL, or the
 * reason the interval was not kept (a gap's: "refused", "not-written"),
 * said on stderr. */
const char *store_interval(struct target *t, struct interval *iv,
			   const struct interval_caps *caps);
/* Record what `profile stop` said of the whole session (its samples
 * and drops, which its intervals add up to). */
void store_stopped(struct target *t, const char *reply);
/* Record the gap from t->gap_from_ns to @to_ns in the index. */
void store_gap(struct target *t, int64_t to_ns);
/* From main(), for a target whose thread is still in the last round's
 * exchange: its open gap, or one from its last interval (reason
 * unfinished), to now. */
void store_unfinished(struct target *t);
/* "20261206T101500.123Z": @ns since the epoch, UTC, into @buf. */
void store_utc(char *buf, size_t size, int64_t ns, bool compact);

#endif
