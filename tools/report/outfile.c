/* SPDX-License-Identifier: BSD-2-Clause */
/* All or nothing: an output file appears whole or not at all, so a
 * failed run never leaves half an SVG or a truncated .pb.gz behind. */
#include "report.h"

#include <errno.h>
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

void outfile_write(const char *path, const struct buf *b)
{
	size_t plen = strlen(path);
	char *tmp;
	mode_t mask;
	int fd, err;

	if (strcmp(path, "-") == 0) {
		if (!write_all(STDOUT_FILENO, b->p, b->len))
			fatal(EXIT_INPUT, "cannot write standard output: %s",
			      strerror(errno));
		return;
	}
	tmp = xmalloc(plen + 16);
	snprintf(tmp, plen + 16, "%s.tmp-XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		fatal(EXIT_INPUT, "%s: cannot create: %s", path, strerror(errno));
	/* mkstemp makes it 0600; give it what open(2) would have. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0 || !write_all(fd, b->p, b->len) ||
	    fsync(fd) < 0) {
		err = errno;
		close(fd);
		unlink(tmp);
		fatal(EXIT_INPUT, "%s: cannot write: %s", path, strerror(err));
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		err = errno;
		unlink(tmp);
		fatal(EXIT_INPUT, "%s: cannot write: %s", path, strerror(err));
	}
	free(tmp);
}
