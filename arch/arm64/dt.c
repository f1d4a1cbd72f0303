/* SPDX-License-Identifier: BSD-2-Clause */
/* The device tree, read once at boot with the portable reader
 * (lib/fdt.h): RAM, the GIC, the CPUs, the PSCI conduit, the PL011, the
 * command line, the virtio-mmio slots, fw_cfg.  For an ELF -kernel QEMU enters with x0 = 0 and writes
 * the tree at the start of RAM (when it fits below the image); a loader
 * that passes one in x0 wins.  No tree, or a malformed one, is a panic
 * that says so, never a fault. */
#include "a64.h"

#include "kernel/kernel.h"
#include "lib/fdt.h"
#include "lib/kstring.h"

/* The command line is kept to this many bytes less one, as on x86. */
#define DT_CMDLINE_MAX	1024
/* Largest tree accepted at an address we were given (QEMU's is 1 MiB). */
#define DT_MAX_SIZE	(2u << 20)

struct a64_machine a64_machine;
static struct fdt dt;
static struct a64_vmmio_slot dt_vmmio[A64_VMMIO_MAX];
static unsigned dt_nvmmio, dt_vmmio_bad;
static char dt_cmdline[DT_CMDLINE_MAX];
static size_t dt_cmdline_given;

size_t a64_dt_cmdline_given(void);
size_t a64_dt_cmdline_given(void)
{
	return dt_cmdline_given;
}

/* The node whose child @node is: a walk down from the root, which the
 * reader bounds (every node it returns lies after the one it was given). */
static int dt_parent_below(int from, int node)
{
	for (int c = fdt_first_child(&dt, from); c >= 0; c = fdt_next_sibling(&dt, c)) {
		int p;

		if (c == node)
			return from;
		if (c > node)
			break;
		p = dt_parent_below(c, node);
		if (p >= 0)
			return p;
	}
	return -1;
}

static int dt_parent(int node)
{
	return dt_parent_below(fdt_root(&dt), node);
}

static bool dt_reg(int node, unsigned i, uint64_t *addr, uint64_t *size)
{
	int parent = dt_parent(node);

	return parent >= 0 && fdt_reg(&dt, parent, node, i, addr, size);
}

static bool dt_name_is(int node, const char *prefix)
{
	const char *name = fdt_node_name(&dt, node);
	size_t n = kstrlen(prefix);

	if (!name)
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] != prefix[i])
			return false;
	return name[n] == '\0' || name[n] == '@';
}

static bool dt_prop_is(int node, const char *prop, const char *want)
{
	uint32_t len;
	const char *v = fdt_prop(&dt, node, prop, &len);

	return v && len == kstrlen(want) + 1 && kmemcmp(v, want, len) == 0;
}

static void dt_read_memory(void)
{
	int root = fdt_root(&dt);

	for (int n = fdt_first_child(&dt, root); n >= 0; n = fdt_next_sibling(&dt, n)) {
		if (!dt_name_is(n, "memory") && !dt_prop_is(n, "device_type", "memory"))
			continue;
		for (unsigned i = 0; a64_machine.nram < 4; i++) {
			uint64_t addr, size;

			if (!fdt_reg(&dt, root, n, i, &addr, &size))
				break;
			a64_machine.ram_base[a64_machine.nram] = addr;
			a64_machine.ram_size[a64_machine.nram++] = size;
		}
	}
	if (!a64_machine.nram)
		panic("device tree: no memory node");
}

static void dt_read_gic(void)
{
	uint64_t a, b, s;
	int n = fdt_find_compatible(&dt, -1, "arm,gic-v3");

	if (n >= 0) {
		a64_machine.gic_version = 3;
		if (!dt_reg(n, 0, &a64_machine.gicd, &s) || !dt_reg(n, 1, &b, &s))
			panic("device tree: the gic-v3 node has no distributor and redistributor");
		a64_machine.gicr = (uintptr_t)b;
		return;
	}
	n = fdt_find_compatible(&dt, -1, "arm,cortex-a15-gic");
	if (n < 0)
		n = fdt_find_compatible(&dt, -1, "arm,gic-400");
	if (n < 0)
		panic("device tree: no GIC (arm,gic-v3, arm,cortex-a15-gic or arm,gic-400)");
	a64_machine.gic_version = 2;
	if (!dt_reg(n, 0, &a, &s) || !dt_reg(n, 1, &b, &s))
		panic("device tree: the gic-v2 node has no distributor and cpu interface");
	a64_machine.gicd = (uintptr_t)a;
	a64_machine.gicc = (uintptr_t)b;
}

/* /cpus/cpu@N: each one's MPIDR, its reg (#size-cells is 0 there, so
 * the cells are read here rather than with fdt_reg). */
static void dt_read_cpus(void)
{
	int cpus = fdt_path(&dt, "/cpus");
	uint32_t ac;

	if (cpus < 0)
		return;
	ac = fdt_address_cells(&dt, cpus);
	for (int n = fdt_first_child(&dt, cpus); n >= 0; n = fdt_next_sibling(&dt, n)) {
		uint32_t len;
		const void *reg;

		if (!dt_name_is(n, "cpu"))
			continue;
		reg = fdt_prop(&dt, n, "reg", &len);
		if (!reg || (ac != 1 && ac != 2) || len < ac * 4)
			continue;
		if (a64_machine.ncpus < 16)
			a64_machine.cpu_mpidr[a64_machine.ncpus++] = fdt_cells(reg, ac);
	}
}

static unsigned dt_gic_intid(int node, bool *edge);

/* The PMU's interrupt: arm,armv8-pmuv3's, a PPI (GIC binding: type 1,
 * number, flags), and its trigger from the flags, which gic.c programs.
 * None (`-cpu max,pmu=off`): no pseudo-NMI. */
static void dt_read_pmu(void)
{
	int n = fdt_find_compatible(&dt, -1, "arm,armv8-pmuv3");
	bool edge = false;
	unsigned intid = n >= 0 ? dt_gic_intid(n, &edge) : 0;

	if (intid < 16 || intid > 31)
		return;
	a64_machine.pmu_intid = intid;
	a64_machine.pmu_edge = edge;
}

static void dt_read_psci(void)
{
	int n = fdt_find_compatible(&dt, -1, "arm,psci-0.2");

	if (n < 0)
		n = fdt_find_compatible(&dt, -1, "arm,psci-1.0");
	if (n < 0)
		n = fdt_path(&dt, "/psci");
	if (n < 0)
		return;
	a64_machine.psci = true;
	a64_machine.psci_smc = dt_prop_is(n, "method", "smc");
}

static void dt_read_chosen(void)
{
	int n = fdt_path(&dt, "/chosen");
	uint32_t len = 0;
	const char *args = n >= 0 ? fdt_prop(&dt, n, "bootargs", &len) : NULL;
	size_t given;

	a64_machine.cmdline = dt_cmdline;
	if (!args || !len)
		return;
	given = kstrlen(args) < len ? kstrlen(args) : len;	/* NUL inside the value */
	dt_cmdline_given = given;
	if (given > DT_CMDLINE_MAX - 1)
		given = DT_CMDLINE_MAX - 1;
	kmemcpy(dt_cmdline, args, given);
	dt_cmdline[given] = '\0';
}

static void dt_read_uart(void)
{
	int n = fdt_find_compatible(&dt, -1, "arm,pl011");
	uint64_t addr, size;

	if (n >= 0 && dt_reg(n, 0, &addr, &size))
		a64_machine.uart = (uintptr_t)addr;
}

/* An "interrupts" property of the GIC's binding, three cells: type (0 SPI,
 * 1 PPI), number within the type, flags (bits 0-3 the trigger: 1 rising
 * edge, 4 high level; GICv2 puts the CPU mask above them).  The INTID,
 * or 0 when the property is not that. */
static unsigned dt_gic_intid(int node, bool *edge)
{
	uint32_t len;
	const uint8_t *v = fdt_prop(&dt, node, "interrupts", &len);
	uint32_t type, num, flags;

	if (!v || len != 12)
		return 0;
	type = fdt_be32(v);
	num = fdt_be32(v + 4);
	flags = fdt_be32(v + 8);
	*edge = (flags & 0xf) == 1 || (flags & 0xf) == 2;
	if (type == 0 && num < 988)
		return num + 32;
	if (type == 1 && num < 16)
		return num + 16;
	return 0;
}

/* Every "virtio,mmio" node, in the tree's order (QEMU's virt: 32 slots
 * from 0x0a000000, 0x200 apart, SPIs 16-47, the first -device in the
 * highest).  A node without a register window or an interrupt is counted
 * and left out. */
static void dt_read_virtio_mmio(void)
{
	for (int n = fdt_find_compatible(&dt, -1, "virtio,mmio"); n >= 0;
	     n = fdt_find_compatible(&dt, n, "virtio,mmio")) {
		struct a64_vmmio_slot *s;

		if (dt_nvmmio == A64_VMMIO_MAX)
			break;
		s = &dt_vmmio[dt_nvmmio];
		if (!dt_reg(n, 0, &s->base, &s->size) || s->size == 0 ||
		    !(s->intid = dt_gic_intid(n, &s->edge))) {
			dt_vmmio_bad++;
			continue;
		}
		dt_nvmmio++;
	}
}

bool a64_dt_virtio_mmio(unsigned i, struct a64_vmmio_slot *slot)
{
	if (i >= dt_nvmmio)
		return false;
	*slot = dt_vmmio[i];
	return true;
}

unsigned a64_dt_virtio_mmio_bad(void)
{
	return dt_vmmio_bad;
}

/* QEMU's firmware configuration device, "qemu,fw-cfg-mmio" (virt has
 * one at 0x09020000). */
static void dt_read_fw_cfg(void)
{
	int n = fdt_find_compatible(&dt, -1, "qemu,fw-cfg-mmio");
	uint64_t addr, size;

	if (n >= 0 && dt_reg(n, 0, &addr, &size) && size >= 0x10)
		a64_machine.fw_cfg = (uintptr_t)addr;
}

/* Where the tree is: x0 when the loader gave one, else the start of RAM
 * if a header is there. */
static const void *dt_locate(uintptr_t boot_x0, size_t *max)
{
	uintptr_t blob = boot_x0 ? boot_x0 : A64_DTB_DEFAULT;

	if (blob % 8 || blob < A64_RAM_BASE || blob >= (4ull << 30) - DT_MAX_SIZE) {
		if (boot_x0)
			panic("device tree: x0 = 0x%lx is not in mapped RAM", (unsigned long)blob);
		return NULL;
	}
	if (fdt_be32((const void *)blob) != FDT_MAGIC) {
		if (boot_x0)
			panic("device tree: no FDT magic at x0 = 0x%lx", (unsigned long)blob);
		return NULL;
	}
	*max = DT_MAX_SIZE;
	if (blob < (uintptr_t)__kernel_start && (uintptr_t)__kernel_start - blob < *max)
		*max = (uintptr_t)__kernel_start - blob;
	return (const void *)blob;
}

void a64_dt_read(uintptr_t boot_x0)
{
	size_t max = 0;
	const void *blob = dt_locate(boot_x0, &max);
	uint32_t total;

	if (!blob)
		panic("no device tree: x0 was 0 and none at 0x%x (QEMU writes it there only if it fits below the image)",
		      A64_DTB_DEFAULT);
	total = fdt_header_totalsize(blob);
	if (total > max)
		panic("device tree: totalsize %u does not fit in the %zu bytes it may take",
		      total, max);
	if (fdt_init(&dt, blob, max) < 0 || fdt_check(&dt) < 0)
		panic("device tree at 0x%lx is malformed", (unsigned long)(uintptr_t)blob);
	a64_machine.dtb = (uintptr_t)blob;
	a64_machine.dtb_size = total;
	dt_read_uart();
	a64_uart_init(a64_machine.uart);
	dt_read_chosen();
	dt_read_memory();
	dt_read_gic();
	dt_read_cpus();
	dt_read_psci();
	dt_read_virtio_mmio();
	dt_read_fw_cfg();
	dt_read_pmu();
}

bool a64_dt_memreserve(unsigned i, uint64_t *addr, uint64_t *size)
{
	return fdt_memreserve(&dt, i, addr, size);
}
