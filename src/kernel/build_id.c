/* SPDX-License-Identifier: BSD-2-Clause */
#include "kernel/build_id.h"

#include "hal/image.h"

/* ELF's note type for a build-id, owner "GNU". */
#define NT_GNU_BUILD_ID 3

static uint32_t build_id_word(const uint8_t *p)
{
	/* Notes are in the image's own byte order: this CPU's. */
	uint32_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

size_t build_id_parse(const void *note, size_t len, const uint8_t **id)
{
	const uint8_t *p = note;
	uint32_t namesz, descsz;
	size_t name_room;

	*id = NULL;
	if (!p || len < 12)
		return 0;
	namesz = build_id_word(p);
	descsz = build_id_word(p + 4);
	name_room = ((size_t)namesz + 3) & ~(size_t)3;
	if (build_id_word(p + 8) != NT_GNU_BUILD_ID || namesz != 4 ||
	    p[12] != 'G' || p[13] != 'N' || p[14] != 'U' || p[15] != 0 ||
	    descsz == 0 || descsz > BUILD_ID_MAX || 12 + name_room + descsz > len)
		return 0;
	*id = p + 12 + name_room;
	return descsz;
}

size_t build_id_hex(char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = 0, n, w = 0;
	const void *note = hal_image_build_id_note(&len);
	const uint8_t *id;

	n = build_id_parse(note, len, &id);
	if (!size)
		return n;
	for (size_t i = 0; i < n && w + 2 < size; i++) {
		buf[w++] = hex[id[i] >> 4];
		buf[w++] = hex[id[i] & 15];
	}
	buf[w] = 0;
	return n;
}
