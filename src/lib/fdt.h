/* SPDX-License-Identifier: BSD-2-Clause */
/* A read-only flattened device tree (DTB) reader, bounds-checked on every
 * read: a malformed tree gives an error value, never a read outside the
 * blob, never an endless loop.  Freestanding, integer-only, no state
 * beyond struct fdt.
 *
 * Nodes are named by the offset of their FDT_BEGIN_NODE token in the
 * structure block; every node a function returns lies strictly after the
 * node it was given, so a caller's walk always ends.  Negative values are
 * errors: -ENOENT for "none", -EINVAL for a malformed tree. */
#ifndef KPROF_LIB_FDT_H
#define KPROF_LIB_FDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FDT_MAGIC 0xd00dfeedu

/* Deepest nesting accepted, the root being depth 1 (QEMU's virt tree
 * reaches 6, at /cpus/cpu-map/socket0/cluster0/coreN). */
#define FDT_MAX_DEPTH 32

struct fdt {                       /* filled by fdt_init(); treat as opaque */
	const uint8_t *base;
	uint32_t size;                 /* totalsize */
	uint32_t struct_off, struct_size, strings_off, strings_size, rsvmap_off;
};

/* Check the header: magic, version >= 16 with last_comp_version <= 17,
 * totalsize <= @max, every block inside totalsize, struct block 4-byte
 * aligned.  Reads nothing outside [blob, blob + @max).  0, or -EINVAL. */
int fdt_init(struct fdt *f, const void *blob, size_t max);

/* The whole structure block, once: every token known and inside the
 * block, names terminated, property names inside the strings block,
 * properties before subnodes, nodes balanced and at most FDT_MAX_DEPTH
 * deep, FDT_END after the root.  0, or -EINVAL.  Not needed for safety
 * (every function below checks what it reads), but a tree that passes
 * answers every question, so a kernel calls it once, after fdt_init(),
 * and panics with one clear message when it fails. */
int fdt_check(const struct fdt *f);

/* The header's totalsize (big-endian field at offset 4), for the caller
 * to check before fdt_init.  Reads bytes 4-7 of @blob. */
uint32_t fdt_header_totalsize(const void *blob);

int fdt_root(const struct fdt *f);
int fdt_first_child(const struct fdt *f, int node);
int fdt_next_sibling(const struct fdt *f, int node);
/* "intc@8000000"; NULL if malformed. */
const char *fdt_node_name(const struct fdt *f, int node);

/* "/", "/chosen", "/psci"; a component without "@unit" matches a node
 * whose name before '@' equals it (first match). */
int fdt_path(const struct fdt *f, const char *path);

/* The property's value and length, or NULL. */
const void *fdt_prop(const struct fdt *f, int node, const char *name,
		     uint32_t *len);
/* A property of exactly one cell; false when absent or of another size. */
bool fdt_prop_u32(const struct fdt *f, int node, const char *name,
		  uint32_t *val);

/* True when the node's "compatible" string list holds @compat. */
bool fdt_compatible(const struct fdt *f, int node, const char *compat);
/* The next node, in document order after @after (-1: from the start),
 * whose compatible holds @compat; negative when none. */
int fdt_find_compatible(const struct fdt *f, int after, const char *compat);

/* #address-cells / #size-cells that @node states for its children
 * (defaults 2 and 1). */
uint32_t fdt_address_cells(const struct fdt *f, int node);
uint32_t fdt_size_cells(const struct fdt *f, int node);

/* The @i-th (address, size) pair of @node's "reg", read with @parent's
 * cell counts (1 or 2 cells each; others rejected). */
bool fdt_reg(const struct fdt *f, int parent, int node, unsigned i,
	     uint64_t *addr, uint64_t *size);

/* The @i-th /memreserve/ entry; false past the last (the all-zero
 * terminator) or when malformed. */
bool fdt_memreserve(const struct fdt *f, unsigned i, uint64_t *addr,
		    uint64_t *size);

/* Big-endian cell at @p (unaligned ok), and @n (1 or 2) cells as one
 * number (0 for any other @n). */
uint32_t fdt_be32(const void *p);
uint64_t fdt_cells(const void *p, unsigned n);

#endif
