/* SPDX-License-Identifier: BSD-2-Clause */
/* The image's GNU build-id, as `lscpu` and the folded header print it:
 * what names this exact image to a debugger, debuginfod and
 * kprof-report --elf. */
#ifndef KPROF_KERNEL_BUILD_ID_H
#define KPROF_KERNEL_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

/* The longest id printed (SHA-1 ids are 20 bytes; the note allows more). */
#define BUILD_ID_MAX 64

/* The id in a GNU build-id note @note of @len bytes: its bytes in *@id
 * and their number returned; 0 when the note is not a well-formed GNU
 * NT_GNU_BUILD_ID note or its id is longer than BUILD_ID_MAX. */
size_t build_id_parse(const void *note, size_t len, const uint8_t **id);

/* The running image's id in lower-case hex into @buf (NUL-terminated,
 * cut to @size); returns the id's length in bytes, 0 when the image
 * carries none (buf is then ""). */
size_t build_id_hex(char *buf, size_t size);

#endif
