/* SPDX-License-Identifier: BSD-2-Clause */
/* Folding samples into call chains (doc/profiler.md, "Reading the
 * report").  The leaf folds by symbol, carrying the span of offsets
 * seen; callers fold by exact return address; each chain remembers its
 * task and the CPUs that sampled it (a session's table keeps each CPU's
 * chains apart).  Task context: the table lives on the heap. */
#ifndef KPROF_PROF_FOLD_H
#define KPROF_PROF_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/symbols.h"
#include "prof/profiler.h"

/* The address every frame outside the image folds into, where the
 * platform names such code (hal_trap_foreign_name()): samples in host
 * libraries make one leaf, not one per address.  No image starts at 1. */
#define FOLD_FOREIGN ((uintptr_t)1)
/* A frame standing for a stack nobody recorded: a wall run's time whose
 * switch record its ring had no room for (prof/wall_collect.c). */
#define FOLD_UNKNOWN ((uintptr_t)2)

/* fold_chain.cpu of a table that merges CPUs. */
#define FOLD_CPU_ANY 0xffffu

struct fold_chain {
	uint64_t count;
	uint64_t weight;		/* its samples' weights, summed */
	/* The leaf's symbol start, or its exact address when no symbol
	 * covers it (name NULL): unknown leaves fold by address.  In a
	 * table of exact leaves (fold.exact_leaf) it is always frame 0 as
	 * sampled, lo and hi its offset in its symbol. */
	uintptr_t leaf;			/* FOLD_FOREIGN: outside the image */
	const char *name;
	uintptr_t lo, hi;	/* offsets of frame 0 seen, within the symbol */
	int32_t pid;		/* the task sampled (part of the identity) */
	uint32_t cpus;		/* CPUs that took its samples (merged) */
	uint16_t ncallers;
	/* The CPU that took its samples, part of the identity in a table
	 * that keeps CPUs apart (fold.by_cpu); FOLD_CPU_ANY in one that
	 * merges them.  (16 bits beside ncallers: the entry stays 72
	 * bytes.) */
	uint16_t cpu;
	uint32_t slot;		/* where its row starts in the table's pool */
	/* Return addresses, nearest first: ncallers of them.  Points into
	 * the table's pool, one word into the chain's row. */
	uintptr_t *callers;
};

/* A chain's row in the table's pool: its leaf, its callers, then zeros
 * to a whole number of FOLD_BLOCK-word blocks.  A sample's row is built,
 * hashed and compared in straight-line blocks instead of loops whose
 * exit, at a different depth each sample, the branch predictor keeps
 * missing.  FOLD_ROW_WORDS(n) is the row of a chain of n callers. */
#define FOLD_BLOCK 4
#define FOLD_ROW_WORDS(n) \
	(((uint32_t)(n) + 1 + FOLD_BLOCK - 1) / FOLD_BLOCK * FOLD_BLOCK)

struct fold {
	struct fold_chain *chains;	/* distinct chains, nchains of them */
	uintptr_t *frames;		/* pool of every chain's row */
	size_t pool_used, pool_cap;	/* words of it in use, allocated */
	size_t nchains, cap;
	size_t limit;			/* most chains it may hold */
	/* Leaves fold by their exact address, not by their symbol: a
	 * session's table, which the address view prints as it is and
	 * the name views re-fold by function (fold_leaf_function()). */
	bool exact_leaf;
	/* Chains of different CPUs stay apart (fold_chain.cpu): a
	 * session's table, which the views by CPU print as they are and
	 * the others merge (fold_merge() into a table without it). */
	bool by_cpu;
	unsigned depth;			/* frames a chain keeps, leaf included */
	uint32_t *slots;		/* open hash: chain index + 1, 0 = empty */
	size_t mask;
	uint64_t samples;		/* samples in its chains */
	/* Fixed when the table is made, as its leaf cache is: the name of
	 * code outside the image (NULL: frames are kept as they are) and
	 * the image's span. */
	const char *foreign;
	uintptr_t image_lo, image_hi;
	struct sym_cache leaves;	/* its samples' leaf symbols */
};

/* A table of at most @limit chains of at most @depth frames (1 to
 * PROF_MAX_FRAMES).  It starts small and grows as distinct chains appear:
 * samples mostly share a few hundred chains, and a table sized for every
 * sample being distinct would touch megabytes for nothing.  Returns 0
 * or -ENOMEM. */
int fold_init(struct fold *f, size_t limit, unsigned depth);
/* The same, starting with room for @chains chains and @words words of
 * rows (the sum of their FOLD_ROW_WORDS()): a re-fold of a table it
 * knows the size of never grows. */
int fold_init_sized(struct fold *f, size_t limit, unsigned depth,
		    size_t chains, size_t words);

/* Fold one record, taken on @cpu (a chain of its own per CPU where the
 * table is by_cpu).  Returns 0; -ENOSPC when the chain is new and the
 * table already holds @limit chains, -ENOMEM when it could not grow
 * (the record is then not counted: the caller counts it). */
int fold_add_cpu(struct fold *f, const struct prof_record *r, unsigned cpu);

/* Fold @k->count samples of chain @k (merging its span and CPUs, and
 * its CPU into the others' unless the table is by_cpu), as a view
 * re-folds a session's chains.  Callers beyond the table's depth are
 * cut.  Returns as fold_add_cpu(). */
int fold_merge(struct fold *f, const struct fold_chain *k);

/* The function chain @k's leaf lies in, where @k is a chain of a table
 * of exact leaves: its symbol's start (its span is its offset), the
 * address itself where no symbol covers it, or FOLD_FOREIGN. */
static inline uintptr_t fold_leaf_function(const struct fold_chain *k)
{
	return k->name && k->leaf != FOLD_FOREIGN ? k->leaf - k->lo : k->leaf;
}

/* Order the chains hottest first; ties go to the lower leaf address,
 * then the shorter chain, then the lower return addresses, then the
 * lower pid, then the lower CPU, so one set of samples always prints the
 * same report. */
void fold_sort(struct fold *f);

void fold_free(struct fold *f);

/* True when chain @c is task @pid's, or @pid is PROF_PID_ALL. */
bool fold_chain_kept(const struct fold_chain *c, int pid);

/* @f's chains of task @pid (PROF_PID_ALL: every task) into a new table
 * @t without their task: the text views' chains are code paths,
 * whichever task ran or waited there.  @adjust (or NULL) edits each
 * chain's copy before it merges (its leaf, its offsets).  Returns 0, or
 * -ENOMEM with nothing to free.  Task context. */
int fold_without_task(struct fold *t, const struct fold *f, int pid,
		      void (*adjust)(struct fold_chain *k));
/* The same, of the chains @keep(chain, @ctx) keeps (a view that leaves
 * some tasks out). */
int fold_without_task_if(struct fold *t, const struct fold *f,
			 bool (*keep)(const struct fold_chain *c, const void *ctx),
			 const void *ctx, void (*adjust)(struct fold_chain *k));

#endif
