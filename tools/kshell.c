/* SPDX-License-Identifier: BSD-2-Clause */
/* kshell: talk to a kernel's UDP shell (src/shell/udpsh/udpsh.h).
 *
 *   kshell [-t SECONDS] [-k KEYFILE] [-o FILE] [HOST[:PORT]] [COMMAND...]
 *   kshell --check-key FILE | --init-key | --help | --version
 *
 * With a command: send it as one datagram, print the reply without the
 * trailing prompt once the whole reply has come, exit.  Without one:
 * interactive, a line of standard input per command, the kernel's own
 * prompt shown.  HOST defaults to 127.0.0.1 and PORT to 5555 (what `make
 * run` forwards).  The first word that is not an option is taken as
 * HOST[:PORT] when it has a '.' or ':' in it or is "localhost", so
 * `kshell help` works.  Options may come anywhere before `--`; a word
 * starting with '-' that is not one of ours is a usage error, never sent.
 *
 * With a key (-k FILE, else $KSHELL_KEY_FILE, else $KSHELL_KEY, else the
 * default key file of tools/keyfile.h: 16-64 bytes in hex; keyless only
 * with --insecure, warned each run) it speaks the keyed protocol of src/shell/udpsh/wire.h:
 * each request carries a fresh random request id, and only reply
 * datagrams that verify under the key and carry that id are taken.  The
 * first answer is stale and hands out a ticket; the command goes again
 * with it under a new id.  While datagrams are missing the same request
 * is sent again (the kernel sends the reply it kept, never runs it
 * twice).  Nothing is printed before every datagram up to the one flagged
 * last has come; the last one's status says whether the command failed.
 * The whole exchange ends after UDPSH_CLIENT_DEADLINE_FACTOR times the
 * timeout, however often datagrams come (udpsh_client.h).
 *
 * With -o FILE (and a command, such as `profile show folded`) the reply
 * must hold a folded profile, `# kprof folded begin` to `# kprof folded
 * end lines=N samples=M`: its stack lines are counted and their samples
 * summed, and only when both match the end line is the block written to
 * FILE, with `# time_nanos=` after its begin line: the host's clock when
 * the reply came (ns since the epoch), as kprof-collect stamps its
 * intervals, so that pprof shows when it was taken.  A reply that holds
 * no folded block is printed on stderr.  A block without weights (`#
 * weight=ns`) is saved with one line saying its times are nominal.
 *
 * Exit status (kshell(1) has the same table): 0 the reply came whole
 * (keyed: and the command succeeded); 1 no answer within SECONDS
 * (default 5, or $KSHELL_TIMEOUT), the port refused (ICMP port
 * unreachable: nothing listens there), the reply incomplete or gone,
 * -o's profile missing or incomplete, or a local error; 2 a usage error
 * (nothing sent); 3 keyed, the command failed on the kernel or the
 * kernel was busy (its output, if any, printed).  A line longer than
 * 4095 bytes or holding a NUL is refused with a one-line error and not
 * sent. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "config.h"
#include "lib/bytes.h"
#include "lib/sha256.h"
#include "lib/trace_frame.h"
#include "shell/udpsh/wire.h"
#include "folded_read.h"
#include "keyfile.h"
#include "udpsh_client.h"

#define KSHELL_DEFAULT_HOST "127.0.0.1"
#define KSHELL_DEFAULT_PORT "5555"
#define KSHELL_DEFAULT_TIMEOUT_S 5
#define KSHELL_LINE_MAX 4095
#define KSHELL_DGRAM_MAX 65536
#define PROMPT "> "
#define PROMPT_LEN 2
/* The most reply bytes kept before anything is printed. */
#define KSHELL_REPLY_MAX (16u << 20)

/* What main() returns.  Inside, the ways an exchange fails stay apart
 * (what is said differs). */
enum { EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_REMOTE = 3 };
enum { KS_TIMEOUT = UC_TIMEOUT, KS_INCOMPLETE = UC_INCOMPLETE, KS_BUSY = UC_BUSY,
       KS_REFUSED = UC_REFUSED, KS_ERROR = UC_ERROR, KS_FAILED = UC_FAILED };

static const char *progname = "kshell";

/* The session: keyless, or the key (in the client, which speaks it). */
static struct {
	bool keyed;
	struct udpsh_client c;
} ks;

static void usage(void)
{
	printf("Usage: %s [OPTION]... [HOST[:PORT]] [COMMAND...]\n"
	       "Run COMMAND on a kprof kernel's UDP shell and print the reply; without\n"
	       "a COMMAND, read commands from standard input, one per line.\n"
	       "HOST defaults to " KSHELL_DEFAULT_HOST " and PORT to " KSHELL_DEFAULT_PORT
	       " (what make run and\nkprof-qemu forward).  `kshell help' lists the shell's commands.\n"
	       "\n"
	       "  -k, --key=FILE      the UDP shell's key, 16-64 bytes in hex (default:\n"
	       "                      $KSHELL_KEY_FILE, else $KSHELL_KEY, else the key file\n"
	       "                      ksim, kprof-qemu and make run use,\n"
	       "                      $XDG_CONFIG_HOME/kprof/udpsh.key, XDG_CONFIG_HOME\n"
	       "                      defaulting to ~/.config); a file must be a regular\n"
	       "                      file of mode 600 holding a key that is not one byte\n"
	       "                      repeated, owned by you or root, in a folder others\n"
	       "                      may not write in\n"
	       "      --insecure      no key: the plain protocol (a warning each run)\n"
	       "      --check-key=FILE  check FILE as -k would, print nothing, exit 0 or 2\n"
	       "      --init-key      make the default key file unless it exists (mode\n"
	       "                      600), check it and print its path\n"
	       "  -o, --output=FILE   save the folded profile in the reply to COMMAND (such\n"
	       "                      as `profile show folded') to FILE, only when its\n"
	       "                      lines and samples match its end line\n"
	       "  -t, --timeout=SECONDS  wait at most SECONDS, 1-3600, for each new reply\n"
	       "                      datagram (default $KSHELL_TIMEOUT, else %d); with a\n"
	       "                      key, 4 times SECONDS for the whole exchange\n"
	       "  -h, --help          print this help and exit\n"
	       "      --version       print the version and exit\n"
	       "\n"
	       "Options may follow HOST and COMMAND; `--' ends them.\n"
	       "\n"
	       "Exit status: 0 the whole reply came (with a key: and the command\n"
	       "succeeded); 1 no reply, the port refused, the reply incomplete, or -o's\n"
	       "profile missing or incomplete (nothing saved); 2 a usage error (nothing\n"
	       "sent); 3 with a key, the command failed on the kernel or it was busy.\n"
	       "\n"
	       "Report bugs to: %s\n"
	       "kprof home page: <%s>\n",
	       progname, KSHELL_DEFAULT_TIMEOUT_S, PACKAGE_BUGREPORT, PACKAGE_URL);
}

static void version(void)
{
	printf("kshell (%s) %s\n"
	       "Copyright (c) 2026 the kprof authors.\n"
	       "License BSD-2-Clause <https://spdx.org/licenses/BSD-2-Clause.html>.\n"
	       "This is free software: you are free to change and redistribute it.\n"
	       "There is NO WARRANTY, to the extent permitted by law.\n",
	       PACKAGE_NAME, PACKAGE_VERSION);
}

/* One line on stderr; main() then exits 2. */
static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s%s; try '%s --help'\n", progname, what, arg ? arg : "",
		progname);
	return EXIT_USAGE;
}

static bool looks_like_host(const char *s)
{
	return strchr(s, '.') || strchr(s, ':') || strcmp(s, "localhost") == 0;
}

/* A timeout in seconds, 1-3600, from @s (all digits); -1 if not. */
static int parse_timeout(const char *s)
{
	char *end;
	long v;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > 3600)
		return -1;
	return (int)v;
}

/* A UDP socket connected to HOST[:PORT]; exits with a message on error. */
static int kshell_connect(const char *target)
{
	int r = udpsh_client_connect(&ks.c, target, KSHELL_DEFAULT_PORT);

	if (r < 0) {
		fprintf(stderr, "%s: %s\n", progname, ks.c.err);
		exit(r == -1 ? EXIT_FAIL : EXIT_USAGE);
	}
	return ks.c.fd;
}

/* --- the key ---------------------------------------------------------- */

/* The kernel's own parser (src/shell/udpsh/wire.c); never printed. */
static bool key_parse(const char *t, size_t len)
{
	int n = udpsh_key_parse(t, len, ks.c.key);

	if (n > 0 && (udpsh_key_weak(ks.c.key, (size_t)n) ||
		      keyfile_key_published(ks.c.key, (size_t)n)))
		n = -1;
	ks.c.key_len = n > 0 ? (size_t)n : 0;
	ks.keyed = n > 0;
	return ks.keyed;
}

static void key_from_file(const char *file)
{
	int n = keyfile_read(progname, file, ks.c.key);

	if (n < 0)
		exit(EXIT_USAGE);
	ks.c.key_len = (size_t)n;
	ks.keyed = true;
}

/* The key from @file, else $KSHELL_KEY_FILE, else $KSHELL_KEY, else the
 * default key file (tools/keyfile.h); keyless only when @insecure says
 * so.  A bad or missing key exits 2, naming where it came from only. */
static void key_load(const char *file, bool insecure)
{
	const char *env = getenv("KSHELL_KEY");
	char path[PATH_MAX];

	if (insecure) {
		fprintf(stderr, "%s: warning: no key (--insecure): the plain protocol, which any host that can forge an allowed address can use\n",
			progname);
		return;
	}
	if (!file)
		file = getenv("KSHELL_KEY_FILE");
	if (file && *file) {
		key_from_file(file);
		return;
	}
	if (env && *env) {
		if (!key_parse(env, strlen(env))) {
			fprintf(stderr, "%s: KSHELL_KEY does not hold a key of %d-%d bytes in hex (one byte repeated and doc/shell.md's test key are refused too)\n",
				progname, UDPSH_KEY_MIN, UDPSH_KEY_MAX);
			exit(EXIT_USAGE);
		}
		return;
	}
	if (keyfile_default_path(progname, path, sizeof(path)) != 0)
		exit(EXIT_USAGE);
	if (access(path, F_OK) != 0) {
		fprintf(stderr, "%s: no key: %s does not exist (ksim --udp, kprof-qemu and make run make it); -k FILE names another, --insecure speaks the plain protocol\n",
			progname, path);
		exit(EXIT_USAGE);
	}
	key_from_file(path);
}

/* kshell --check-key FILE and --init-key: the key file rules for
 * kprof-qemu and make run, from this one place. */
static int key_tool(const char *check)
{
	uint8_t key[UDPSH_KEY_MAX];
	char path[PATH_MAX];
	int made, n;

	if (check) {
		n = keyfile_read(progname, check, key);
		memset(key, 0, sizeof(key));
		return n < 0 ? EXIT_USAGE : 0;
	}
	n = keyfile_init_default(progname, path, sizeof(path), key, &made);
	memset(key, 0, sizeof(key));
	if (n < 0)
		return EXIT_USAGE;
	if (made)
		fprintf(stderr, "%s: made the UDP shell's key %s (mode 600)\n", progname, path);
	printf("%s\n", path);
	return 0;
}

/* --- one exchange ----------------------------------------------------- */

static int send_plain(int fd, const char *cmd, size_t len)
{
	int rc;

	(void)fd;
	rc = udpsh_client_send(&ks.c, cmd, len);
	if (rc == KS_ERROR)
		fprintf(stderr, "%s: %s\n", progname, ks.c.err);
	return rc;
}

static ssize_t recv_one(int fd, char *buf, size_t size, int timeout_ms)
{
	ssize_t n;

	(void)fd;
	n = udpsh_client_recv(&ks.c, buf, size, timeout_ms);
	if (n == -2)
		fprintf(stderr, "%s: %s\n", progname, ks.c.err);
	return n;
}

/* Where the reply goes: standard output, or with -o a buffer. */
static FILE *reply_out;

/* The length of the UTF-8 character at @s (@n bytes left) that a
 * terminal shows as text: 1 for a printable ASCII byte, newline or tab,
 * 2-4 for a well-formed sequence that is not a C1 control (U+0080 to
 * U+009F); 0 for a byte to escape. */
static size_t text_char_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 :
		     s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	if (s[0] == '\n' || s[0] == '\t' || (s[0] >= 0x20 && s[0] < 0x7f))
		return 1;
	if (!len || len > n || (s[0] == 0xc2 && s[1] < 0xa0))
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* @n bytes of the kernel's output to @f.  To a terminal, every control
 * byte but newline and tab (ESC and so every CSI and OSC sequence, C1
 * controls, bytes that are no UTF-8) is shown as \xNN: a kernel, or
 * whoever holds its key, must not retitle, recolour or rewrite the
 * operator's terminal.  Elsewhere (a pipe, a file) the bytes as they came. */
static void write_output(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	if (!isatty(fileno(f))) {
		fwrite(s, 1, n, f);
		return;
	}
	while (i < n) {
		size_t len = text_char_len(u + i, n - i);

		if (len) {
			fwrite(u + i, 1, len, f);
			i += len;
		} else {
			fprintf(f, "\\x%02x", u[i++]);
		}
	}
}

/* The whole reply, once it has come: without its prompt unless shown. */
static void print_reply(const char *s, size_t n, bool show_prompt)
{
	FILE *f = reply_out ? reply_out : stdout;

	if (!show_prompt && n >= PROMPT_LEN && memcmp(s + n - PROMPT_LEN, PROMPT, PROMPT_LEN) == 0)
		n -= PROMPT_LEN;
	write_output(f, s, n);
	fflush(f);
}

/* --- -o: a folded profile, checked, then saved ------------------------ */

/* The host's clock now, ns since the epoch. */
static uint64_t host_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What the saved block holds, on stderr: its lines and samples, and its
 * time where it has weights; else that its times are nominal. */
static void folded_saved(const char *path, const struct folded_reader *r)
{
	/* To the microsecond, rounded, as kprof-report says it. */
	uint64_t us = r->total_weight / 1000 + (r->total_weight % 1000 >= 500);

	fprintf(stderr, "%s: saved %s: %llu lines, %llu samples", progname, path,
		(unsigned long long)r->lines, (unsigned long long)r->total);
	if (r->meta.weight_ns)
		fprintf(stderr, ", %llu.%03llu ms\n", (unsigned long long)(us / 1000),
			(unsigned long long)(us % 1000));
	else if (!r->meta.unit_us)
		fprintf(stderr, "\n%s: %s has no weights (# weight=ns): times are nominal, count x period; `profile show folded weight` gives the ones the kernel counted\n",
			progname, path);
	else
		fputs("\n", stderr);
}

/* The block from @begin to @end to @path, stamped with @now after its
 * begin line (unless it has a stamp).  Returns 0 or EXIT_FAIL. */
static int folded_write(const char *begin, const char *end, const char *path,
			const struct folded_reader *r, uint64_t now)
{
	const char *nl = memchr(begin, '\n', (size_t)(end - begin));
	size_t head = nl ? (size_t)(nl + 1 - begin) : 0;
	size_t n = (size_t)(end - begin) - head;
	FILE *f = fopen(path, "w");
	bool ok = f && fwrite(begin, 1, head, f) == head;

	if (ok && !(r->meta.have & META_TIME))
		ok = fprintf(f, "# " FOLDED_KEY_TIME_NANOS "=%llu\n",
			     (unsigned long long)now) > 0;
	ok = ok && fwrite(begin + head, 1, n, f) == n;
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok) {
		fprintf(stderr, "%s: %s: %s\n", progname, path, strerror(errno));
		return EXIT_FAIL;
	}
	folded_saved(path, r);
	return 0;
}

/* Find the block in @text, read it as the kernel writes it (its lines
 * counted and their samples summed against its end line: a lost datagram
 * shows there or as a malformed line), and write it to @path.  Returns 0
 * or EXIT_FAIL. */
static int folded_save(const char *text, size_t size, const char *path,
		       uint64_t now)
{
	struct folded_reader r;
	const char *begin, *end;
	char err[512];
	int found, rc = EXIT_FAIL;

	folded_reader_init(&r, "reply", FOLDED_READ_KERNEL, err, sizeof(err));
	found = folded_block_find(&r, text, size, &begin, &end);
	if (found > 0) {
		rc = folded_write(begin, end, path, &r, now);
	} else if (found < 0) {
		fprintf(stderr, "%s: folded profile incomplete: %s; not saved\n",
			progname, err);
	} else {
		fprintf(stderr, "%s: the reply holds no folded profile; not saved:\n",
			progname);
		write_output(stderr, text, size);
	}
	folded_reader_free(&r);
	return rc;
}

/* A trace block (`trace show raw`, lib/trace_frame.h) in @text: its
 * begin line at a line's start, and its end line, whose lines= must be
 * the count of lines between.  1 found whole, 0 none, -1 cut (@why). */
static int trace_block_find(const char *text, size_t size, const char **begin,
			    const char **end, const char **why)
{
	const char *stop = text + size, *b = NULL, *p, *e;
	size_t nb = strlen(TRACE_BLOCK_BEGIN "\n"), ne = strlen(TRACE_BLOCK_END " lines=");
	unsigned long long lines = 0, want;

	for (p = text; p && (size_t)(stop - p) >= nb; p = e ? e + 1 : NULL) {
		e = memchr(p, '\n', (size_t)(stop - p));
		if (memcmp(p, TRACE_BLOCK_BEGIN "\n", nb) == 0) {
			b = p;
			break;
		}
	}
	if (!b)
		return 0;
	for (p = b + nb; p < stop; p = e + 1) {
		e = memchr(p, '\n', (size_t)(stop - p));
		if (!e)
			break;
		if ((size_t)(e - p) > ne && memcmp(p, TRACE_BLOCK_END " lines=", ne) == 0) {
			if (sscanf(p + ne, "%llu", &want) != 1 || want != lines) {
				*why = "its end line's lines= is not the lines it holds";
				return -1;
			}
			*begin = b;
			*end = e + 1;
			return 1;
		}
		lines++;
	}
	*why = "no end line";
	return -1;
}

/* -o of a trace: the block, whole, to @path.  Returns 0 or EXIT_FAIL. */
static int trace_save(const char *text, size_t size, const char *path)
{
	const char *begin, *end, *why = "";
	int found = trace_block_find(text, size, &begin, &end, &why);
	FILE *f;

	if (found <= 0) {
		fprintf(stderr, "%s: trace incomplete: %s; not saved\n", progname, why);
		return EXIT_FAIL;
	}
	f = fopen(path, "w");
	if (!f || fwrite(begin, 1, (size_t)(end - begin), f) != (size_t)(end - begin) ||
	    fclose(f) != 0) {
		fprintf(stderr, "%s: %s: %s\n", progname, path, strerror(errno));
		return EXIT_FAIL;
	}
	fprintf(stderr, "%s: saved %s: a trace\n", progname, path);
	return 0;
}

#define COOKIE_HINT ": start the request with it\n" PROMPT
#define COOKIE_HEX 16
/* A shell takes a cookie in the 64 s step that made it and the next
 * (src/shell/udpsh/udpsh.h): one younger than this is still good. */
#define COOKIE_FRESH_MS 60000
/* What asks a keyless shell for a cookie: a command that changes nothing
 * and whose reply is always longer than 3 times the request. */
#define COOKIE_PROBE "help"

/* Keyless: the last cookie the shell gave this socket's address ("":
 * it cuts nothing), and when it was asked for. */
static struct {
	bool asked;
	char hex[COOKIE_HEX + 1];
	long long at_ms;
} cookie;

/* Milliseconds on a clock that only goes forward. */
static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A reply a keyless shell cut at 3 times the request ends with "cookie
 * @HEX: start the request with it" and the prompt: true, with HEX in
 * @hex (COOKIE_HEX + 1 bytes), when @all is one. */
static bool cookie_find(const char *all, size_t total, char *hex)
{
	size_t tail = strlen(COOKIE_HINT), hint = 8 + COOKIE_HEX + tail;

	if (total < hint || memcmp(all + total - tail, COOKIE_HINT, tail) != 0 ||
	    memcmp(all + total - hint, "cookie @", 8) != 0)
		return false;
	memcpy(hex, all + total - hint + 8, COOKIE_HEX);
	hex[COOKIE_HEX] = '\0';
	return true;
}

/* Send @cmd and keep the reply datagrams until one ends with the prompt:
 * 0 with the reply in *@all (malloc'd, *@total bytes), else a KS_ code
 * (said, but for KS_TIMEOUT and KS_REFUSED: kshell_status says those).
 * Nothing is sent again: without a key a request cannot be told from its
 * retransmission, which would run twice. */
static int plain_collect(int fd, const char *cmd, size_t len, int timeout_ms, char **all,
			 size_t *total)
{
	static char buf[KSHELL_DGRAM_MAX];
	bool first = true;
	int rc = send_plain(fd, cmd, len);

	*all = NULL;
	*total = 0;
	while (rc == 0) {
		ssize_t n = recv_one(fd, buf, sizeof(buf), timeout_ms);
		char *grown;

		if (n < 0) {
			rc = n == -1 ? (first ? KS_TIMEOUT : KS_INCOMPLETE) :
			     n == -3 ? KS_REFUSED : KS_ERROR;
			if (rc == KS_INCOMPLETE)
				fprintf(stderr, "%s: reply incomplete: no datagram ending with the prompt came within %d s; nothing printed\n",
					progname, timeout_ms / 1000);
			break;
		}
		/* A keyless shell marks each reply datagram (shell/udpsh/udpsh.h). */
		if (n > 0 && (unsigned char)buf[0] == UDPSH_REPLY_MARK) {
			memmove(buf, buf + 1, (size_t)n - 1);
			n--;
		}
		/* "busy", cut to no more than the request. */
		if (first && n > 0 && n <= 4 && memcmp(buf, "busy", (size_t)n) == 0) {
			fprintf(stderr, "%s: the kernel is busy; command not run\n", progname);
			rc = KS_BUSY;
			break;
		}
		first = false;
		if (*total + (size_t)n > KSHELL_REPLY_MAX ||
		    !(grown = realloc(*all, *total + (size_t)n + 1))) {
			fprintf(stderr, "%s: reply longer than %u bytes; nothing printed\n",
				progname, KSHELL_REPLY_MAX);
			rc = KS_ERROR;
			break;
		}
		*all = grown;
		memcpy(*all + *total, buf, (size_t)n);
		*total += (size_t)n;
		if (n >= PROMPT_LEN && memcmp(buf + n - PROMPT_LEN, PROMPT, PROMPT_LEN) == 0)
			return 0;
	}
	free(*all);
	*all = NULL;
	return rc;
}

/* A keyless shell bounds its answer to 3 times the request until the
 * address shows it receives (src/shell/udpsh/udpsh.h), and says so with a
 * cookie at the end of the cut reply.  Asking a command again with the
 * cookie would run it twice (a profile window, say), so the cookie is
 * fetched first, with COOKIE_PROBE, whose reply is dropped, unless the
 * one held is fresh.  0, or the probe's KS_TIMEOUT or KS_REFUSED (the
 * command would fare no better); a shell that cuts nothing gives no
 * cookie, and the command then goes bare. */
static int cookie_fetch(int fd, int timeout_ms)
{
	long long now = mono_ms();
	char *all;
	size_t total;
	int rc;

	if (cookie.asked && now - cookie.at_ms < COOKIE_FRESH_MS)
		return 0;
	cookie.hex[0] = '\0';
	rc = plain_collect(fd, COOKIE_PROBE, strlen(COOKIE_PROBE), timeout_ms, &all, &total);
	if (rc == 0) {
		cookie.asked = true;
		cookie.at_ms = now;
		if (!cookie_find(all, total, cookie.hex))
			cookie.hex[0] = '\0';
	}
	free(all);
	return rc == KS_TIMEOUT || rc == KS_REFUSED ? rc : 0;
}

/* @cmd with the cookie in front ("@HEX CMD", or "@HEX" alone for the
 * empty line), or as it is without one: malloc'd, its length in *@n. */
static char *cookie_request(const char *cmd, size_t len, size_t *n)
{
	size_t pre = cookie.hex[0] ? 1 + COOKIE_HEX + (len ? 1 : 0) : 0;
	char *req = malloc(pre + len + 1);

	if (!req)
		return NULL;
	if (pre)
		snprintf(req, pre + 1, "@%s ", cookie.hex);
	memcpy(req + pre, cmd, len);
	*n = pre + len;
	return req;
}

/* One keyless exchange: the cookie (cookie_fetch), then @cmd once; the
 * reply printed.  A reply still cut (the shell took no cookie) is not
 * asked for again: that would run the command a second time. */
static int exchange_plain(int fd, const char *cmd, size_t len, int timeout_ms,
			  bool show_prompt)
{
	char hex[COOKIE_HEX + 1], *req, *all;
	size_t n, total;
	int rc = cookie_fetch(fd, timeout_ms);

	if (rc)
		return rc;
	if (!(req = cookie_request(cmd, len, &n))) {
		fprintf(stderr, "%s: out of memory\n", progname);
		return KS_ERROR;
	}
	rc = plain_collect(fd, req, n, timeout_ms, &all, &total);
	free(req);
	if (rc == 0 && cookie_find(all, total, hex)) {
		fprintf(stderr, "%s: reply cut at 3 times the request (the shell took no cookie from this address); not asked again, which would run the command twice; nothing printed\n",
			progname);
		cookie.asked = false;
		rc = KS_INCOMPLETE;
	} else if (rc == 0) {
		print_reply(all, total, show_prompt);
	}
	free(all);
	return rc;
}

/* One keyed exchange through the client; what it could not do said on
 * stderr, the reply printed. */
static int exchange_auth(int fd, const char *cmd, size_t len, int timeout_ms,
			 bool show_prompt)
{
	unsigned forged = ks.c.forged;
	char *reply;
	size_t n;
	int rc;

	(void)fd;
	rc = udpsh_client_exchange(&ks.c, cmd, len, timeout_ms, &reply, &n);
	if (!forged && ks.c.forged)
		fprintf(stderr, "%s: ignored a datagram that failed authentication\n",
			progname);
	if (ks.c.err[0])
		fprintf(stderr, "%s: %s\n", progname, ks.c.err);
	if (rc == 0 || rc == KS_FAILED)
		print_reply(reply, n, show_prompt);
	free(reply);
	return rc;
}

static int kshell_exchange(int fd, const char *cmd, size_t len, int timeout_ms,
			   bool show_prompt)
{
	return ks.keyed ? exchange_auth(fd, cmd, len, timeout_ms, show_prompt)
			: exchange_plain(fd, cmd, len, timeout_ms, show_prompt);
}

/* Say why an exchange that ended with @rc failed, where the exchange
 * itself has not; the exit status for it. */
static int kshell_status(int rc, const char *target, int timeout_ms)
{
	if (rc == KS_TIMEOUT && ks.keyed)
		fprintf(stderr, "%s: no reply from %s within %d s: a wrong key (the shell drops what fails its MAC, unanswered), no shell there, or the path drops datagrams\n",
			progname, target, timeout_ms / 1000);
	else if (rc == KS_TIMEOUT)
		fprintf(stderr, "%s: no reply from %s within %d s\n", progname, target,
			timeout_ms / 1000);
	else if (rc == KS_REFUSED)
		fprintf(stderr, "%s: %s refused the datagram: nothing listens on that port\n",
			progname, target);
	if (rc == KS_FAILED || rc == KS_BUSY)
		return EXIT_REMOTE;
	return rc ? EXIT_FAIL : 0;
}

/* A line to send: no NUL, at most KSHELL_LINE_MAX bytes.  Says why not. */
static bool line_ok(const char *line, size_t len)
{
	if (memchr(line, '\0', len)) {
		fprintf(stderr, "%s: line holds a NUL byte; not sent\n", progname);
		return false;
	}
	if (len > KSHELL_LINE_MAX) {
		fprintf(stderr, "%s: line longer than %d bytes (got %zu); not sent\n",
			progname, KSHELL_LINE_MAX, len);
		return false;
	}
	return true;
}

static int kshell_interactive(int fd, const char *target, int timeout_ms)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc;

	/* An empty datagram is answered with the prompt alone: it shows the
	 * kernel is there before anything is typed. */
	rc = kshell_exchange(fd, "", 0, timeout_ms, true);
	while (rc == 0 && (n = getline(&line, &cap, stdin)) >= 0) {
		size_t len = (size_t)n;

		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (!line_ok(line, len)) {
			/* Nothing sent; the kernel's prompt is still the last word. */
			fputs(PROMPT, stdout);
			fflush(stdout);
			continue;
		}
		rc = kshell_exchange(fd, line, len, timeout_ms, true);
		/* The kernel's own words said it; the session goes on. */
		if (rc == KS_FAILED || rc == KS_BUSY)
			rc = 0;
	}
	free(line);
	if (rc == 0)
		putchar('\n');
	return kshell_status(rc, target, timeout_ms);
}

/* The command's words joined with single spaces. */
static char *join_words(char **words, int n)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	s = calloc(1, len);
	if (!s) {
		fprintf(stderr, "%s: out of memory\n", progname);
		exit(EXIT_FAIL);
	}
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, words[i]);
	}
	return s;
}

/* getopt's own messages say less and take two lines: one line here. */
static int bad_option(int opt, char **argv)
{
	char o[3] = { '-', (char)optopt, '\0' };

	if (opt == ':')
		return usage_error(optopt == 'k' ? "-k needs a key file" :
				   optopt == 'o' ? "-o needs a file to save to" :
				   optopt == 'C' ? "--check-key needs a key file" :
				   "-t needs a number of seconds", NULL);
	if (optopt)
		return usage_error("unknown option ", o);
	return usage_error("unknown option ", argv[optind - 1]);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "timeout", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "insecure", no_argument, NULL, 'I' },
		{ "check-key", required_argument, NULL, 'C' },
		{ "init-key", no_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	const char *check = NULL;
	bool insecure = false, init = false;
	const char *target = KSHELL_DEFAULT_HOST ":" KSHELL_DEFAULT_PORT;
	const char *env = getenv("KSHELL_TIMEOUT");
	const char *keyfile = NULL, *timeout_arg = NULL, *save = NULL;
	char *reply = NULL;
	size_t reply_len = 0;
	int timeout_s = KSHELL_DEFAULT_TIMEOUT_S;
	int opt, fd, rc;
	char *cmd;

	opterr = 0;
	/* Options anywhere before "--", as GNU tools take them: one after
	 * HOST is ours or a usage error, never a word of the command (send
	 * such words after "--"). */
	while ((opt = getopt_long(argc, argv, ":t:k:o:h", opts, NULL)) != -1) {
		if (opt == 't') {
			timeout_arg = optarg;
		} else if (opt == 'k') {
			keyfile = optarg;
		} else if (opt == 'o') {
			save = optarg;
		} else if (opt == 'h') {
			usage();
			return 0;
		} else if (opt == 'V') {
			version();
			return 0;
		} else if (opt == 'I') {
			insecure = true;
		} else if (opt == 'C') {
			check = optarg;
		} else if (opt == 'D') {
			init = true;
		} else {
			return bad_option(opt, argv);
		}
	}
	if (timeout_arg && (timeout_s = parse_timeout(timeout_arg)) < 0) {
		fprintf(stderr, "%s: -t must be 1-3600 s (got %s)\n", progname, timeout_arg);
		return EXIT_USAGE;
	}
	if (!timeout_arg && env && *env && (timeout_s = parse_timeout(env)) < 0) {
		fprintf(stderr, "%s: KSHELL_TIMEOUT must be 1-3600 s (got %s)\n", progname, env);
		return EXIT_USAGE;
	}
	if (check || init)
		return key_tool(check);
	if (insecure && keyfile)
		return usage_error("-k and --insecure exclude each other", NULL);
	key_load(keyfile, insecure);
	if (optind < argc && looks_like_host(argv[optind]))
		target = argv[optind++];
	if (optind == argc && save) {
		fprintf(stderr, "%s: -o saves the reply to a command; give one (profile show folded)\n",
			progname);
		return EXIT_USAGE;
	}
	if (optind == argc) {
		fd = kshell_connect(target);
		return kshell_interactive(fd, target, timeout_s * 1000);
	}
	cmd = join_words(argv + optind, argc - optind);
	if (!line_ok(cmd, strlen(cmd))) {
		free(cmd);
		return EXIT_USAGE;
	}
	fd = kshell_connect(target);
	if (save && !(reply_out = open_memstream(&reply, &reply_len))) {
		fprintf(stderr, "%s: out of memory\n", progname);
		return EXIT_FAIL;
	}
	rc = kshell_status(kshell_exchange(fd, cmd, strlen(cmd), timeout_s * 1000, false),
			   target, timeout_s * 1000);
	if (save) {
		fclose(reply_out);
		reply_out = NULL;
		if (rc == 0 && strstr(reply, TRACE_BLOCK_BEGIN "\n"))
			rc = trace_save(reply, reply_len, save);
		else if (rc == 0)
			rc = folded_save(reply, reply_len, save, host_time_ns());
		else if (rc == EXIT_REMOTE)
			write_output(stderr, reply, reply_len);
		free(reply);
	}
	free(cmd);
	close(fd);
	return rc;
}
