/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell's key file on the host: tools/keyfile.h. */
#define _GNU_SOURCE
#include "keyfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shell/udpsh_wire.h"

/* Why @st is refused, or NULL when it may hold a key. */
static const char *keyfile_mode_rule(const struct stat *st, char *why, size_t size)
{
	if (!S_ISREG(st->st_mode))
		return S_ISFIFO(st->st_mode) ? "is a FIFO, not a regular file; refused" :
		       S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ?
			       "is a device, not a regular file; refused" :
		       S_ISDIR(st->st_mode) ? "is a folder, not a regular file; refused" :
					      "is not a regular file; refused";
	if (st->st_mode & 077) {
		snprintf(why, size,
			 "permissions %04o are too open: group or others may read or change the key (chmod 600 it)",
			 (unsigned)(st->st_mode & 07777));
		return why;
	}
	return NULL;
}

static int keyfile_refuse(const char *prog, const char *path, const char *why)
{
	fprintf(stderr, "%s: key file %s %s\n", prog, path, why);
	return -1;
}

/* Read all of @fd (at most @size bytes) into @text; -1 on an error or a
 * file longer than that. */
static ssize_t keyfile_slurp(int fd, char *text, size_t size)
{
	size_t n = 0;

	for (;;) {
		ssize_t r = read(fd, text + n, size - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return (ssize_t)n;
		n += (size_t)r;
		if (n == size)
			return -2;
	}
}

int keyfile_read(const char *prog, const char *path, uint8_t *key)
{
	char text[KEYFILE_TEXT_MAX], why[160];
	const char *rule;
	struct stat st;
	ssize_t n;
	int fd, len;

	/* Without blocking: a FIFO with no writer would wait forever. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		snprintf(why, sizeof(why), "cannot be read: %s", strerror(e));
		keyfile_refuse(prog, path, why);
		return e == ENOENT ? -2 : -1;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(why, sizeof(why), "cannot be read: %s", strerror(errno));
		close(fd);
		return keyfile_refuse(prog, path, why);
	}
	rule = keyfile_mode_rule(&st, why, sizeof(why));
	if (rule) {
		close(fd);
		return keyfile_refuse(prog, path, rule);
	}
	n = keyfile_slurp(fd, text, sizeof(text));
	close(fd);
	if (n == -1) {
		snprintf(why, sizeof(why), "cannot be read: %s", strerror(errno));
		return keyfile_refuse(prog, path, why);
	}
	len = n < 0 ? -1 : udpsh_key_parse(text, (size_t)n, key);
	memset(text, 0, sizeof(text));
	if (len < 0) {
		snprintf(why, sizeof(why), "does not hold a key of %d-%d bytes in hex (%d-%d hex digits)",
			 UDPSH_KEY_MIN, UDPSH_KEY_MAX, 2 * UDPSH_KEY_MIN, 2 * UDPSH_KEY_MAX);
		return keyfile_refuse(prog, path, why);
	}
	if (udpsh_key_weak(key, (size_t)len)) {
		memset(key, 0, (size_t)len);
		return keyfile_refuse(prog, path,
				      "holds a weak key (one byte repeated, such as all zero); make a random one");
	}
	return len;
}

int keyfile_default_path(const char *prog, char *buf, size_t size)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && *xdg == '/')
		n = snprintf(buf, size, "%s/kprof/udpsh.key", xdg);
	else if (home && *home)
		n = snprintf(buf, size, "%s/.config/kprof/udpsh.key", home);
	else {
		fprintf(stderr, "%s: no default key path: neither XDG_CONFIG_HOME nor HOME is set\n",
			prog);
		return -1;
	}
	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "%s: the default key path is too long\n", prog);
		return -1;
	}
	return 0;
}

/* mkdir -p for the folders above @path's last '/', each made 0700. */
static int keyfile_mkdirs(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

/* Write a new key to @path, created exclusively (a file that appeared
 * meanwhile is kept: it is read next). */
static int keyfile_make(const char *prog, char *path)
{
	uint8_t raw[32];
	char hex[2 * sizeof(raw) + 2];
	int fd;

	if (keyfile_mkdirs(path) != 0) {
		fprintf(stderr, "%s: cannot make the folder of %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		fprintf(stderr, "%s: no random bytes for a key: %s\n", prog, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	hex[2 * sizeof(raw)] = '\n';
	memset(raw, 0, sizeof(raw));
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST)
		return 0;
	if (fd < 0 || write(fd, hex, 2 * sizeof(raw) + 1) != 2 * (ssize_t)sizeof(raw) + 1 ||
	    close(fd) != 0) {
		fprintf(stderr, "%s: cannot write the key file %s: %s\n", prog, path, strerror(errno));
		if (fd >= 0)
			unlink(path);
		memset(hex, 0, sizeof(hex));
		return -1;
	}
	memset(hex, 0, sizeof(hex));
	return 1;
}

int keyfile_init_default(const char *prog, char *buf, size_t size, uint8_t *key,
			 int *made)
{
	struct stat st;
	int r;

	*made = 0;
	if (keyfile_default_path(prog, buf, size) != 0)
		return -1;
	if (lstat(buf, &st) != 0 && errno == ENOENT) {
		r = keyfile_make(prog, buf);
		if (r < 0)
			return -1;
		*made = r;
	}
	return keyfile_read(prog, buf, key);
}
