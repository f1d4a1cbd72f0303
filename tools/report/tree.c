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

		root->total += s->count;
		for (size_t f = 0; f < s->nframes; f++) {
			n = child_get(n, s->frames[f]);
			n->total += s->count;
		}
		n->self += s->count;
	}
	return root;
}

unsigned tree_depth(const struct node *n)
{
	unsigned d = 0;

	for (size_t i = 0; i < n->nkids; i++) {
		unsigned k = tree_depth(n->kids[i]);

		if (k > d)
			d = k;
	}
	return d + 1;
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

		fc->self[s->frames[s->nframes - 1]] += s->count;
		/* A recursive function counts once per sample. */
		for (size_t f = 0; f < s->nframes; f++) {
			if (seen[s->frames[f]] == i + 1)
				continue;
			seen[s->frames[f]] = i + 1;
			fc->total[s->frames[f]] += s->count;
		}
	}
	free(seen);
}

void tree_free(struct node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		tree_free(n->kids[i]);
	free(n->kids);
	free(n);
}
