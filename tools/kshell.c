/* kshell: talk to a kernel's UDP shell (src/shell/udpsh.h).
 *
 *   kshell [-t SECONDS] [HOST[:PORT]] [COMMAND...]
 *
 * With a command: send it as one datagram, print the reply without the
 * trailing prompt, exit 0; exit 2 when no datagram arrives for SECONDS
 * (default 5, or $KSHELL_TIMEOUT) before the prompt does.  Without one:
 * interactive, a line of standard input per command, the kernel's own
 * prompt shown.  HOST defaults to 127.0.0.1 and PORT to 5555 (what
 * `make run` forwards).  The first word is taken as HOST[:PORT] when it
 * has a '.' or ':' in it or is "localhost", so `kshell help` works. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#define KSHELL_DEFAULT_HOST "127.0.0.1"
#define KSHELL_DEFAULT_PORT "5555"
#define KSHELL_DEFAULT_TIMEOUT_S 5
#define KSHELL_LINE_MAX 4096
#define KSHELL_DGRAM_MAX 65536
#define PROMPT "> "
#define PROMPT_LEN 2

enum { EXIT_USAGE = 1, EXIT_TIMEOUT = 2 };

static const char *progname = "kshell";

static void usage(void)
{
	fprintf(stderr, "usage: %s [-t SECONDS] [HOST[:PORT]] [COMMAND...]\n", progname);
	exit(EXIT_USAGE);
}

static bool looks_like_host(const char *s)
{
	return strchr(s, '.') || strchr(s, ':') || strcmp(s, "localhost") == 0;
}

/* A UDP socket connected to HOST[:PORT]; exits with a message on error. */
static int kshell_connect(const char *target)
{
	char host[256];
	const char *port = KSHELL_DEFAULT_PORT;
	const char *colon = strrchr(target, ':');
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM };
	struct addrinfo *res, *ai;
	size_t n = colon ? (size_t)(colon - target) : strlen(target);
	int fd = -1, err;

	if (n >= sizeof(host)) {
		fprintf(stderr, "%s: host name too long: %s\n", progname, target);
		exit(EXIT_USAGE);
	}
	memcpy(host, target, n);
	host[n] = '\0';
	if (colon)
		port = colon + 1;
	err = getaddrinfo(host, port, &hints, &res);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", progname, target, gai_strerror(err));
		exit(EXIT_USAGE);
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot reach %s: %s\n", progname, target, strerror(errno));
		exit(EXIT_USAGE);
	}
	return fd;
}

/* Send @cmd, then print reply datagrams until one ends with the prompt.
 * The prompt itself is printed only when @show_prompt.  Returns 0, or
 * EXIT_TIMEOUT when @timeout_ms passed with nothing arriving. */
static int kshell_exchange(int fd, const char *cmd, int timeout_ms, bool show_prompt)
{
	static char buf[KSHELL_DGRAM_MAX];
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (send(fd, cmd, strlen(cmd), 0) < 0) {
		fprintf(stderr, "%s: send: %s\n", progname, strerror(errno));
		return EXIT_USAGE;
	}
	for (;;) {
		ssize_t n;
		int r = poll(&p, 1, timeout_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return EXIT_TIMEOUT;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			/* ECONNREFUSED: nobody listens yet; keep waiting. */
			if (errno == EINTR || errno == ECONNREFUSED)
				continue;
			fprintf(stderr, "%s: recv: %s\n", progname, strerror(errno));
			return EXIT_USAGE;
		}
		if (n >= PROMPT_LEN && memcmp(buf + n - PROMPT_LEN, PROMPT, PROMPT_LEN) == 0) {
			fwrite(buf, 1, (size_t)n - (show_prompt ? 0 : PROMPT_LEN), stdout);
			fflush(stdout);
			return 0;
		}
		fwrite(buf, 1, (size_t)n, stdout);
		fflush(stdout);
	}
}

static void timeout_message(const char *target, int timeout_ms)
{
	fprintf(stderr, "%s: no reply from %s within %d s\n", progname, target,
		timeout_ms / 1000);
}

static int kshell_interactive(int fd, const char *target, int timeout_ms)
{
	char line[KSHELL_LINE_MAX];
	int rc;

	/* An empty datagram is answered with the prompt alone: it shows the
	 * kernel is there before anything is typed. */
	rc = kshell_exchange(fd, "", timeout_ms, true);
	while (rc == 0 && fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\r\n")] = '\0';
		rc = kshell_exchange(fd, line, timeout_ms, true);
	}
	if (rc == EXIT_TIMEOUT)
		timeout_message(target, timeout_ms);
	if (rc == 0)
		putchar('\n');
	return rc;
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
		exit(EXIT_USAGE);
	}
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, words[i]);
	}
	return s;
}

int main(int argc, char **argv)
{
	const char *target = KSHELL_DEFAULT_HOST ":" KSHELL_DEFAULT_PORT;
	const char *env = getenv("KSHELL_TIMEOUT");
	int timeout_s = env ? atoi(env) : KSHELL_DEFAULT_TIMEOUT_S;
	int opt, fd, rc;
	char *cmd;

	while ((opt = getopt(argc, argv, "+t:h")) != -1) {
		if (opt == 't')
			timeout_s = atoi(optarg);
		else
			usage();
	}
	if (timeout_s <= 0 || timeout_s > 3600) {
		fprintf(stderr, "%s: timeout must be 1-3600 s\n", progname);
		return EXIT_USAGE;
	}
	if (optind < argc && looks_like_host(argv[optind]))
		target = argv[optind++];
	fd = kshell_connect(target);
	if (optind == argc)
		return kshell_interactive(fd, target, timeout_s * 1000);
	cmd = join_words(argv + optind, argc - optind);
	rc = kshell_exchange(fd, cmd, timeout_s * 1000, false);
	if (rc == EXIT_TIMEOUT)
		timeout_message(target, timeout_s * 1000);
	free(cmd);
	close(fd);
	return rc;
}
