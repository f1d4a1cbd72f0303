/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: the device tree reader (src/lib/fdt.c).  The input is
 * a DTB; it is read twice: as it is, and with its header's magic and
 * totalsize set to what a reader would accept (so that the fuzzer spends
 * its time behind the header check, where the structure block is read).
 * Each time fdt_init() accepts it, every node, property, reg pair and
 * memreserve entry is read (tests/kit/fdt_walk.c).  Besides the sanitizers'
 * checks on every read, it aborts when a walk goes backwards, or when a
 * tree that fdt_check() accepts gives an error anywhere. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fdt_walk.h"
#include "lib/fdt.h"

static void fz_walk(const uint8_t *blob, size_t size)
{
	struct fdt_walk_stats st;
	struct fdt f;

	if (fdt_init(&f, blob, size) != 0)
		return;
	fdt_walk_all(&f, &st);
	if (st.order_broken)
		abort();
	if (fdt_check(&f) == 0 && st.errors != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed;

	fz_walk(data, size);
	if (size < 40)
		return 0;
	/* A heap block of exactly the input's size: a read past the end
	 * is an AddressSanitizer report. */
	fixed = malloc(size);
	if (!fixed)
		return 0;
	memcpy(fixed, data, size);
	fixed[0] = 0xd0, fixed[1] = 0x0d, fixed[2] = 0xfe, fixed[3] = 0xed;
	fixed[4] = (uint8_t)(size >> 24), fixed[5] = (uint8_t)(size >> 16);
	fixed[6] = (uint8_t)(size >> 8), fixed[7] = (uint8_t)size;
	fz_walk(fixed, size);
	free(fixed);
	return 0;
}
