/* SPDX-License-Identifier: BSD-2-Clause */
/* The simulator's own build-id: the host link gives ksim (and every
 * test program) a GNU build-id note, found in the program headers of
 * the main program -- the first object dl_iterate_phdr() reports. */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <string.h>

#include "hal/image.h"

struct sim_note {
	const void *note;
	size_t len;
};

/* The GNU build-id note among the @size bytes of notes at @p. */
static void sim_note_find(const char *p, size_t size, struct sim_note *out)
{
	size_t at = 0;

	while (at + sizeof(ElfW(Nhdr)) <= size) {
		ElfW(Nhdr) n;
		size_t len;

		memcpy(&n, p + at, sizeof(n));
		len = sizeof(n) + ((n.n_namesz + 3u) & ~3u) + ((n.n_descsz + 3u) & ~3u);
		if (len > size - at)
			return;
		if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 &&
		    memcmp(p + at + sizeof(n), "GNU", 4) == 0) {
			out->note = p + at;
			out->len = len;
			return;
		}
		at += len;
	}
}

static int sim_note_of_main(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct sim_note *out = ctx;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum && !out->note; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE)
			sim_note_find((const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr),
				      info->dlpi_phdr[i].p_memsz, out);
	return 1;	/* the main program only */
}

/* Looked up at each call: only lscpu and the folded views ask, from task
 * context, and dl_iterate_phdr() takes its own lock. */
const void *hal_image_build_id_note(size_t *len)
{
	struct sim_note n = { NULL, 0 };

	dl_iterate_phdr(sim_note_of_main, &n);
	*len = n.len;
	return n.note;
}
