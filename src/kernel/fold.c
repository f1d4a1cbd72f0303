/* SPDX-License-Identifier: BSD-2-Clause */
#include "kernel/fold.h"

#include "hal/trap.h"
#include "kernel/heap.h"
#include "kernel/symbols.h"
#include "lib/errno.h"
#include "lib/kstring.h"

/* Chains the table starts with room for. */
#define FOLD_INITIAL_CHAINS 512

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

/* Room for @cap chains, the hash at most half full so probes stay short;
 * the chains already folded move over (their callers stay in the pool). */
static int fold_grow(struct fold *f, size_t cap)
{
	size_t nslots = 16;
	struct fold_chain *chains;
	uint32_t *slots;

	while (nslots < 2 * cap)
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

/* Room in the pool for @n more callers.  The pool holds each chain's
 * callers end to end, as many as it has: rows of the whole depth would
 * be mostly empty (chains are shallower than the depth allows) and
 * would be megabytes of zeroed memory at depth 32. */
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
		f->chains[c].callers = frames + f->chains[c].slot;
	kfree(f->frames);
	f->frames = frames;
	f->pool_cap = cap;
	return 0;
}

int fold_init_sized(struct fold *f, size_t limit, unsigned depth,
		    size_t chains, size_t callers)
{
	kmemset(f, 0, sizeof(*f));
	if (depth < 1)
		depth = 1;
	if (depth > PROF_MAX_FRAMES)
		depth = PROF_MAX_FRAMES;
	f->depth = depth;
	f->limit = limit;
	/* kmemset() above emptied the leaf cache: a table resolves its
	 * leaves against the symbol table in use when it was made. */
	if (fold_grow(f, chains < limit ? chains : limit) < 0 ||
	    fold_pool_room(f, callers ? callers : 1) < 0) {
		fold_free(f);
		return -ENOMEM;
	}
	return 0;
}

int fold_init(struct fold *f, size_t limit, unsigned depth)
{
	return fold_init_sized(f, limit, depth, FOLD_INITIAL_CHAINS,
			       FOLD_INITIAL_CHAINS * 4);
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

/* The symbol of leaf address @ip (hit->name NULL when none covers it).
 * Leaves repeat (a hot loop is sampled at a few addresses), so a small
 * cache of symbols by 16-byte block answers most of them without a
 * search of the symbol table. */
static void fold_leaf_symbol(struct fold *f, uintptr_t ip, struct sym_hit *hit)
{
	uintptr_t block = ip >> 4;
	struct fold_leaf *e = &f->leaves[(block ^ (block >> 9)) % FOLD_LEAF_CACHE];

	if (e->name && ip >= e->start && ip - e->start < e->size) {
		hit->name = e->name;
		hit->start = e->start;
		return;
	}
	if (!sym_lookup(ip, hit)) {
		/* Not cached: e->name NULL marks an empty entry. */
		hit->name = NULL;
		hit->start = ip;
		return;
	}
	e->start = hit->start;
	e->size = hit->size;
	e->name = hit->name;
}

/* The chain a record folds into, before its leaf offset is merged;
 * @callers (PROF_MAX_FRAMES - 1 words) holds its return addresses.  A
 * frame outside the image, on a platform that names such code, folds
 * into FOLD_FOREIGN; every other frame is kept as it is. */
static void fold_key(struct fold *f, const struct prof_record *r,
		     struct fold_chain *k, uintptr_t *callers)
{
	const char *foreign = hal_trap_foreign_name();
	struct sym_hit hit;
	uintptr_t ip = r->nframes ? r->frames[0] : 0;
	uint32_t n = r->nframes ? r->nframes - 1 : 0;
	uintptr_t lo = 0, hi = 0;

	if (n > PROF_MAX_FRAMES - 1)
		n = PROF_MAX_FRAMES - 1;
	/* The span once per record, not a call per frame. */
	if (foreign)
		sym_image_span(&lo, &hi);
	kmemset(k, 0, sizeof(*k));
	if (foreign && (ip < lo || ip >= hi)) {
		k->leaf = FOLD_FOREIGN;
		k->name = foreign;
	} else {
		fold_leaf_symbol(f, ip, &hit);
		k->leaf = hit.start;
		k->name = hit.name;
		if (hit.name)
			k->lo = k->hi = ip - hit.start;
	}
	k->pid = r->pid;
	k->count = 1;
	k->ncallers = n;
	k->callers = callers;
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t a = r->frames[i + 1];

		callers[i] = foreign && (a < lo || a >= hi) ? FOLD_FOREIGN : a;
	}
}

static uint64_t fold_hash(const struct fold_chain *k)
{
	/* FNV-1a over the words that make the chain's identity. */
	uint64_t h = 0xcbf29ce484222325ull;

	h = (h ^ k->leaf) * 0x100000001b3ull;
	h = (h ^ (k->name != NULL)) * 0x100000001b3ull;
	h = (h ^ (uint32_t)k->pid) * 0x100000001b3ull;
	h = (h ^ k->ncallers) * 0x100000001b3ull;
	for (uint32_t i = 0; i < k->ncallers; i++)
		h = (h ^ k->callers[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static bool fold_same(const struct fold_chain *a, const struct fold_chain *b)
{
	if (a->leaf != b->leaf || (a->name != NULL) != (b->name != NULL) ||
	    a->pid != b->pid || a->ncallers != b->ncallers)
		return false;
	for (uint32_t i = 0; i < a->ncallers; i++)
		if (a->callers[i] != b->callers[i])
			return false;
	return true;
}

int fold_merge(struct fold *f, const struct fold_chain *key)
{
	struct fold_chain k = *key;
	struct fold_chain *c;
	size_t i, row = f->depth - 1;

	if (k.ncallers > row)
		k.ncallers = (uint32_t)row;
	for (i = fold_hash(&k) & f->mask; f->slots[i]; i = (i + 1) & f->mask) {
		c = &f->chains[f->slots[i] - 1];
		if (fold_same(c, &k)) {
			if (k.lo < c->lo)
				c->lo = k.lo;
			if (k.hi > c->hi)
				c->hi = k.hi;
			c->cpus |= k.cpus;
			c->count += k.count;
			f->samples += k.count;
			return 0;
		}
	}
	if (f->nchains == f->cap) {
		size_t cap = f->cap * 2 < f->limit ? f->cap * 2 : f->limit;

		if (cap <= f->cap)
			return -ENOSPC;
		if (fold_grow(f, cap) < 0)
			return -ENOMEM;
		i = fold_free_slot(f->slots, f->mask, &k);
	}
	if (fold_pool_room(f, k.ncallers) < 0)
		return -ENOMEM;
	c = &f->chains[f->nchains];
	*c = k;
	c->slot = (uint32_t)f->pool_used;
	c->callers = f->frames + c->slot;
	f->pool_used += k.ncallers;
	for (uint32_t j = 0; j < k.ncallers; j++)
		c->callers[j] = k.callers[j];
	f->slots[i] = (uint32_t)++f->nchains;
	f->samples += k.count;
	return 0;
}

int fold_add_cpu(struct fold *f, const struct prof_record *r, unsigned cpu)
{
	uintptr_t callers[PROF_MAX_FRAMES - 1];
	struct fold_chain k;

	fold_key(f, r, &k, callers);
	k.cpus = cpu < 32 ? 1u << cpu : 0;
	return fold_merge(f, &k);
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
	return a->pid < b->pid;
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
