/* SPDX-License-Identifier: BSD-2-Clause */
/* kprof-collect: keep many kernels sampled, one pprof per target per
 * interval (doc/collect.md, kprof-collect(1)).
 *
 *   kprof-collect --targets FILE --out DIR [--interval 10s] [--hz N]
 *                 [--depth N] [--retain DURATION|--max-bytes N]
 *                 [--max-reply N] [--timeout S] [--elf-dir DIR] [--quiet]
 *
 * One thread per target, woken at each round (every interval from the
 * start); at most COLLECT_SLOTS exchanges run at once.  SIGTERM or
 * SIGINT ends the run after one last round: every session rotated once
 * more and stopped, the interval the stop closed taken, exit 0.  The
 * last round has a deadline (final_deadline_ns()): a target still
 * exchanging then is named, and the exit status is 1. */
#define _GNU_SOURCE

#include "collect.h"
#include "keyfile.h"
#include "report.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define COLLECT_SLOTS 64
#define COLLECT_TARGETS_MAX 4096

/* Exit statuses: 0, EXIT_USAGE (2, report.h) and this. */
#define COLLECT_EXIT_FAIL 1

struct collect_opts opts = {
	.interval_ns = 10 * 1000000000ll,
	.timeout_ms = 3000,
};

static struct target *targets;
static size_t ntargets;
static sem_t slots;

/* Rounds: main() publishes the round and whether it is the last
 * (round_cond, which the targets' threads wait on); the threads report
 * each round done (done_cond, which main() alone waits on), under one
 * lock.  Two conditions, so that each thread's report wakes main() and
 * not the 31 others asleep until the next round. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t round_cond, done_cond;
static uint64_t round_now;
static bool round_final;
static size_t round_left;
static unsigned round_answered;
static uint64_t round_samples;

int64_t now_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void collect_slot_take(void)
{
	while (sem_wait(&slots) < 0 && errno == EINTR)
		;
}

void collect_slot_give(void)
{
	sem_post(&slots);
}

void collect_round_done(struct target *t, uint64_t round, bool answered,
			uint64_t samples)
{
	pthread_mutex_lock(&lock);
	t->round_done = round;
	if (round == round_now) {
		round_left--;
		round_answered += answered;
		round_samples += samples;
		if (!round_left)
			pthread_cond_signal(&done_cond);
	}
	pthread_mutex_unlock(&lock);
}

static void *target_thread(void *arg)
{
	struct target *t = arg;
	uint64_t done = 0;

	for (;;) {
		uint64_t r;
		bool final;

		pthread_mutex_lock(&lock);
		while (round_now == done)
			pthread_cond_wait(&round_cond, &lock);
		r = round_now;
		final = round_final;
		pthread_mutex_unlock(&lock);
		target_round(t, r, final);
		done = r;
		if (final)
			return NULL;
	}
}

/* The help and doc/kprof-collect.1 say "4 x --timeout". */
_Static_assert(UDPSH_CLIENT_DEADLINE_FACTOR == 4, "the help names the client's deadline factor");

static void usage(FILE *f)
{
	fputs("Usage: kprof-collect --targets FILE --out DIR [--interval 10s] [--hz N]\n"
	      "                     [--depth N] [--retain DURATION|--max-bytes N]\n"
	      "                     [--max-reply N] [--timeout S] [--elf-dir DIR] [--quiet]\n"
	      "Keep many kprof kernels sampled: start a session on each target, rotate\n"
	      "it every interval, and write DIR/NAME/<start UTC>.pb.gz (pprof) and\n"
	      ".folded beside it, with an index per target (kprof-collect(1),\n"
	      "doc/collect.md).  FILE: one target a line, NAME HOST[:PORT] KEYFILE,\n"
	      "then labels for its samples, KEY=VALUE (service_name=NAME by default).\n"
	      "SIGTERM or SIGINT rotates once more, stops every session, exits 0;\n"
	      "that last round ends within 4 x --timeout + 5 s (17 s by default).\n"
	      "\n"
	      "  --targets FILE    the targets, one a line\n"
	      "  --out DIR         where the intervals go (DIR/NAME/...)\n"
	      "  --interval D      time between rotations, 100ms-1h (default 10s)\n"
	      "  --hz N            samples per second per cpu, 10-10000 (the kernel's default)\n"
	      "  --depth N         frames per sample, 1-32 (the kernel's default, 8)\n"
	      "  --retain D        delete a target's intervals older than D (30m, 12h, 7d)\n"
	      "  --max-bytes N     or keep at most N bytes of them per target\n"
	      "  --max-reply N     refuse an interval's reply above N bytes, 4096-16777216\n"
	      "                    (default: what depth x hz x cpus x interval can produce)\n"
	      "  --timeout S       silence before an exchange gives up, 1-60 s (default 3);\n"
	      "                    an exchange ends within 4 x S in all\n"
	      "  --elf-dir DIR     take address views and resolve them against the images\n"
	      "                    in DIR/.build-id/xx/rest: Mapping, lines, inline frames;\n"
	      "                    an interval whose image is missing is written by name\n"
	      "  --quiet           no status line per interval\n"
	      "  --help, --version\n"
	      "\n"
	      "Exit status: 0 stopped by SIGTERM or SIGINT after the last round;\n"
	      "1 a target's address unreachable, its folder not made, or a target\n"
	      "still not done when the last round's deadline passed (named);\n"
	      "2 a usage error, a bad targets file or key file.\n"
	      "Report bugs in the kprof tracker.\n", f);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", COLLECT_PROG);
	fprintf(stderr, fmt, arg);
	fputs(" (kprof-collect --help)\n", stderr);
	return EXIT_USAGE;
}

/* "10s", "500ms", "2m", "1h", "3d"; a bare number is seconds. */
static bool parse_duration(const char *s, int64_t *ns)
{
	static const struct { const char *unit; int64_t ns; } units[] = {
		{ "ms", 1000000ll }, { "s", 1000000000ll }, { "", 1000000000ll },
		{ "m", 60000000000ll }, { "h", 3600000000000ll }, { "d", 86400000000000ll },
	};
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0) {
			if (v > (unsigned long long)INT64_MAX / (unsigned long long)units[i].ns)
				return false;
			*ns = (int64_t)v * units[i].ns;
			return true;
		}
	return false;
}

static bool parse_number(const char *s, unsigned long long lo, unsigned long long hi,
			 unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end && *v >= lo && *v <= hi;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool name_ok(const char *n)
{
	if (!*n || strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
		return false;
	return strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
	       strlen(n);
}

/* Label keys the samples have already (pprof.c, the stamp): a line
 * may not give them. */
static bool label_key_ours(const char *k, size_t n)
{
	static const char *const ours[] = { "target", "build_id", "task", "pid", "cpu",
					    "state" };

	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (strlen(ours[i]) == n && strncmp(k, ours[i], n) == 0)
			return true;
	return false;
}

/* KEY=VALUE: a key of 1-31 lower-case letters, digits and '_' (a
 * letter first), as Prometheus and Pyroscope name labels, and a value
 * of 1-127 printable characters.  False when it is not one. */
static bool label_ok(const char *w, size_t *keylen)
{
	const char *eq = strchr(w, '=');
	size_t n = eq ? (size_t)(eq - w) : 0, v = eq ? strlen(eq + 1) : 0;

	if (!n || n >= COLLECT_LABEL_KEY_MAX || !islower((unsigned char)w[0]) ||
	    strspn(w, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
		return false;
	if (!v || v >= COLLECT_LABEL_VALUE_MAX)
		return false;
	for (const char *p = eq + 1; *p; p++)
		if (!isgraph((unsigned char)*p))
			return false;
	*keylen = n;
	return true;
}

/* @t's labels pointed at its own name and label_text: target=NAME, the
 * line's KEY=VALUE pairs, service_name=NAME unless one of them names it.
 * Again for every target once all are read: the array they are in
 * moved as it grew, and a pointer set before into an earlier target was
 * left in freed memory (ASan, test_collect_hostile). */
static void target_labels_point(struct target *t)
{
	struct target_labels *l = &t->labels;
	bool service = false;

	l->keys[0] = "target";
	l->values[0] = t->name;
	l->n = 1;
	for (size_t i = 0; i < t->nlabel_text; i++) {
		char *text = t->label_text[i];

		l->keys[l->n] = text;
		l->values[l->n++] = text + strlen(text) + 1;
		service |= strcmp(text, "service_name") == 0;
	}
	if (!service) {
		l->keys[l->n] = "service_name";
		l->values[l->n++] = t->name;
	}
}

/* The target's labels: target=NAME, then its line's KEY=VALUE words
 * @w[0..@n), service_name=NAME unless one of them names it.  Returns 0
 * or EXIT_USAGE (said). */
static int target_labels(struct target *t, char **w, int n, size_t lineno)
{
	struct target_labels *l = &t->labels;

	l->keys[0] = "target";
	l->values[0] = t->name;
	l->n = 1;
	for (int i = 0; i < n; i++) {
		size_t k;
		char *text = t->label_text[i];

		if (!label_ok(w[i], &k) || label_key_ours(w[i], k)) {
			fprintf(stderr, "%s: %s:%zu: a label is KEY=VALUE, a key of 1-%d lower-case letters, digits or '_' (a letter first; not target, build_id, task, pid, cpu or state) and a value of 1-%d printable characters (got %s)\n",
				COLLECT_PROG, opts.targets, lineno, COLLECT_LABEL_KEY_MAX - 1,
				COLLECT_LABEL_VALUE_MAX - 1, w[i]);
			return EXIT_USAGE;
		}
		for (size_t j = 1; j < l->n; j++)
			if (strlen(l->keys[j]) == k && strncmp(l->keys[j], w[i], k) == 0) {
				fprintf(stderr, "%s: %s:%zu: label %.*s is given twice\n",
					COLLECT_PROG, opts.targets, lineno, (int)k, w[i]);
				return EXIT_USAGE;
			}
		strcpy(text, w[i]);
		text[k] = '\0';
		l->keys[l->n] = text;
		l->values[l->n++] = text + k + 1;
	}
	t->nlabel_text = (size_t)n;
	target_labels_point(t);
	return 0;
}

/* One target line: NAME HOST[:PORT] KEYFILE [KEY=VALUE...].  Returns 0
 * or EXIT_USAGE (said, with FILE:LINE). */
static int target_line(char *line, size_t lineno)
{
	char *save, *w[4 + COLLECT_LABELS_MAX];
	struct interval_caps caps;
	struct target *t;
	int n = 0, k;

	for (char *p = strtok_r(line, " \t\r\n", &save); p && n < 4 + COLLECT_LABELS_MAX;
	     p = strtok_r(NULL, " \t\r\n", &save))
		w[n++] = p;
	if (n == 0 || w[0][0] == '#')
		return 0;
	if (n < 3 || n > 3 + COLLECT_LABELS_MAX) {
		fprintf(stderr, "%s: %s:%zu: a target is NAME HOST[:PORT] KEYFILE, then at most %d labels KEY=VALUE (got %d word%s)\n",
			COLLECT_PROG, opts.targets, lineno, COLLECT_LABELS_MAX, n, n == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	if (!name_ok(w[0]) || strlen(w[0]) >= COLLECT_NAME_MAX) {
		fprintf(stderr, "%s: %s:%zu: a name is 1-%d letters, digits, '.', '_' or '-', not . or .. (got %s)\n",
			COLLECT_PROG, opts.targets, lineno, COLLECT_NAME_MAX - 1, w[0]);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < ntargets; i++)
		if (strcmp(targets[i].name, w[0]) == 0) {
			fprintf(stderr, "%s: %s:%zu: target %s is named twice\n", COLLECT_PROG,
				opts.targets, lineno, w[0]);
			return EXIT_USAGE;
		}
	if (strlen(w[1]) >= COLLECT_ADDR_MAX || strlen(w[2]) >= PATH_MAX) {
		fprintf(stderr, "%s: %s:%zu: address or key file too long\n", COLLECT_PROG,
			opts.targets, lineno);
		return EXIT_USAGE;
	}
	if (ntargets == COLLECT_TARGETS_MAX) {
		fprintf(stderr, "%s: %s:%zu: at most %d targets\n", COLLECT_PROG, opts.targets,
			lineno, COLLECT_TARGETS_MAX);
		return EXIT_USAGE;
	}
	targets = xrealloc(targets, (ntargets + 1) * sizeof(*targets));
	t = &targets[ntargets];
	memset(t, 0, sizeof(*t));
	strcpy(t->name, w[0]);
	strcpy(t->addr, w[1]);
	strcpy(t->keyfile, w[2]);
	if ((k = target_labels(t, w + 3, n - 3, lineno)))
		return k;
	k = keyfile_read(COLLECT_PROG, t->keyfile, t->c.key);
	if (k < 0) {
		if (k == -2)
			fprintf(stderr, "%s: %s:%zu: key file %s does not exist\n", COLLECT_PROG,
				opts.targets, lineno, t->keyfile);
		return EXIT_USAGE;
	}
	t->c.key_len = (size_t)k;
	k = udpsh_client_connect(&t->c, t->addr, "5555");
	if (k < 0) {
		fprintf(stderr, "%s: %s:%zu: %s\n", COLLECT_PROG, opts.targets, lineno, t->c.err);
		return k == -2 ? EXIT_USAGE : COLLECT_EXIT_FAIL;
	}
	/* A reply above the cap ends its exchange as its parts come
	 * (UC_TOO_LONG): never held whole, and joined, first. */
	interval_caps(&caps, opts.hz, opts.depth, opts.interval_ns, opts.max_reply);
	t->c.reply_max = (size_t)caps.reply_max;
	ntargets++;
	return 0;
}

static int targets_read(void)
{
	FILE *f = fopen(opts.targets, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	int rc = 0;

	if (!f) {
		fprintf(stderr, "%s: %s: cannot read: %s\n", COLLECT_PROG, opts.targets,
			strerror(errno));
		return EXIT_USAGE;
	}
	while (!rc && getline(&line, &cap, f) >= 0)
		rc = target_line(line, ++lineno);
	free(line);
	fclose(f);
	for (size_t i = 0; !rc && i < ntargets; i++)
		target_labels_point(&targets[i]);
	if (!rc && !ntargets) {
		fprintf(stderr, "%s: %s: no targets (one a line: NAME HOST[:PORT] KEYFILE)\n",
			COLLECT_PROG, opts.targets);
		return EXIT_USAGE;
	}
	return rc;
}

enum { OPT_TARGETS = 256, OPT_OUT, OPT_INTERVAL, OPT_HZ, OPT_DEPTH, OPT_RETAIN,
       OPT_MAX_BYTES, OPT_MAX_REPLY, OPT_TIMEOUT, OPT_QUIET, OPT_HELP, OPT_VERSION,
       OPT_ELF_DIR };

static int options(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "targets", required_argument, NULL, OPT_TARGETS },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "hz", required_argument, NULL, OPT_HZ },
		{ "depth", required_argument, NULL, OPT_DEPTH },
		{ "retain", required_argument, NULL, OPT_RETAIN },
		{ "max-bytes", required_argument, NULL, OPT_MAX_BYTES },
		{ "max-reply", required_argument, NULL, OPT_MAX_REPLY },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "elf-dir", required_argument, NULL, OPT_ELF_DIR },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
		switch (opt) {
		case OPT_TARGETS: opts.targets = optarg; break;
		case OPT_OUT: opts.out = optarg; break;
		case OPT_INTERVAL:
			if (!parse_duration(optarg, &opts.interval_ns) ||
			    opts.interval_ns < 100000000ll || opts.interval_ns > 3600000000000ll)
				return usage_error("--interval must be 100ms-1h, as 10s, 500ms or 2m (got %s)", optarg);
			break;
		case OPT_HZ:
			if (!parse_number(optarg, 10, 10000, &v))
				return usage_error("--hz must be 10-10000 (got %s)", optarg);
			opts.hz = (unsigned)v;
			break;
		case OPT_DEPTH:
			if (!parse_number(optarg, 1, 32, &v))
				return usage_error("--depth must be 1-32 (got %s)", optarg);
			opts.depth = (unsigned)v;
			break;
		case OPT_RETAIN:
			if (!parse_duration(optarg, &opts.retain_ns) || !opts.retain_ns)
				return usage_error("--retain must be a duration, as 30m, 12h or 7d (got %s)", optarg);
			break;
		case OPT_MAX_BYTES:
			if (!parse_number(optarg, 1, UINT64_MAX, &v))
				return usage_error("--max-bytes must be a number of bytes from 1 (got %s)", optarg);
			opts.max_bytes = v;
			break;
		case OPT_MAX_REPLY:
			if (!parse_number(optarg, 4096, 16u << 20, &v))
				return usage_error("--max-reply must be a number of bytes 4096-16777216 (got %s)", optarg);
			opts.max_reply = v;
			break;
		case OPT_TIMEOUT:
			if (!parse_number(optarg, 1, 60, &v))
				return usage_error("--timeout must be 1-60 s (got %s)", optarg);
			opts.timeout_ms = (int)v * 1000;
			break;
		case OPT_QUIET: opts.quiet = true; break;
		case OPT_ELF_DIR:
			if (!is_dir(optarg))
				return usage_error("--elf-dir must be a folder (DIR/.build-id/xx/rest; got %s)", optarg);
			opts.elf_dir = optarg;
			break;
		case OPT_HELP: usage(stdout); exit(0);
		case OPT_VERSION: printf("kprof-collect %s\n", KPROF_VERSION); exit(0);
		case ':': return usage_error("%s needs a value", argv[optind - 1]);
		default: return usage_error("unknown option %s", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument %s", argv[optind]);
	if (!opts.targets || !opts.out)
		return usage_error("%s", "--targets FILE and --out DIR are required");
	if (opts.retain_ns && opts.max_bytes)
		return usage_error("%s", "--retain and --max-bytes exclude each other");
	return 0;
}

/* The heap, set before any thread starts, so that a run of days holds
 * what its first rounds took (doc/collect.md, "Cost").  Each interval
 * takes and gives back the same few hundred KiB (zlib's state, the
 * profile's tables), COLLECT_STORE_SLOTS at a time at most.  With
 * glibc's defaults the 32 threads of a fleet spread over up to 8 arenas
 * a core, each growing to the most that the threads that happened to
 * share it ever held at once (RSS 3.9 -> 7.3 MB in 2 minutes), and each
 * arena's free top went back to the kernel after an interval, to be
 * faulted in again at the next (madvise, a TLB shootdown on every CPU
 * the threads run on, page faults: a fifth of the collector's CPU
 * time).  So: one arena for all, its free top kept up to
 * COLLECT_HEAP_KEEP, and a block of COLLECT_MMAP_FROM or more (a large
 * interval's reply) mapped on its own and unmapped when freed, so that
 * one large interval does not raise the heap for the rest of the run. */
#define COLLECT_HEAP_KEEP (8u << 20)
#define COLLECT_MMAP_FROM (1u << 20)

/* glibc's per-thread cache of freed small blocks (tcache), off: it
 * keeps up to 7 freed blocks of each small size per thread, reused by no
 * other thread and given back by no trim while the thread lives.  Each
 * target's thread parses its replies, in datagram-sized parts of every
 * length, and its intervals' profiles, thousands of small blocks each
 * round; its cache filled with every size it ever freed, those blocks
 * pinned the heap, and the collector's memory rose for the whole run,
 * ever more slowly (arena 3.8 -> 4.8 MB in 4 minutes while what was
 * live between rounds stayed at 2.55 MB; 3.5 -> 5.2 MB of RSS in 10
 * minutes).  Off, the same run's heap was flat from its first 30 s.  A
 * tunable is read when the process starts, so the collector sets it and
 * executes itself once more (the same pid), unless the caller gave
 * GLIBC_TUNABLES; where that fails it runs on with the cache. */
#define COLLECT_TUNABLE "glibc.malloc.tcache_count=0"

static void heap_tunables(char **argv)
{
	/* Tunables the caller gave are theirs: left as they are. */
	if (getenv("GLIBC_TUNABLES"))
		return;
	if (setenv("GLIBC_TUNABLES", COLLECT_TUNABLE, 1) == 0)
		execv("/proc/self/exe", argv);
}

static void heap_tune(void)
{
#ifdef M_ARENA_MAX
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_TRIM_THRESHOLD, COLLECT_HEAP_KEEP);
	mallopt(M_MMAP_THRESHOLD, COLLECT_MMAP_FROM);
#endif
}

/* Wait until @deadline (CLOCK_MONOTONIC ns) or a signal; true on a
 * signal. */
static bool wait_signal(const sigset_t *set, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_mono_ns();
		struct timespec ts;

		if (left <= 0)
			return false;
		ts.tv_sec = left / 1000000000;
		ts.tv_nsec = left % 1000000000;
		if (sigtimedwait(set, NULL, &ts) > 0)
			return true;
		if (errno != EAGAIN && errno != EINTR)
			return false;
	}
}

/* Publish round @r and wait until every target did it, or until
 * @deadline: a target still retrying does not hold the status line up,
 * and one that never ends (a kernel that drips its reply) does not hold
 * the last round.  True when every target did it. */
static bool round_run(uint64_t r, bool final, int64_t deadline, const sigset_t *set,
		      bool *signalled)
{
	struct timespec ts;
	bool all;

	pthread_mutex_lock(&lock);
	round_now = r;
	round_final = final;
	round_left = ntargets;
	round_answered = 0;
	round_samples = 0;
	pthread_cond_broadcast(&round_cond);
	while (round_left && now_mono_ns() < deadline) {
		int64_t until = final ? now_mono_ns() + 100000000 : deadline;

		if (until > deadline)
			until = deadline;
		ts.tv_sec = until / 1000000000;
		ts.tv_nsec = until % 1000000000;
		pthread_cond_timedwait(&done_cond, &lock, &ts);
		pthread_mutex_unlock(&lock);
		/* A signal while the round runs ends the run after it. */
		if (!final && !*signalled) {
			struct timespec zero = { 0, 0 };

			*signalled = sigtimedwait(set, NULL, &zero) > 0;
		}
		pthread_mutex_lock(&lock);
	}
	all = !round_left;
	pthread_mutex_unlock(&lock);
	return all;
}

static int64_t final_deadline_s(void)
{
	return UDPSH_CLIENT_DEADLINE_FACTOR * (int64_t)opts.timeout_ms / 1000 + 5;
}

/* The last round's deadline from now: each target rotates, stops and
 * takes the interval the stop closed, a few exchanges that each end
 * within the timeout when the kernel answers (resends included), and
 * the slowest of them all run at once. */
static int64_t final_deadline_ns(void)
{
	return now_mono_ns() + final_deadline_s() * 1000000000ll;
}

/* The targets that did not finish round @r, named on stderr. */
static void unfinished(uint64_t r)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < ntargets; i++)
		if (targets[i].round_done != r) {
			fprintf(stderr, "%s: %s: the last round did not finish within %lld s; its session may still run\n",
				COLLECT_PROG, targets[i].name, (long long)final_deadline_s());
			store_unfinished(&targets[i]);
		}
	pthread_mutex_unlock(&lock);
}

static void status_line(uint64_t r, bool final)
{
	unsigned long long gaps = 0;
	char when[40];

	if (opts.quiet)
		return;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < ntargets; i++)
		gaps += targets[i].gaps;
	store_utc(when, sizeof(when), now_real_ns(), false);
	printf("%s: %s round %" PRIu64 "%s: %u/%zu targets answered, %" PRIu64 " samples, %llu gaps\n",
	       COLLECT_PROG, when, r, final ? " (last)" : "", round_answered, ntargets,
	       round_samples, gaps);
	pthread_mutex_unlock(&lock);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	pthread_condattr_t ca;
	sigset_t set;
	bool signalled = false;
	int64_t t0;
	uint64_t r = 0;
	int rc;

	heap_tunables(argv);
	heap_tune();
	if ((rc = options(argc, argv)) || (rc = targets_read()))
		return rc;
	if (store_init() < 0)
		return COLLECT_EXIT_FAIL;
	for (size_t i = 0; i < ntargets; i++)
		if (store_open(&targets[i]) < 0)
			return COLLECT_EXIT_FAIL;
	/* Signals are taken by main() alone, between rounds. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&round_cond, &ca);
	pthread_cond_init(&done_cond, &ca);
	sem_init(&slots, 0, COLLECT_SLOTS);
	for (size_t i = 0; i < ntargets; i++)
		if (pthread_create(&targets[i].thread, NULL, target_thread, &targets[i])) {
			fprintf(stderr, "%s: cannot start a thread for %s\n", COLLECT_PROG,
				targets[i].name);
			return COLLECT_EXIT_FAIL;
		}
	t0 = now_mono_ns();
	/* Round 1 starts the sessions; each later round rotates. */
	while (!signalled) {
		int64_t next = t0 + (int64_t)(r + 1) * opts.interval_ns;

		round_run(++r, false, next, &set, &signalled);
		if (r > 1)
			status_line(r, false);
		if (!signalled)
			signalled = wait_signal(&set, next);
	}
	if (!round_run(++r, true, final_deadline_ns(), &set, &signalled)) {
		/* Its thread is still in an exchange: exit without it (the
		 * other targets' files and index lines are all written). */
		status_line(r, true);
		unfinished(r);
		fflush(NULL);
		_exit(COLLECT_EXIT_FAIL);
	}
	status_line(r, true);
	for (size_t i = 0; i < ntargets; i++) {
		pthread_join(targets[i].thread, NULL);
		fclose(targets[i].index);
		udpsh_client_close(&targets[i].c);
	}
	return 0;
}
