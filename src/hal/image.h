/* SPDX-License-Identifier: BSD-2-Clause */
/* What the platform knows of the running image itself. */
#ifndef KPROF_HAL_IMAGE_H
#define KPROF_HAL_IMAGE_H

#include <stddef.h>

/* The image's GNU build-id note as the linker wrote it (namesz, descsz,
 * type, "GNU\0", then the id) and its length in *@len; NULL and 0 when
 * the image carries none.  The kernels keep .note.gnu.build-id in a
 * loaded section between two linker symbols; ksim finds the note in its
 * own program headers.  Any context; the note never moves. */
const void *hal_image_build_id_note(size_t *len);

#endif
