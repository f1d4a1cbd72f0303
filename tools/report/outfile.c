/* SPDX-License-Identifier: BSD-2-Clause */
/* All or nothing: an output file appears whole or not at all, so a
 * failed run never leaves half an SVG or a truncated .pb.gz behind. */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* A temporary file beside @path, made as open(2) makes a file (0666
 * less the umask): its name in @tmp.  Named by pid and a counter, not
 * by mkstemp, whose 0600 had to be undone with umask(2) twice, and
 * umask is the process's: two threads writing at once (kprof-collect)
 * could leave it 0 for good.  A name left by an earlier process of the
 * same pid is passed over. */
static int temp_open(int dirfd, const char *path, char *tmp, size_t size)
{
	static unsigned long counter;

	for (int tries = 0; tries < 100; tries++) {
		unsigned long n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
		int fd;

		snprintf(tmp, size, "%s.tmp-%ld-%lu", path, (long)getpid(), n);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
			    0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int outfile_put(const char *path, const struct buf *b, bool durable)
{
	return outfile_put_at(AT_FDCWD, path, b, durable);
}

int outfile_put_at(int dirfd, const char *path, const struct buf *b, bool durable)
{
	size_t size = strlen(path) + 48;
	char *tmp = xmalloc(size);
	int fd, err = 0, rc = 0;

	fd = temp_open(dirfd, path, tmp, size);
	if (fd < 0) {
		err = errno;
		free(tmp);
		errno = err;
		return -1;
	}
	if (!write_all(fd, b->p, b->len) || (durable && fsync(fd) < 0)) {
		err = errno;
		close(fd);
		rc = -2;
	} else if (close(fd) < 0 || renameat(dirfd, tmp, dirfd, path) < 0) {
		err = errno;
		rc = -2;
	}
	if (rc)
		unlinkat(dirfd, tmp, 0);
	free(tmp);
	if (rc)
		errno = err;
	return rc;
}

void outfile_write(const char *path, const struct buf *b)
{
	int rc;

	if (strcmp(path, "-") == 0) {
		if (!write_all(STDOUT_FILENO, b->p, b->len))
			fatal(EXIT_INPUT, "cannot write standard output: %s",
			      strerror(errno));
		return;
	}
	rc = outfile_put(path, b, true);
	if (rc)
		fatal(EXIT_INPUT, "%s: cannot %s: %s", path, rc == -1 ? "create" : "write",
		      strerror(errno));
}
