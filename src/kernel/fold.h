/* SPDX-License-Identifier: BSD-2-Clause */
/* Folding samples into call chains (DESIGN §3 "Report format").  The leaf
 * folds by symbol, carrying the span of offsets seen; callers fold by
 * exact return address.  Task context: the table lives on the heap. */
#ifndef KPROF_KERNEL_FOLD_H
#define KPROF_KERNEL_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/profiler.h"

/* The address every frame outside the image folds into, where the
 * platform names such code (hal_trap_foreign_name()): samples in host
 * libraries make one leaf, not one per address.  No image starts at 1. */
#define FOLD_FOREIGN ((uintptr_t)1)

struct fold_chain {
	uint64_t count;
	/* The leaf's symbol start, or its exact address when no symbol
	 * covers it (name NULL): unknown leaves fold by address. */
	uintptr_t leaf;			/* FOLD_FOREIGN: outside the image */
	const char *name;
	uintptr_t lo, hi;	/* offsets of frame 0 seen, within the symbol */
	uint32_t ncallers;
	uintptr_t callers[PROF_MAX_FRAMES - 1];
};

struct fold {
	struct fold_chain *chains;	/* distinct chains, nchains of them */
	size_t nchains, cap;
	size_t limit;			/* most chains there can be: one per record */
	uint32_t *slots;		/* open hash: chain index + 1, 0 = empty */
	size_t mask;
	uint64_t samples;
};

/* A table for at most @max_records samples.  It starts small and grows
 * as distinct chains appear: samples mostly share a few hundred chains,
 * and a table sized for every record being distinct would touch
 * megabytes for nothing.  Returns 0 or -ENOMEM. */
int fold_init(struct fold *f, size_t max_records);

/* Fold one record.  At most max_records calls.  Returns 0, or -ENOMEM
 * when the table could not grow (the record is then not counted). */
int fold_add(struct fold *f, const struct prof_record *r);

/* Order the chains hottest first; ties go to the lower leaf address,
 * then the shorter chain, then the lower return addresses, so one set of
 * samples always prints the same report. */
void fold_sort(struct fold *f);

void fold_free(struct fold *f);

#endif
