/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP shell's key file on the host: tools/keyfile.h. */
#define _GNU_SOURCE
#include "keyfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shell/udpsh/wire.h"

/* Why a file or folder owned as @st says may not hold a key, or NULL:
 * only we or root may own it (ssh's rule), else its owner could change
 * the key under us.  @what: "is" or "is in a folder". */
static const char *keyfile_owner_rule(const struct stat *st, const char *what, char *why,
				      size_t size)
{
	if (st->st_uid == geteuid() || st->st_uid == 0)
		return NULL;
	snprintf(why, size, "%s owned by uid %u, not by you (uid %u) or root; refused", what,
		 (unsigned)st->st_uid, (unsigned)geteuid());
	return why;
}

/* The worked example's key in doc/shell.md: published, so never a secret. */
static const uint8_t keyfile_published[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

bool keyfile_key_published(const uint8_t *key, size_t len)
{
	return len == sizeof(keyfile_published) &&
	       memcmp(key, keyfile_published, sizeof(keyfile_published)) == 0;
}

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
	if (st->st_mode & (S_ISUID | S_ISGID | S_ISVTX)) {
		snprintf(why, size,
			 "has the setuid, setgid or sticky bit (permissions %04o); refused (chmod 600 it)",
			 (unsigned)(st->st_mode & 07777));
		return why;
	}
	return keyfile_owner_rule(st, "is", why, size);
}

/* Why the folder @dir may not hold a key, or NULL: another user than us
 * or root owns it, or group or others may write in it without the
 * sticky bit (/tmp's), so they could swap the key for their own. */
static const char *keyfile_folder_rule(const char *dir, char *why, size_t size)
{
	struct stat st;
	int n;

	if (stat(dir, &st) != 0) {
		snprintf(why, size, "cannot be checked: its folder %s: %s", dir, strerror(errno));
		return why;
	}
	if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
		n = snprintf(why, size,
			     "is in a folder others may write in (%s, permissions %04o); refused (chmod go-w it)",
			     dir, (unsigned)(st.st_mode & 07777));
		return n < 0 || (size_t)n >= size ? "is in a folder others may write in; refused" : why;
	}
	return keyfile_owner_rule(&st, "is in a folder", why, size);
}

/* The folder part of @path into @dir ("." for none). */
static void keyfile_dirname(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 1;

	if (!slash)
		path = ".";
	else if (n == 0)
		n = 1;		/* "/key": the root */
	if (n >= size)
		n = size - 1;
	memmove(dir, path, n);	/* @dir may be @path */
	dir[n] = '\0';
}

/* The folder rule for the folder the key file @path really is in
 * (through any symbolic links). */
static const char *keyfile_real_folder_rule(const char *path, char *why, size_t size)
{
	char *real = realpath(path, NULL);
	char dir[PATH_MAX];
	const char *rule;

	if (!real) {
		snprintf(why, size, "cannot be checked: %s", strerror(errno));
		return why;
	}
	keyfile_dirname(real, dir, sizeof(dir));
	free(real);
	rule = keyfile_folder_rule(dir, why, size);
	return rule;
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
	char text[KEYFILE_TEXT_MAX], why[PATH_MAX + 160];
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
	if (!rule)
		rule = keyfile_real_folder_rule(path, why, sizeof(why));
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
	if (keyfile_key_published(key, (size_t)len)) {
		memset(key, 0, (size_t)len);
		return keyfile_refuse(prog, path,
				      "holds the test key published in doc/shell.md; make a random one");
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

/* Before a key is made at @path: the nearest folder above it that
 * exists (the one it goes in, or the one its folders are made in) must
 * pass the folder rule.  0, or -1 after one line on stderr. */
static int keyfile_refuse_open_folder(const char *prog, const char *path)
{
	char dir[PATH_MAX], why[PATH_MAX + 160];
	const char *rule;
	struct stat st;

	keyfile_dirname(path, dir, sizeof(dir));
	while (stat(dir, &st) != 0 && errno == ENOENT && strcmp(dir, "/") && strcmp(dir, "."))
		keyfile_dirname(dir, dir, sizeof(dir));
	rule = keyfile_folder_rule(dir, why, sizeof(why));
	if (!rule)
		return 0;
	fprintf(stderr, "%s: key file %s not made: it %s\n", prog, path, rule);
	return -1;
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
		if (keyfile_refuse_open_folder(prog, buf) != 0)
			return -1;
		r = keyfile_make(prog, buf);
		if (r < 0)
			return -1;
		*made = r;
	}
	return keyfile_read(prog, buf, key);
}
