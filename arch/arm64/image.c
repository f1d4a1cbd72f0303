/* SPDX-License-Identifier: BSD-2-Clause */
/* The image's own facts (hal/image.h): its GNU build-id note, which
 * kernel.ld keeps in a loaded section between two symbols. */
#include "hal/image.h"

extern const char __build_id_start[], __build_id_end[];

const void *hal_image_build_id_note(size_t *len)
{
	*len = (size_t)(__build_id_end - __build_id_start);
	return *len ? __build_id_start : NULL;
}
