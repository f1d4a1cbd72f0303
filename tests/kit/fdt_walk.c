/* SPDX-License-Identifier: BSD-2-Clause */
#include "fdt_walk.h"

#include <stdint.h>

#include "lib/errno.h"

static const char *const walk_props[] = {
	"compatible", "reg", "#address-cells", "#size-cells", "interrupts",
	"method", "bootargs", "device_type", "stdout-path", "enable-method",
};

static const char *const walk_compat[] = {
	"arm,pl011", "arm,cortex-a15-gic", "arm,gic-v3", "arm,armv8-timer",
	"arm,armv8-pmuv3", "virtio,mmio", "arm,psci-0.2",
};

static const char *const walk_paths[] = {
	"/", "/chosen", "/memory", "/psci", "/cpus/cpu@1", "/intc/v2m",
	"/cpus/cpu-map/socket0/cluster0/core3", "//chosen/", "/nothere",
};

static void walk_node(const struct fdt *f, int parent, int node,
		      struct fdt_walk_stats *st)
{
	uint64_t addr, size;
	uint32_t len;

	st->nodes++;
	if (!fdt_node_name(f, node))
		st->errors++;
	for (unsigned i = 0; i < sizeof(walk_props) / sizeof(walk_props[0]); i++)
		if (fdt_prop(f, node, walk_props[i], &len))
			st->props++;
	for (unsigned i = 0; i < sizeof(walk_compat) / sizeof(walk_compat[0]); i++)
		(void)fdt_compatible(f, node, walk_compat[i]);
	(void)fdt_address_cells(f, node);
	(void)fdt_size_cells(f, node);
	if (parent < 0)
		return;
	/* Bounded by the property's length; the cap only keeps a fuzz run
	 * quick on a reg of a megabyte. */
	for (unsigned i = 0; i < 1024 && fdt_reg(f, parent, node, i, &addr, &size); i++)
		st->regs++;
}

void fdt_walk_all(const struct fdt *f, struct fdt_walk_stats *st)
{
	int stack[FDT_MAX_DEPTH + 1];
	int depth = 0, node, next;
	uint64_t addr, size;

	*st = (struct fdt_walk_stats){ 0 };
	(void)fdt_check(f);
	node = fdt_root(f);
	if (node < 0) {
		st->errors++;
	} else {
		walk_node(f, -1, node, st);
		for (;;) {
			next = depth + 1 < FDT_MAX_DEPTH ? fdt_first_child(f, node) : -ENOENT;
			if (next == -EINVAL)
				st->errors++;
			if (next >= 0) {
				if (next <= node)
					st->order_broken = true;
				stack[depth++] = node;
				walk_node(f, node, next, st);
				node = next;
				if (st->order_broken)
					break;
				continue;
			}
			/* Up until a sibling turns up, or the root is reached. */
			while (depth > 0) {
				next = fdt_next_sibling(f, node);
				if (next >= 0)
					break;
				if (next == -EINVAL)
					st->errors++;
				node = stack[--depth];
			}
			if (depth == 0)
				break;
			if (next <= node) {
				st->order_broken = true;
				break;
			}
			walk_node(f, stack[depth - 1], next, st);
			node = next;
		}
	}
	for (unsigned i = 0; i < 64 && fdt_memreserve(f, i, &addr, &size); i++)
		st->memreserve++;
	for (unsigned i = 0; i < sizeof(walk_paths) / sizeof(walk_paths[0]); i++)
		(void)fdt_path(f, walk_paths[i]);
	for (unsigned i = 0; i < sizeof(walk_compat) / sizeof(walk_compat[0]); i++) {
		int prev = -1;

		while ((next = fdt_find_compatible(f, prev, walk_compat[i])) >= 0) {
			if (next <= prev) {
				st->order_broken = true;
				break;
			}
			prev = next;
		}
	}
}
