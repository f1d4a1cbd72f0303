/* SPDX-License-Identifier: BSD-2-Clause */
/* The fold table: records (a pid and its frames) counted and weighed by
 * chain, in an open-addressed hash over rows of whole frame blocks, with
 * the leaf taken by symbol (a sym_cache) and the callers by return
 * address; then sorted for the views.  Task context only: the drain,
 * the wall collect and the views call it, never the sampler.  The
 * folded text it is printed as is folded.c's. */
#include "prof/fold.h"
#include "prof/fold_test.h"

#include "hal/trap.h"
#include "kernel/build_id.h"
#include "kernel/heap.h"
#include "kernel/symbols.h"
#include "lib/errno.h"
#include "lib/folded_frame.h"
#include "lib/fmt.h"
#include "lib/kstring.h"
#include "lib/out.h"
#include "lib/ticks.h"
#include "prof/report.h"

/* Chains the table starts with room for. */
#define FOLD_INITIAL_CHAINS 512

/* A record's frames are read in whole blocks (fold_key()). */
_Static_assert(PROF_MAX_FRAMES % FOLD_BLOCK == 0,
	       "a record's frames are a whole number of blocks");

static uint64_t fold_hash(const struct fold_chain *k);

/* The first free slot of @k's probe sequence. */
static size_t fold_free_slot(const uint32_t *slots, size_t mask,
			     const struct fold_chain *k)
{
	size_t i = fold_hash(k) & mask;

	while (slots[i])
		i = (i + 1) & mask;
	return i;
}

/* Room for @cap chains, the hash at most a quarter full: a probe that
 * meets another chain first is a mispredicted branch, and at half full
 * one sample in five did.  The chains already folded move over; their
 * rows stay where they are in the pool. */
static int fold_grow(struct fold *f, size_t cap)
{
	size_t nslots = 16;
	struct fold_chain *chains;
	uint32_t *slots;

	while (nslots < 4 * cap)
		nslots *= 2;
	chains = kmalloc((cap ? cap : 1) * sizeof(*chains));
	slots = kmalloc(nslots * sizeof(*slots));
	if (!chains || !slots) {
		kfree(chains);
		kfree(slots);
		return -ENOMEM;
	}
	kmemset(slots, 0, nslots * sizeof(*slots));
	for (size_t c = 0; c < f->nchains; c++) {
		chains[c] = f->chains[c];
		slots[fold_free_slot(slots, nslots - 1, &chains[c])] = (uint32_t)c + 1;
	}
	kfree(f->chains);
	kfree(f->slots);
	f->chains = chains;
	f->slots = slots;
	f->mask = nslots - 1;
	f->cap = cap;
	return 0;
}

/* Room in the pool for @n more words.  The pool holds each chain's row
 * (fold.h) end to end, as long as its chain needs: rows of the whole
 * depth would be mostly empty (chains are shallower than the depth
 * allows) and would be megabytes of zeroed memory at depth 32. */
static int fold_pool_room(struct fold *f, size_t n)
{
	size_t cap = f->pool_cap ? f->pool_cap * 2 : n;
	uintptr_t *frames;

	if (f->pool_used + n <= f->pool_cap)
		return 0;
	if (cap < f->pool_used + n)
		cap = f->pool_used + n;
	frames = kmalloc(cap * sizeof(*frames));
	if (!frames)
		return -ENOMEM;
	if (f->pool_used)
		kmemcpy(frames, f->frames, f->pool_used * sizeof(*frames));
	for (size_t c = 0; c < f->nchains; c++)
		f->chains[c].callers = frames + f->chains[c].slot + 1;
	kfree(f->frames);
	f->frames = frames;
	f->pool_cap = cap;
	return 0;
}

int fold_init_sized(struct fold *f, size_t limit, unsigned depth,
		    size_t chains, size_t words)
{
	kmemset(f, 0, sizeof(*f));
	if (depth < 1)
		depth = 1;
	if (depth > PROF_MAX_FRAMES)
		depth = PROF_MAX_FRAMES;
	f->depth = depth;
	f->limit = limit;
	/* kmemset() above emptied the leaf cache: a table resolves its
	 * leaves against the symbol table in use when it was made, and
	 * asks for the image's span once, not per record. */
	f->foreign = hal_trap_foreign_name();
	if (f->foreign)
		sym_image_span(&f->image_lo, &f->image_hi);
	if (fold_grow(f, chains < limit ? chains : limit) < 0 ||
	    fold_pool_room(f, words ? words : 1) < 0) {
		fold_free(f);
		return -ENOMEM;
	}
	return 0;
}

int fold_init(struct fold *f, size_t limit, unsigned depth)
{
	return fold_init_sized(f, limit, depth, FOLD_INITIAL_CHAINS,
			       FOLD_INITIAL_CHAINS * FOLD_BLOCK);
}

void fold_free(struct fold *f)
{
	kfree(f->chains);
	kfree(f->frames);
	kfree(f->slots);
	f->chains = NULL;
	f->frames = NULL;
	f->slots = NULL;
	f->nchains = f->cap = f->limit = 0;
	f->pool_used = f->pool_cap = 0;
	f->samples = 0;
}

/* Odd multipliers: two for a chain's pid (with its CPU) and length, then
 * one per word of its row. */
#define FOLD_MUL_PID 0
#define FOLD_MUL_LEN 1
#define FOLD_MUL_ROW 2
static const uint64_t fold_mul[FOLD_MUL_ROW + PROF_MAX_FRAMES] = {
	0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull,
	0xd6e8feb86659fd93ull, 0xff51afd7ed558ccdull, 0xc4ceb9fe1a85ec53ull,
	0x94d049bb133111ebull, 0xbf58476d1ce4e5b9ull, 0x27d4eb2f165667c5ull,
	0x85ebca77c2b2ae63ull, 0xa0761d6478bd642full, 0xe7037ed1a0b428dbull,
	0x8ebc6af09c88c6e3ull, 0x589965cc75374cc3ull, 0x1d8e4e27c47d124full,
	0xbe5466cf34e90c6dull, 0x4cf5ad432745937full, 0xd35a2d97e2b9e6bdull,
	0x9fb21c651e98df25ull, 0xa24baed4963ee407ull, 0x87c37b91114253d5ull,
	0x4cf5ad4327459371ull, 0x52dce729da3ed6f5ull, 0x2127599bf4325c37ull,
	0x880355f21e6d1965ull, 0xd6e8feb86659fd95ull, 0x3c79ac492ba7b653ull,
	0x1c69b3f74ac4ae35ull, 0xb492b66fbe98f273ull, 0x9ae16a3b2f90404full,
	0xcbf29ce484222325ull, 0x5851f42d4c957f2dull, 0x6c62272e07bb0143ull,
	0x2545f4914f6cdd1dull,
};

/* fold_hash() of the words beside the row. */
static uint64_t fold_hash_head(const struct fold_chain *k)
{
	return ((uint64_t)k->cpu << 33 | (uint64_t)(uint32_t)k->pid << 1 |
		(k->name != NULL)) * fold_mul[FOLD_MUL_PID] +
	       k->ncallers * fold_mul[FOLD_MUL_LEN];
}

/* The products' well-stirred high bits down to the bits the table's
 * mask keeps. */
static uint64_t fold_hash_mix(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	return h ^ (h >> 32);
}

/* A sum of products, each word of the chain's row by its own
 * multiplier: the products are independent, so a chain hashes in about
 * the time of one multiply instead of a multiply per word in series (as
 * FNV does).  fold_key() computes the same sum as it builds a row. */
static uint64_t fold_hash(const struct fold_chain *k)
{
	const uintptr_t *row = k->callers - 1;
	uint64_t h = fold_hash_head(k);

	for (uint32_t j = 0; j < FOLD_ROW_WORDS(k->ncallers); j++)
		h += row[j] * fold_mul[FOLD_MUL_ROW + j];
	return fold_hash_mix(h);
}

/* Whether chain @c is key @k, whose row is @row: whole blocks are
 * compared, without a branch per word. */
static inline __attribute__((always_inline)) bool
fold_same(const struct fold_chain *c, const struct fold_chain *k,
	  const uintptr_t *row)
{
	const uintptr_t *crow = c->callers - 1;
	uintptr_t diff = 0;

	if (c->pid != k->pid || c->cpu != k->cpu || c->ncallers != k->ncallers ||
	    (c->name != NULL) != (k->name != NULL))
		return false;
	for (uint32_t b = 0; b < FOLD_ROW_WORDS(k->ncallers); b += FOLD_BLOCK) {
#pragma GCC unroll 4	/* FOLD_BLOCK words */
		for (unsigned j = 0; j < FOLD_BLOCK; j++)
			diff |= crow[b + j] ^ row[b + j];
	}
	return diff == 0;
}

/* A sample of chain @c again: widen its leaf's span, add its CPUs. */
static void fold_count(struct fold *f, struct fold_chain *c,
		       const struct fold_chain *k)
{
	/* Selects, not branches: offsets arrive in no order. */
	c->lo = k->lo < c->lo ? k->lo : c->lo;
	c->hi = k->hi > c->hi ? k->hi : c->hi;
	c->cpus |= k->cpus;
	c->count += k->count;
	c->weight += k->weight;
	f->samples += k->count;
}

/* Key @k, whose row is @row, is not in the table: add it at free slot
 * @i (found again if the table must grow first). */
static int fold_insert(struct fold *f, const struct fold_chain *k,
		       const uintptr_t *row, size_t i)
{
	size_t words = FOLD_ROW_WORDS(k->ncallers);
	struct fold_chain *c;

	if (f->nchains == f->cap) {
		size_t cap = f->cap * 2 < f->limit ? f->cap * 2 : f->limit;

		if (cap <= f->cap)
			return -ENOSPC;
		if (fold_grow(f, cap) < 0)
			return -ENOMEM;
		i = fold_free_slot(f->slots, f->mask, k);
	}
	if (fold_pool_room(f, words) < 0)
		return -ENOMEM;
	c = &f->chains[f->nchains];
	*c = *k;
	c->slot = (uint32_t)f->pool_used;
	c->callers = f->frames + c->slot + 1;
	f->pool_used += words;
	kmemcpy(c->callers - 1, row, words * sizeof(*row));
	f->slots[i] = (uint32_t)++f->nchains;
	f->samples += k->count;
	return 0;
}

/* Fold key @k, whose row is @row and hash @h.  Inlined into the loop
 * over the records with fold_key() and fold_same(): a call per sample,
 * its saved registers and spills were 34 of the 385 instructions a
 * report spent per sample (cachegrind, doc/performance.md). */
static inline __attribute__((always_inline)) int
fold_put(struct fold *f, const struct fold_chain *k,
	 const uintptr_t *row, uint64_t h)
{
	size_t i;

	for (i = h & f->mask; f->slots[i]; i = (i + 1) & f->mask) {
		struct fold_chain *c = &f->chains[f->slots[i] - 1];

		if (fold_same(c, k, row)) {
			fold_count(f, c, k);
			return 0;
		}
	}
	return fold_insert(f, k, row, i);
}

int fold_merge(struct fold *f, const struct fold_chain *key)
{
	uintptr_t row[FOLD_ROW_WORDS(PROF_MAX_FRAMES - 1)];
	struct fold_chain k = *key;

	if (k.ncallers > f->depth - 1)
		k.ncallers = (uint16_t)(f->depth - 1);
	if (!f->by_cpu)
		k.cpu = FOLD_CPU_ANY;
	row[0] = k.leaf;
	for (size_t j = 0; j < FOLD_ROW_WORDS(k.ncallers) - 1; j++)
		row[1 + j] = j < k.ncallers ? k.callers[j] : 0;
	k.callers = row + 1;
	return fold_put(f, &k, row, fold_hash(&k));
}

/* A sliding mask: fold_keep + FOLD_BLOCK - 1 - m holds m + 1 words of
 * ones, then zeros, to keep a block's words up to word m, the chain's
 * last, and clear the padding after it. */
static const uintptr_t fold_keep[2 * FOLD_BLOCK - 1] = {
	[0 ... FOLD_BLOCK - 1] = ~(uintptr_t)0,
};

/* Words 0..@n of @frames into @row, padded to whole blocks; returns the
 * sum of their products (fold_hash()).  With @foreign (a constant where
 * it is inlined, so each platform's loop has no test in it) a frame
 * outside [lo, lo + span) becomes FOLD_FOREIGN. */
static inline __attribute__((always_inline)) uint64_t
fold_row(const uintptr_t *frames, uint32_t n, uintptr_t *row, bool foreign,
	 uintptr_t lo, uintptr_t span)
{
	uint64_t h = 0;

	for (uint32_t b = 0; b < FOLD_ROW_WORDS(n); b += FOLD_BLOCK) {
		uint32_t last = n - b < FOLD_BLOCK ? n - b : FOLD_BLOCK - 1;
		const uintptr_t *keep = fold_keep + FOLD_BLOCK - 1 - last;

#pragma GCC unroll 4	/* FOLD_BLOCK words */
		for (unsigned j = 0; j < FOLD_BLOCK; j++) {
			uintptr_t a = frames[b + j];

			if (foreign)
				a = a - lo >= span ? FOLD_FOREIGN : a;
			a &= keep[j];
			row[b + j] = a;
			h += a * fold_mul[FOLD_MUL_ROW + b + j];
		}
	}
	return h;
}

/* The chain record @r folds into, its row in @row; returns its hash
 * (fold_hash()'s value).  Callers beyond the table's depth are cut; a
 * frame outside the image, on a platform that names such code, folds
 * into FOLD_FOREIGN.  This runs once per sample, so the row is read,
 * mapped, hashed and stored in one pass over whole blocks straight from
 * the record (the row's word 0, frame 0's place, is the leaf): no branch
 * depends on a frame's value or on where in its block the chain ends. */
static inline __attribute__((always_inline)) uint64_t
fold_key(struct fold *f, const struct prof_record *r,
	 struct fold_chain *k, uintptr_t *row)
{
	uintptr_t lo = f->image_lo, span = f->image_hi - f->image_lo;
	uintptr_t ip = r->nframes ? r->frames[0] : 0;
	uint32_t n = r->nframes ? r->nframes - 1 : 0;
	const bool foreign = f->foreign != NULL;
	struct sym_hit hit;
	uint64_t h;

	if (n > f->depth - 1)
		n = f->depth - 1;
	k->lo = k->hi = 0;
	if (ip == FOLD_UNKNOWN) {
		k->leaf = FOLD_UNKNOWN;
		k->name = NULL;
	} else if (foreign && ip - lo >= span) {
		k->leaf = FOLD_FOREIGN;
		k->name = f->foreign;
	} else {
		sym_cache_lookup(&f->leaves, ip, &hit);
		k->leaf = f->exact_leaf ? ip : hit.start;
		k->name = hit.name;
		if (hit.name)
			k->lo = k->hi = ip - hit.start;
	}
	k->pid = r->pid;
	k->count = 1;
	k->weight = r->weight;
	k->ncallers = (uint16_t)n;
	k->slot = 0;
	k->callers = row + 1;
	if (foreign)
		h = fold_row(r->frames, n, row, true, lo, span);
	else
		h = fold_row(r->frames, n, row, false, 0, 0);
	/* Word 0 went in as frame 0; the row holds the leaf there. */
	h += (k->leaf - row[0]) * fold_mul[FOLD_MUL_ROW];
	row[0] = k->leaf;
	return fold_hash_mix(h + fold_hash_head(k));
}

int fold_add_cpu(struct fold *f, const struct prof_record *r, unsigned cpu)
{
	uintptr_t row[FOLD_ROW_WORDS(PROF_MAX_FRAMES - 1)];
	struct fold_chain k;
	uint64_t h;

	/* The CPU goes into the key before fold_key() hashes it. */
	k.cpu = f->by_cpu && cpu < FOLD_CPU_ANY ? (uint16_t)cpu : FOLD_CPU_ANY;
	h = fold_key(f, r, &k, row);
	k.cpus = cpu < 32 ? 1u << cpu : 0;
	return fold_put(f, &k, row, h);
}

int fold_add(struct fold *f, const struct prof_record *r)
{
	return fold_add_cpu(f, r, 0);
}

/* True when @a prints before @b. */
static bool fold_before(const struct fold_chain *a, const struct fold_chain *b)
{
	if (a->count != b->count)
		return a->count > b->count;
	if (a->leaf != b->leaf)
		return a->leaf < b->leaf;
	if (a->ncallers != b->ncallers)
		return a->ncallers < b->ncallers;
	for (uint32_t i = 0; i < a->ncallers; i++)
		if (a->callers[i] != b->callers[i])
			return a->callers[i] < b->callers[i];
	if (a->pid != b->pid)
		return a->pid < b->pid;
	return a->cpu < b->cpu;
}

static void fold_swap(struct fold_chain *a, struct fold_chain *b)
{
	struct fold_chain t = *a;

	*a = *b;
	*b = t;
}

/* Heap sort: no recursion and no extra memory, whatever the input. */
static void fold_sift_down(struct fold_chain *c, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= n)
			return;
		/* A max-heap of "prints last" puts the coldest at the top. */
		if (child + 1 < n && fold_before(&c[child], &c[child + 1]))
			child++;
		if (!fold_before(&c[root], &c[child]))
			return;
		fold_swap(&c[root], &c[child]);
		root = child;
	}
}

void fold_sort(struct fold *f)
{
	struct fold_chain *c = f->chains;
	size_t n = f->nchains;

	for (size_t i = n / 2; i-- > 0;)
		fold_sift_down(c, i, n);
	while (n > 1) {
		fold_swap(&c[0], &c[n - 1]);
		fold_sift_down(c, 0, --n);
	}
	/* The hash no longer matches the order: no more fold_add(). */
	f->cap = f->limit = f->nchains;
}

bool fold_chain_kept(const struct fold_chain *c, int pid)
{
	return pid == PROF_PID_ALL || c->pid == pid;
}

static bool fold_pid_kept(const struct fold_chain *c, const void *pid)
{
	return fold_chain_kept(c, *(const int *)pid);
}

int fold_without_task(struct fold *t, const struct fold *f, int pid,
		      void (*adjust)(struct fold_chain *k))
{
	return fold_without_task_if(t, f, fold_pid_kept, &pid, adjust);
}

int fold_without_task_if(struct fold *t, const struct fold *f,
			 bool (*keep)(const struct fold_chain *c, const void *ctx),
			 const void *ctx, void (*adjust)(struct fold_chain *k))
{
	size_t n = 0, words = 0;

	for (size_t i = 0; i < f->nchains; i++)
		if (keep(&f->chains[i], ctx)) {
			n++;
			words += FOLD_ROW_WORDS(f->chains[i].ncallers);
		}
	if (fold_init_sized(t, n ? n : 1, f->depth, n ? n : 1, words ? words : 1) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < f->nchains; i++) {
		struct fold_chain k = f->chains[i];

		if (!keep(&k, ctx))
			continue;
		k.pid = 0;
		if (adjust)
			adjust(&k);
		if (fold_merge(t, &k) < 0) {
			fold_free(t);
			return -ENOMEM;
		}
	}
	return 0;
}
