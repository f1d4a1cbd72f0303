/* SPDX-License-Identifier: BSD-2-Clause */
/* Each interval's files and the target's index (doc/collect.md,
 * "Files"): DIR/NAME/<start UTC>.pb.gz through kprof-report's pprof
 * writer, the folded text beside it as .folded, one index line per
 * interval, gap and deletion.  Retention deletes oldest first. */
#define _GNU_SOURCE

#include "collect.h"
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* At most this many intervals are turned into files at once: what
 * each takes from the heap (zlib's state, the profile's tables: a few
 * hundred KiB) is then had COLLECT_STORE_SLOTS times at most, however
 * many targets answer together, and the collector's memory stays
 * where its first rounds put it. */
static sem_t store_slots;
/* --out, open: every target's folder is made and opened in it. */
static int out_fd = -1;

/* --out where another user may plant a link or a folder in our stead
 * (writable by others, and no sticky bit to stop them renaming ours). */
static bool out_shared(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX);
}

int store_init(void)
{
	sem_init(&store_slots, 0, COLLECT_STORE_SLOTS);
	if (mkdir(opts.out, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "%s: %s: cannot make the folder: %s\n", COLLECT_PROG, opts.out,
			strerror(errno));
		return -1;
	}
	out_fd = open(opts.out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (out_fd < 0) {
		fprintf(stderr, "%s: %s: cannot open the folder: %s\n", COLLECT_PROG, opts.out,
			strerror(errno));
		return -1;
	}
	if (out_shared(out_fd)) {
		fprintf(stderr, "%s: %s: others may write in it and it has no sticky bit: another user could put links in place of the targets' folders (chmod o-w or +t)\n",
			COLLECT_PROG, opts.out);
		return -1;
	}
	return 0;
}

static void store_slot_take(void)
{
	while (sem_wait(&store_slots) < 0 && errno == EINTR)
		;
}

/* Retention needs the list of what is kept; without it, nothing is
 * listed, so memory does not grow with every interval of a long run. */
static bool retaining(void)
{
	return opts.retain_ns || opts.max_bytes;
}

void store_utc(char *buf, size_t size, int64_t ns, bool compact)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;

	gmtime_r(&s, &tm);
	if (compact)
		snprintf(buf, size, "%04d%02d%02dT%02d%02d%02d.%03dZ", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
			 (int)(ns % 1000000000 / 1000000));
	else
		snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%09dZ",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
			 tm.tm_min, tm.tm_sec, (int)(ns % 1000000000));
}

/* "20261206T101500.123Z" back to ns since the epoch; -1 if it is not. */
static int64_t utc_parse(const char *s)
{
	struct tm tm = { 0 };
	int ms;

	if (sscanf(s, "%4d%2d%2dT%2d%2d%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000000000 + (int64_t)ms * 1000000;
}

static uint64_t file_bytes(int dirfd, const char *base, const char *ext)
{
	char name[64];
	struct stat st;

	snprintf(name, sizeof(name), "%s%s", base, ext);
	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? (uint64_t)st.st_size : 0;
}

static void kept_add(struct target *t, const char *base, int64_t start_ns,
		     uint64_t bytes)
{
	struct kept_file *k;

	if (t->nkept == t->capkept) {
		t->capkept = t->capkept ? 2 * t->capkept : 64;
		t->kept = xrealloc(t->kept, t->capkept * sizeof(*t->kept));
	}
	k = &t->kept[t->nkept++];
	snprintf(k->base, sizeof(k->base), "%s", base);
	k->start_ns = start_ns;
	k->bytes = bytes;
	t->kept_bytes += k->bytes;
}

static int kept_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kept_file *)a)->base,
		      ((const struct kept_file *)b)->base);
}

/* The files an earlier run left, oldest first (their names sort by
 * time): retention counts them too. */
static void kept_scan(struct target *t)
{
	int fd = dup(t->dirfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char base[48];
		int64_t at;

		if (n < 7 || n - 6 >= sizeof(base) || strcmp(e->d_name + n - 6, ".pb.gz"))
			continue;
		memcpy(base, e->d_name, n - 6);
		base[n - 6] = '\0';
		if ((at = utc_parse(base)) >= 0)
			kept_add(t, base, at, file_bytes(t->dirfd, base, ".pb.gz") +
					      file_bytes(t->dirfd, base, ".folded"));
	}
	closedir(d);
	qsort(t->kept, t->nkept, sizeof(*t->kept), kept_cmp);
}

int store_open(struct target *t)
{
	int fd;

	snprintf(t->dir, sizeof(t->dir), "%s/%s", opts.out, t->name);
	pthread_mutex_init(&t->index_lock, NULL);
	if (mkdirat(out_fd, t->name, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "%s: %s: cannot make the folder: %s\n", COLLECT_PROG, t->dir,
			strerror(errno));
		return -1;
	}
	/* A link planted in its place is refused, not followed: every file
	 * of the target is then made relative to this folder. */
	t->dirfd = openat(out_fd, t->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->dirfd < 0) {
		fprintf(stderr, "%s: %s: cannot open the folder (a link is not followed): %s\n",
			COLLECT_PROG, t->dir, strerror(errno));
		return -1;
	}
	fd = openat(t->dirfd, "index", O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
		    0666);
	t->index = fd < 0 ? NULL : fdopen(fd, "a");
	if (!t->index) {
		fprintf(stderr, "%s: %s/index: cannot open (a link is not followed): %s\n",
			COLLECT_PROG, t->dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (retaining())
		kept_scan(t);
	return 0;
}

static void index_line(struct target *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void index_line(struct target *t, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&t->index_lock);
	va_start(ap, fmt);
	vfprintf(t->index, fmt, ap);
	va_end(ap);
	fflush(t->index);
	pthread_mutex_unlock(&t->index_lock);
}

void store_gap(struct target *t, int64_t to_ns)
{
	char from[40], to[40];

	/* A kernel's clock mapped onto the host's may put the next
	 * interval's start before the last one's end: a gap of nothing. */
	if (to_ns < t->gap_from_ns)
		to_ns = t->gap_from_ns;
	store_utc(from, sizeof(from), t->gap_from_ns, false);
	store_utc(to, sizeof(to), to_ns, false);
	index_line(t, "gap from=%s to=%s reason=%s\n", from, to, t->gap_reason);
	t->gaps++;
}

void store_unfinished(struct target *t)
{
	char from[40], to[40];
	int64_t now = now_real_ns();

	store_utc(from, sizeof(from), t->in_gap ? t->gap_from_ns : t->last_end_ns ? t->last_end_ns : now,
		  false);
	store_utc(to, sizeof(to), now, false);
	index_line(t, "gap from=%s to=%s reason=%s\n", from, to,
		   t->in_gap ? t->gap_reason : "unfinished");
}

void store_stopped(struct target *t, const char *reply)
{
	unsigned long long ms, samples, dropped, last = 0;
	const char *p = strstr(reply, "\nprofile: last interval ");

	if (sscanf(reply, "profile: stopped after %llu ms, %llu samples, %llu dropped",
		   &ms, &samples, &dropped) != 3)
		return;
	if (p)
		sscanf(p, "\nprofile: last interval %llu", &last);
	index_line(t, "stopped boot=%016" PRIx64 " samples=%llu dropped=%llu ms=%llu last_seq=%llu\n",
		   t->nonce, samples, dropped, ms, last);
}

/* Oldest first, while retention asks. */
static void store_retain(struct target *t)
{
	int64_t cut = opts.retain_ns ? now_real_ns() - opts.retain_ns : INT64_MIN;
	size_t n = 0;

	while (n < t->nkept && (t->kept[n].start_ns < cut ||
				(opts.max_bytes && t->kept_bytes > opts.max_bytes))) {
		struct kept_file *k = &t->kept[n++];
		char name[64];

		snprintf(name, sizeof(name), "%s.pb.gz", k->base);
		unlinkat(t->dirfd, name, 0);
		snprintf(name, sizeof(name), "%s.folded", k->base);
		unlinkat(t->dirfd, name, 0);
		t->kept_bytes -= k->bytes;
		index_line(t, "deleted file=%s.pb.gz reason=%s\n", k->base,
			   opts.retain_ns && k->start_ns < cut ? "retain" : "max-bytes");
	}
	memmove(t->kept, t->kept + n, (t->nkept - n) * sizeof(*t->kept));
	t->nkept -= n;
}

/* @b into @name in the target's folder (said on stderr when it
 * fails).  No fsync: a file is renamed into place whole, so a collector
 * killed mid-write leaves none, but a host that loses power may lose
 * the last intervals' files, as it loses the index lines written with
 * them (doc/collect.md, "Files"); syncing two files per target per
 * interval was a sixth of the collector's CPU time. */
static int store_file(struct target *t, const char *name, const struct buf *b)
{
	int rc = outfile_put_at(t->dirfd, name, b, false);

	if (rc)
		fprintf(stderr, "%s: %s: %s/%s: cannot %s: %s\n", COLLECT_PROG, t->name, t->dir,
			name, rc == -1 ? "create" : "write", strerror(errno));
	return rc ? -1 : 0;
}

/* The interval's pprof (interval.c: kprof-report's reader and writer
 * under the caps), stamped with the host's start time and the target's
 * labels and build_id, into @out; false when the block is refused
 * (said). */
static bool store_pprof(struct target *t, struct interval *iv,
			const struct interval_caps *caps, struct buf *out)
{
	char err[512];
	bool ok;

	store_slot_take();
	ok = interval_pprof(iv, &t->labels, &caps->lim, out, err, sizeof(err));
	sem_post(&store_slots);
	if (!ok)
		fprintf(stderr, "%s: %s: interval %" PRIu64 " refused: %s\n", COLLECT_PROG,
			t->name, iv->seq, err);
	return ok;
}

/* The interval's two files: their bytes, or -1 (said). */
static int64_t store_files(struct target *t, const struct buf *pb, const struct interval *iv,
			   const char *base)
{
	char name[64];
	struct buf folded = { (char *)iv->text, iv->len, iv->len };

	snprintf(name, sizeof(name), "%s.folded", base);
	if (store_file(t, name, &folded) < 0)
		return -1;
	snprintf(name, sizeof(name), "%s.pb.gz", base);
	if (store_file(t, name, pb) < 0) {
		snprintf(name, sizeof(name), "%s.folded", base);
		unlinkat(t->dirfd, name, 0);
		return -1;
	}
	return (int64_t)(pb->len + iv->len);
}

const char *store_interval(struct target *t, struct interval *iv,
			   const struct interval_caps *caps)
{
	char base[48], start[40], view[48] = "";
	struct buf pb = { 0 };
	int64_t bytes;

	if (!store_pprof(t, iv, caps, &pb)) {
		buf_free(&pb);
		return "refused";
	}
	store_utc(base, sizeof(base), iv->host_start_ns, true);
	store_utc(start, sizeof(start), iv->host_start_ns, false);
	bytes = store_files(t, &pb, iv, base);
	buf_free(&pb);
	if (bytes < 0)
		return "not-written";
	/* With --elf-dir: which view the file holds, and why not lines. */
	if (opts.elf_dir)
		snprintf(view, sizeof(view), " view=%s%s%s", iv->image ? "addr" : "name",
			 iv->by_name ? " reason=" : "", iv->by_name ? iv->by_name : "");
	index_line(t, "interval seq=%" PRIu64 " boot=%016" PRIx64 " start=%s time_nanos=%" PRId64
		   " duration_nanos=%" PRIu64 " err_ns=%" PRId64 " samples=%" PRIu64
		   " dropped=%" PRIu64 " kernel_start_ns=%" PRIu64 " kernel_end_ns=%" PRIu64
		   " file=%s.pb.gz%s\n",
		   iv->seq, t->nonce, start, iv->host_start_ns, iv->end_ns - iv->start_ns,
		   iv->err_ns, iv->samples, iv->dropped, iv->start_ns, iv->end_ns, base, view);
	if (retaining()) {
		kept_add(t, base, iv->host_start_ns, (uint64_t)bytes);
		store_retain(t);
	}
	return NULL;
}
