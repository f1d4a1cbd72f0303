/* SPDX-License-Identifier: BSD-2-Clause */
/* The images an address view's intervals are resolved against
 * (--elf-dir, doc/collect.md "Lines"): each build-id's image loaded
 * once, through kprof-report's image.c, and kept for the run, so an
 * interval costs its own addresses' lookups and never an ELF's load; an
 * image that is missing or unusable is never fatal: the caller writes
 * that interval by name, with the reason this gives.  A failed look-up
 * is kept too, for a minute, so a fleet whose image is missing does not
 * read the folder at every interval of every target, and an image put
 * there later is taken up. */
#define _GNU_SOURCE

#include "collect.h"

#include <stdlib.h>
#include <string.h>

/* How long a failed look-up stands before the folder is read again. */
#define IMAGES_RETRY_NS (60 * 1000000000ll)

static pthread_mutex_t images_lock = PTHREAD_MUTEX_INITIALIZER;
static struct coll_image *images;

static struct coll_image *images_find(const char *build_id)
{
	for (struct coll_image *c = images; c; c = c->next)
		if (strcmp(c->build_id, build_id) == 0)
			return c;
	return NULL;
}

/* Load (or load again, after a failure's minute) @c's image. */
static void images_load(struct coll_image *c, const char *who)
{
	char err[PATH_MAX + 512];

	c->im = image_load(c->build_id, NULL, opts.elf_dir, who, err, sizeof(err));
	if (c->im) {
		c->reason = NULL;
		return;
	}
	/* No file by that id is "no-image"; one that is there but not
	 * usable (another id, stripped, not ELF) is "bad-image". */
	c->reason = strstr(err, "no image with build-id") ? "no-image" : "bad-image";
	snprintf(c->err, sizeof(c->err), "%s", err);
	c->retry_at_ns = now_mono_ns() + IMAGES_RETRY_NS;
	c->said = false;
}

struct coll_image *images_get(const char *build_id, const char *who, const char **reason)
{
	struct coll_image *c;

	pthread_mutex_lock(&images_lock);
	c = images_find(build_id);
	if (!c) {
		c = xcalloc(1, sizeof(*c));
		snprintf(c->build_id, sizeof(c->build_id), "%s", build_id);
		pthread_mutex_init(&c->lock, NULL);
		c->next = images;
		images = c;
		images_load(c, who);
	} else if (!c->im && now_mono_ns() >= c->retry_at_ns) {
		images_load(c, who);
	}
	if (!c->im && !c->said) {
		/* Said once per failed load, not at every interval. */
		fprintf(stderr, "%s: %s; intervals of build-id %s are written by name (reason=%s)\n",
			COLLECT_PROG, c->err, build_id, c->reason);
		c->said = true;
	}
	*reason = c->reason;
	pthread_mutex_unlock(&images_lock);
	return c->im ? c : NULL;
}
