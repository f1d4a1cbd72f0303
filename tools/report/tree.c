/* SPDX-License-Identifier: BSD-2-Clause */
/* The call tree (for flame graphs) and per-function counts (for top and
 * the diff's text). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static struct node *node_new(size_t name)
{
	struct node *n = xcalloc(1, sizeof *n);

	n->name = name;
	return n;
}

/* Children are kept sorted by name number; flame graphs order siblings
 * by name text (svg.c), which this order does not fix. */
static size_t child_pos(const struct node *n, size_t name, bool *found)
{
	size_t lo = 0, hi = n->nkids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (n->kids[mid]->name < name)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < n->nkids && n->kids[lo]->name == name;
	return lo;
}

struct node *tree_child(const struct node *n, size_t name)
{
	bool found;
	size_t pos = child_pos(n, name, &found);

	return found ? n->kids[pos] : NULL;
}

static struct node *child_get(struct node *n, size_t name)
{
	bool found;
	size_t pos = child_pos(n, name, &found);

	if (found)
		return n->kids[pos];
	if (n->nkids == n->cap) {
		n->cap = n->cap ? n->cap * 2 : 4;
		n->kids = xrealloc(n->kids, n->cap * sizeof *n->kids);
	}
	memmove(&n->kids[pos + 1], &n->kids[pos],
		(n->nkids - pos) * sizeof *n->kids);
	n->nkids++;
	return n->kids[pos] = node_new(name);
}

struct node *tree_build(const struct profile *p, size_t root_name)
{
	struct node *root = node_new(root_name);

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct stack *s = &p->stacks[i];
		struct node *n = root;

		uint64_t v = stack_value(p, s);

		root->total += v;
		for (size_t f = 0; f < s->nframes; f++) {
			n = child_get(n, s->frames[f]);
			n->total += v;
		}
		n->self += v;
	}
	return root;
}

/* A stack of nodes to visit: the walks below run on it, not on the C
 * stack, so that a stack of 100,000 frames (a hostile kernel's line)
 * takes heap, not a thread's 8 MiB (issue 51). */
struct node_stack {
	const struct node **n;
	unsigned *depth;
	size_t len, cap;
};

static void node_push(struct node_stack *st, const struct node *n, unsigned depth)
{
	if (st->len == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 64;
		st->n = xrealloc(st->n, st->cap * sizeof *st->n);
		st->depth = xrealloc(st->depth, st->cap * sizeof *st->depth);
	}
	st->n[st->len] = n;
	st->depth[st->len++] = depth;
}

unsigned tree_depth(const struct node *n)
{
	struct node_stack st = { 0 };
	unsigned d = 0;

	node_push(&st, n, 1);
	while (st.len) {
		const struct node *m = st.n[--st.len];
		unsigned k = st.depth[st.len];

		if (k > d)
			d = k;
		for (size_t i = 0; i < m->nkids; i++)
			node_push(&st, m->kids[i], k + 1);
	}
	free(st.n);
	free(st.depth);
	return d;
}

void func_counts(const struct profile *p, struct func_counts *fc)
{
	size_t n = p->names->n;
	size_t *seen = xcalloc(n, sizeof *seen);

	fc->n = n;
	fc->self = xcalloc(n, sizeof *fc->self);
	fc->total = xcalloc(n, sizeof *fc->total);
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct stack *s = &p->stacks[i];
		uint64_t v = stack_value(p, s);

		fc->self[s->frames[s->nframes - 1]] += v;
		/* A recursive function counts once per sample. */
		for (size_t f = 0; f < s->nframes; f++) {
			if (seen[s->frames[f]] == i + 1)
				continue;
			seen[s->frames[f]] = i + 1;
			fc->total[s->frames[f]] += v;
		}
	}
	free(seen);
}

void tree_free(struct node *n)
{
	struct node_stack st = { 0 };

	if (!n)
		return;
	node_push(&st, n, 0);
	while (st.len) {
		struct node *m = (struct node *)st.n[--st.len];

		for (size_t i = 0; i < m->nkids; i++)
			node_push(&st, m->kids[i], 0);
		free(m->kids);
		free(m);
	}
	free(st.n);
	free(st.depth);
}
