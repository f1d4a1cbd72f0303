/* SPDX-License-Identifier: BSD-2-Clause */
#include "lib/fdt.h"

#include "lib/errno.h"
#include "lib/kstring.h"

/* Structure block tokens (Devicetree Specification 0.4, 5.4.1). */
#define FDT_BEGIN_NODE 1u
#define FDT_END_NODE 2u
#define FDT_PROP 3u
#define FDT_NOP 4u
#define FDT_END 9u
#define FDT_TAG_BAD 0u		/* not a token: outside the block, or unknown */

/* Header sizes: version 17 added size_dt_struct. */
#define FDT_HDR_V16 36u
#define FDT_HDR_V17 40u

/* Node offsets are ints and offsets are added in 32 bits: no tree near
 * 2 GiB is ever met, so refuse anything above 1 GiB outright. */
#define FDT_SIZE_LIMIT (1u << 30)

/* One token of the structure block, as fdt_tag() found it. */
struct fdt_tok {
	uint32_t next;		/* offset of the token after it */
	const char *name;	/* BEGIN_NODE: the node's; PROP: the property's */
	const uint8_t *val;	/* PROP */
	uint32_t len;		/* PROP */
};

uint32_t fdt_be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

uint64_t fdt_cells(const void *p, unsigned n)
{
	const uint8_t *b = p;

	if (n == 1)
		return fdt_be32(b);
	if (n == 2)
		return (uint64_t)fdt_be32(b) << 32 | fdt_be32(b + 4);
	return 0;
}

uint32_t fdt_header_totalsize(const void *blob)
{
	return fdt_be32((const uint8_t *)blob + 4);
}

static uint32_t align4(uint32_t x)
{
	return (x + 3) & ~3u;
}

/* [off, off + size) inside [hdr, total): after the header, within the blob. */
static bool block_inside(uint32_t off, uint32_t size, uint32_t hdr,
			 uint32_t total)
{
	return off >= hdr && off <= total && size <= total - off;
}

int fdt_init(struct fdt *f, const void *blob, size_t max)
{
	const uint8_t *b = blob;
	uint32_t total, version, last, hdr;
	uint32_t struct_off, struct_size, strings_off, strings_size, rsvmap_off;

	if (!f || !b || max < FDT_HDR_V16 || fdt_be32(b) != FDT_MAGIC)
		return -EINVAL;
	total = fdt_be32(b + 4);
	version = fdt_be32(b + 20);
	last = fdt_be32(b + 24);
	if (version < 16 || last > 17)
		return -EINVAL;
	hdr = version >= 17 ? FDT_HDR_V17 : FDT_HDR_V16;
	if (total < hdr || total > max || total > FDT_SIZE_LIMIT)
		return -EINVAL;
	struct_off = fdt_be32(b + 8);
	strings_off = fdt_be32(b + 12);
	rsvmap_off = fdt_be32(b + 16);
	strings_size = fdt_be32(b + 32);
	if (version >= 17)
		struct_size = fdt_be32(b + 36);
	else	/* unknown: up to the end, FDT_END says where it stops */
		struct_size = struct_off <= total ? total - struct_off : 0;
	if (struct_off % 4 ||
	    !block_inside(struct_off, struct_size, hdr, total) ||
	    !block_inside(strings_off, strings_size, hdr, total) ||
	    !block_inside(rsvmap_off, 16, hdr, total))	/* the terminator */
		return -EINVAL;
	f->base = b;
	f->size = total;
	f->struct_off = struct_off;
	f->struct_size = struct_size;
	f->strings_off = strings_off;
	f->strings_size = strings_size;
	f->rsvmap_off = rsvmap_off;
	return 0;
}

/* The property name at @nameoff of the strings block, NUL inside it;
 * NULL when it is not. */
static const char *fdt_string(const struct fdt *f, uint32_t nameoff)
{
	const uint8_t *s;

	if (nameoff >= f->strings_size)
		return NULL;
	s = f->base + f->strings_off + nameoff;
	if (!kmemchr(s, 0, f->strings_size - nameoff))
		return NULL;
	return (const char *)s;
}

/* The token at @off of the structure block.  FDT_TAG_BAD when @off is
 * not a token offset inside the block, the tag is unknown, or what the
 * token holds (a node's name, a property's header, value and name) does
 * not lie inside its block.  t->next is always more than @off. */
static uint32_t fdt_tag(const struct fdt *f, int off, struct fdt_tok *t)
{
	const uint8_t *p, *nul;
	uint32_t o, tag, rest, nameoff;

	if (off < 0)
		return FDT_TAG_BAD;
	o = (uint32_t)off;
	if (o % 4 || o >= f->struct_size || f->struct_size - o < 4)
		return FDT_TAG_BAD;
	p = f->base + f->struct_off + o;
	tag = fdt_be32(p);
	rest = f->struct_size - o - 4;		/* bytes after the tag */
	t->next = o + 4;
	switch (tag) {
	case FDT_BEGIN_NODE:
		nul = kmemchr(p + 4, 0, rest);
		if (!nul)
			return FDT_TAG_BAD;
		t->name = (const char *)(p + 4);
		t->next = o + 4 + align4((uint32_t)(nul - (p + 4)) + 1);
		return tag;
	case FDT_PROP:
		if (rest < 8)
			return FDT_TAG_BAD;
		t->len = fdt_be32(p + 4);
		nameoff = fdt_be32(p + 8);
		if (t->len > rest - 8)
			return FDT_TAG_BAD;
		t->name = fdt_string(f, nameoff);
		if (!t->name)
			return FDT_TAG_BAD;
		t->val = p + 12;
		t->next = o + 12 + align4(t->len);
		return tag;
	case FDT_END_NODE:
	case FDT_NOP:
	case FDT_END:
		return tag;
	default:
		return FDT_TAG_BAD;
	}
}

int fdt_check(const struct fdt *f)
{
	/* Bit d: the open node at depth d has had a subnode, so no more
	 * properties. */
	uint64_t had_child = 0;
	int off = 0, depth = 0;
	bool root_done = false;
	struct fdt_tok t;

	for (;;) {
		switch (fdt_tag(f, off, &t)) {
		case FDT_NOP:
			break;
		case FDT_BEGIN_NODE:
			if (root_done || depth == FDT_MAX_DEPTH)
				return -EINVAL;
			had_child |= 1ull << depth;
			depth++;
			had_child &= ~(1ull << depth);
			break;
		case FDT_PROP:
			if (depth == 0 || (had_child >> depth & 1))
				return -EINVAL;
			break;
		case FDT_END_NODE:
			if (depth == 0)
				return -EINVAL;
			if (--depth == 0)
				root_done = true;
			break;
		case FDT_END:
			return root_done ? 0 : -EINVAL;
		default:
			return -EINVAL;
		}
		off = (int)t.next;
	}
}

/* The first token at or after @off that is not a NOP (nor, with
 * @props, a property); its tag in *tag. */
static int fdt_skip(const struct fdt *f, int off, bool props, uint32_t *tag)
{
	struct fdt_tok t;

	for (;;) {
		*tag = fdt_tag(f, off, &t);
		if (*tag != FDT_NOP && !(props && *tag == FDT_PROP))
			return off;
		off = (int)t.next;
	}
}

int fdt_root(const struct fdt *f)
{
	uint32_t tag;
	int off = fdt_skip(f, 0, false, &tag);

	return tag == FDT_BEGIN_NODE ? off : -EINVAL;
}

const char *fdt_node_name(const struct fdt *f, int node)
{
	struct fdt_tok t;

	return fdt_tag(f, node, &t) == FDT_BEGIN_NODE ? t.name : NULL;
}

int fdt_first_child(const struct fdt *f, int node)
{
	struct fdt_tok t;
	uint32_t tag;
	int off;

	if (fdt_tag(f, node, &t) != FDT_BEGIN_NODE)
		return -EINVAL;
	off = fdt_skip(f, (int)t.next, true, &tag);
	if (tag == FDT_BEGIN_NODE)
		return off;
	return tag == FDT_END_NODE ? -ENOENT : -EINVAL;
}

int fdt_next_sibling(const struct fdt *f, int node)
{
	struct fdt_tok t;
	uint32_t tag;
	int off = node, depth = 0;

	if (fdt_tag(f, node, &t) != FDT_BEGIN_NODE)
		return -EINVAL;
	/* Past the node's whole subtree, bounded in depth as fdt_check(). */
	do {
		switch (fdt_tag(f, off, &t)) {
		case FDT_BEGIN_NODE:
			if (++depth > FDT_MAX_DEPTH)
				return -EINVAL;
			break;
		case FDT_END_NODE:
			depth--;
			break;
		case FDT_PROP:
		case FDT_NOP:
			break;
		default:
			return -EINVAL;
		}
		off = (int)t.next;
	} while (depth > 0);
	off = fdt_skip(f, off, false, &tag);
	if (tag == FDT_BEGIN_NODE)
		return off;
	/* The parent's end, or after the root the end of the tree. */
	return tag == FDT_END_NODE || tag == FDT_END ? -ENOENT : -EINVAL;
}

/* Does node name @name match the path component @comp (@n bytes)? */
static bool fdt_name_matches(const char *name, const char *comp, size_t n)
{
	size_t len = kstrlen(name);	/* fdt_tag() found its NUL */

	if (len < n || kmemcmp(name, comp, n) != 0)
		return false;
	return name[n] == '\0' || (name[n] == '@' && !kmemchr(comp, '@', n));
}

int fdt_path(const struct fdt *f, const char *path)
{
	int node = fdt_root(f);

	if (node < 0)
		return node;
	if (!path || path[0] != '/')
		return -EINVAL;
	while (*path) {
		size_t n = 0;
		int child;

		while (*path == '/')
			path++;
		if (!*path)
			break;
		while (path[n] && path[n] != '/')
			n++;
		for (child = fdt_first_child(f, node); child >= 0;
		     child = fdt_next_sibling(f, child)) {
			const char *name = fdt_node_name(f, child);

			if (!name)
				return -EINVAL;
			if (fdt_name_matches(name, path, n))
				break;
		}
		if (child < 0)
			return child;
		node = child;
		path += n;
	}
	return node;
}

const void *fdt_prop(const struct fdt *f, int node, const char *name,
		     uint32_t *len)
{
	struct fdt_tok t;
	uint32_t tag;
	int off;

	if (fdt_tag(f, node, &t) != FDT_BEGIN_NODE)
		return NULL;
	for (off = (int)t.next; (tag = fdt_tag(f, off, &t)) == FDT_PROP ||
	     tag == FDT_NOP; off = (int)t.next) {
		if (tag == FDT_PROP && kstreq(t.name, name)) {
			if (len)
				*len = t.len;
			return t.val;
		}
	}
	return NULL;
}

bool fdt_prop_u32(const struct fdt *f, int node, const char *name,
		  uint32_t *val)
{
	uint32_t len;
	const void *p = fdt_prop(f, node, name, &len);

	if (!p || len != 4)
		return false;
	*val = fdt_be32(p);
	return true;
}

bool fdt_compatible(const struct fdt *f, int node, const char *compat)
{
	uint32_t len;
	const char *s = fdt_prop(f, node, "compatible", &len);
	size_t want = kstrlen(compat);

	if (!s)
		return false;
	while (len) {
		size_t n = kstrnlen(s, len);

		if (n == len)		/* the last string is not terminated */
			return false;
		if (n == want && kmemcmp(s, compat, n) == 0)
			return true;
		s += n + 1;
		len -= (uint32_t)n + 1;
	}
	return false;
}

int fdt_find_compatible(const struct fdt *f, int after, const char *compat)
{
	struct fdt_tok t;
	int off = 0;

	if (after >= 0) {
		if (fdt_tag(f, after, &t) != FDT_BEGIN_NODE)
			return -EINVAL;
		off = (int)t.next;
	}
	for (;;) {
		switch (fdt_tag(f, off, &t)) {
		case FDT_BEGIN_NODE:
			if (fdt_compatible(f, off, compat))
				return off;
			break;
		case FDT_END_NODE:
		case FDT_PROP:
		case FDT_NOP:
			break;
		case FDT_END:
			return -ENOENT;
		default:
			return -EINVAL;
		}
		off = (int)t.next;
	}
}

uint32_t fdt_address_cells(const struct fdt *f, int node)
{
	uint32_t v;

	return fdt_prop_u32(f, node, "#address-cells", &v) ? v : 2;
}

uint32_t fdt_size_cells(const struct fdt *f, int node)
{
	uint32_t v;

	return fdt_prop_u32(f, node, "#size-cells", &v) ? v : 1;
}

bool fdt_reg(const struct fdt *f, int parent, int node, unsigned i,
	     uint64_t *addr, uint64_t *size)
{
	uint32_t ac = fdt_address_cells(f, parent);
	uint32_t sc = fdt_size_cells(f, parent);
	const uint8_t *p;
	uint64_t entry, at;
	uint32_t len;

	if (ac < 1 || ac > 2 || sc < 1 || sc > 2)
		return false;
	p = fdt_prop(f, node, "reg", &len);
	if (!p)
		return false;
	entry = 4 * (uint64_t)(ac + sc);
	at = (uint64_t)i * entry;
	if (at + entry > len)
		return false;
	*addr = fdt_cells(p + at, ac);
	*size = fdt_cells(p + at + 4 * ac, sc);
	return true;
}

bool fdt_memreserve(const struct fdt *f, unsigned i, uint64_t *addr,
		    uint64_t *size)
{
	/* Entries up to i must all be inside the blob, none the terminator;
	 * at most totalsize / 16 of them. */
	for (uint64_t j = 0;; j++) {
		uint64_t at = f->rsvmap_off + 16 * j;
		uint64_t a, s;

		if (at + 16 > f->size)
			return false;
		a = fdt_cells(f->base + at, 2);
		s = fdt_cells(f->base + at + 8, 2);
		if (a == 0 && s == 0)
			return false;
		if (j == i) {
			*addr = a;
			*size = s;
			return true;
		}
	}
}
