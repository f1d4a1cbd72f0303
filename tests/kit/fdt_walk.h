/* SPDX-License-Identifier: BSD-2-Clause */
/* Every question a kernel asks of a device tree, asked of every node:
 * shared by tests/lib/check_fdt.c and the fuzz target tests/fuzz/fuzz_fdt.c. */
#ifndef KPROF_TESTS_FDT_WALK_H
#define KPROF_TESTS_FDT_WALK_H

#include <stdbool.h>

#include "lib/fdt.h"

struct fdt_walk_stats {
	unsigned nodes;		/* visited from the root, document order */
	unsigned props;		/* properties found of those asked for */
	unsigned regs;		/* (address, size) pairs read */
	unsigned memreserve;	/* /memreserve/ entries before the terminator */
	unsigned errors;	/* -EINVAL answers and NULL names met */
	bool order_broken;	/* a node came back at or before its predecessor */
};

/* Walk @f (fdt_init() succeeded on it) depth first from the root with
 * fdt_first_child()/fdt_next_sibling(), no deeper than FDT_MAX_DEPTH;
 * at each node read its name, the usual properties, every reg pair with
 * its parent's cells, compatible; then the memreserve entries (at most
 * 64), a few paths and the compatible searches.  Never fails: what went
 * wrong is counted. */
void fdt_walk_all(const struct fdt *f, struct fdt_walk_stats *st);

#endif
