/* SPDX-License-Identifier: BSD-2-Clause */
/* The device tree reader (src/lib/fdt.c) on QEMU's own virt trees
 * (tests/lib/fdt/, made by tests/lib/fdt/make-dtbs) and on hand-built trees,
 * well-formed and not.  Every blob sits in a heap block of exactly its
 * size, so a read past its end is an AddressSanitizer report in the
 * --enable-sanitizers build.  What the QEMU trees must hold comes from
 * QEMU's hw/arm/virt.c (7.2): the memory node at 0x40000000 of -m bytes,
 * the PL011 at 0x09000000, the GIC at 0x08000000, the timer's PPIs 13,
 * 14, 11, 10, the PMU's PPI 7, 32 virtio-mmio slots from 0x0a000000. */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "fdt_walk.h"
#include "lib/errno.h"
#include "lib/fdt.h"

/* --- QEMU's trees ---------------------------------------------------------- */

struct qemu_dtb {
	const char *file;
	uint64_t mem;		/* -m */
	int gic;		/* gic-version */
	const char *psci;	/* the conduit: hvc, smc with virtualization=on */
	const char *bootargs;	/* -append, NULL without */
};

static const struct qemu_dtb qemu_dtbs[] = {
	{ "qemu-virt-gicv2.dtb", 128u << 20, 2, "hvc", NULL },
	{ "qemu-virt-gicv3.dtb", 256u << 20, 3, "hvc", NULL },
	{ "qemu-virt-el2.dtb", 512u << 20, 3, "smc", NULL },
	{ "qemu-virt-bootargs.dtb", 128u << 20, 2, "hvc", "cmd=help" },
};
#define NQEMU ((int)(sizeof(qemu_dtbs) / sizeof(qemu_dtbs[0])))

/* Nodes in each, root included: `dtc -I dtb -O dts FILE | grep -c '{'`. */
#define QEMU_NODES 62

/* A file of tests/lib/fdt/ in a heap block of exactly its size. */
static uint8_t *load_dtb(const char *name, size_t *size)
{
	char path[1024];
	FILE *fp;
	long n;
	uint8_t *buf;

	snprintf(path, sizeof(path), "%s/tests/lib/fdt/%s", KP_TEST_SRCDIR, name);
	fp = fopen(path, "rb");
	ck_assert_msg(fp != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	ck_assert_int_gt(n, 0);
	rewind(fp);
	buf = malloc((size_t)n);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*size = (size_t)n;
	return buf;
}

static uint8_t *qemu_blob;
static size_t qemu_size;
static struct fdt qf;

static const struct qemu_dtb *open_qemu(int i)
{
	qemu_blob = load_dtb(qemu_dtbs[i].file, &qemu_size);
	ck_assert_int_eq(fdt_init(&qf, qemu_blob, qemu_size), 0);
	return &qemu_dtbs[i];
}

static void close_qemu(void)
{
	free(qemu_blob);
	qemu_blob = NULL;
}

/* The only node compatible with @compat. */
static int only_compatible(const struct fdt *f, const char *compat)
{
	int node = fdt_find_compatible(f, -1, compat);

	ck_assert_msg(node >= 0, "no %s node", compat);
	ck_assert_int_eq(fdt_find_compatible(f, node, compat), -ENOENT);
	return node;
}

static void assert_reg(const struct fdt *f, int node, unsigned i,
		       uint64_t addr, uint64_t size)
{
	uint64_t a = 0, s = 0;

	ck_assert_msg(fdt_reg(f, fdt_root(f), node, i, &a, &s), "no reg %u", i);
	ck_assert_uint_eq(a, addr);
	ck_assert_uint_eq(s, size);
}

/* Cell @i of property @name, which must have at least i + 1 cells. */
static uint32_t cell(const struct fdt *f, int node, const char *name, unsigned i)
{
	uint32_t len;
	const uint8_t *p = fdt_prop(f, node, name, &len);

	ck_assert_msg(p != NULL, "no %s", name);
	ck_assert_uint_gt(len, 4 * i + 3);
	return fdt_be32(p + 4 * i);
}

static const char *prop_str(const struct fdt *f, int node, const char *name)
{
	uint32_t len;
	const char *p = fdt_prop(f, node, name, &len);

	if (!p)
		return NULL;
	ck_assert_uint_gt(len, 0);
	ck_assert_int_eq(p[len - 1], '\0');
	return p;
}

CHECK_LOOP_TEST("qemu", test_qemu_header_accepted_and_well_formed, 0, NQEMU)
{
	open_qemu(_i);
	ck_assert_uint_eq(fdt_header_totalsize(qemu_blob), qemu_size);
	ck_assert_uint_eq(qf.size, qemu_size);
	ck_assert_int_eq(fdt_check(&qf), 0);
	ck_assert_int_eq(fdt_root(&qf), 0);
	ck_assert_str_eq(fdt_node_name(&qf, 0), "");
	/* One byte short of totalsize is refused, without reading past it. */
	ck_assert_int_eq(fdt_init(&qf, qemu_blob, qemu_size - 1), -EINVAL);
	close_qemu();
}
END_TEST

CHECK_LOOP_TEST("qemu", test_qemu_walk_visits_every_node_without_error,
		0, NQEMU)
{
	struct fdt_walk_stats st;

	open_qemu(_i);
	fdt_walk_all(&qf, &st);
	ck_assert_uint_eq(st.nodes, QEMU_NODES);
	ck_assert_uint_eq(st.errors, 0);
	ck_assert(!st.order_broken);
	ck_assert_uint_eq(st.memreserve, 0);	/* QEMU reserves nothing */
	close_qemu();
}
END_TEST

CHECK_LOOP_TEST("qemu", test_qemu_padded_to_one_mib_as_qemu_leaves_it, 0, NQEMU)
{
	/* QEMU's tree at 0x40000000 says totalsize 1 MiB, the rest zero. */
	const size_t mib = 1u << 20;
	uint8_t *big;
	uint64_t a, s;
	int mem;

	open_qemu(_i);
	big = calloc(1, mib);
	ck_assert_ptr_nonnull(big);
	memcpy(big, qemu_blob, qemu_size);
	big[4] = 0x00, big[5] = 0x10, big[6] = 0, big[7] = 0;
	ck_assert_uint_eq(fdt_header_totalsize(big), mib);
	ck_assert_int_eq(fdt_init(&qf, big, mib - 1), -EINVAL);
	ck_assert_int_eq(fdt_init(&qf, big, mib), 0);
	ck_assert_int_eq(fdt_check(&qf), 0);
	mem = fdt_path(&qf, "/memory");
	ck_assert_int_ge(mem, 0);
	ck_assert(fdt_reg(&qf, fdt_root(&qf), mem, 0, &a, &s));
	ck_assert_uint_eq(a, 0x40000000);
	ck_assert_uint_eq(s, qemu_dtbs[_i].mem);
	ck_assert(!fdt_memreserve(&qf, 0, &a, &s));
	free(big);
	close_qemu();
}
END_TEST

CHECK_LOOP_TEST("qemu", test_qemu_memory_is_minus_m_at_1_gib, 0, NQEMU)
{
	const struct qemu_dtb *q = open_qemu(_i);
	int mem = fdt_path(&qf, "/memory");

	ck_assert_int_ge(mem, 0);
	ck_assert_int_eq(fdt_path(&qf, "/memory@40000000"), mem);
	ck_assert_str_eq(fdt_node_name(&qf, mem), "memory@40000000");
	ck_assert_str_eq(prop_str(&qf, mem, "device_type"), "memory");
	ck_assert_uint_eq(fdt_address_cells(&qf, fdt_root(&qf)), 2);
	ck_assert_uint_eq(fdt_size_cells(&qf, fdt_root(&qf)), 2);
	assert_reg(&qf, mem, 0, 0x40000000, q->mem);
	ck_assert(!fdt_reg(&qf, fdt_root(&qf), mem, 1, &(uint64_t){ 0 },
			   &(uint64_t){ 0 }));
	close_qemu();
}
END_TEST

CHECK_LOOP_TEST("qemu", test_qemu_pl011_at_0x09000000, 0, NQEMU)
{
	int uart;

	open_qemu(_i);
	uart = only_compatible(&qf, "arm,pl011");
	ck_assert(fdt_compatible(&qf, uart, "arm,primecell"));
	ck_assert(!fdt_compatible(&qf, uart, "arm,pl01"));
	ck_assert_str_eq(fdt_node_name(&qf, uart), "pl011@9000000");
	assert_reg(&qf, uart, 0, 0x09000000, 0x1000);
	/* SPI 1, level high. */
	ck_assert_uint_eq(cell(&qf, uart, "interrupts", 0), 0);
	ck_assert_uint_eq(cell(&qf, uart, "interrupts", 1), 1);
	/* /chosen names it as the console, by a path with its unit. */
	ck_assert_str_eq(prop_str(&qf, fdt_path(&qf, "/chosen"), "stdout-path"),
			 "/pl011@9000000");
	ck_assert_int_eq(fdt_path(&qf, "/pl011@9000000"), uart);
	close_qemu();
}
END_TEST

CHECK_LOOP_TEST("qemu", test_qemu_gic_version_and_addresses, 0, NQEMU)
{
	const struct qemu_dtb *q = open_qemu(_i);
	int gic;

	if (q->gic == 2) {
		gic = only_compatible(&qf, "arm,cortex-a15-gic");
		ck_assert_int_eq(fdt_find_compatible(&qf, -1, "arm,gic-v3"), -ENOENT);
		assert_reg(&qf, gic, 0, 0x08000000, 0x10000);	/* distributor */
		assert_reg(&qf, gic, 1, 0x08010000, 0x10000);	/* cpu interface */
		ck_assert_int_ge(fdt_path(&qf, "/intc/v2m"), 0);
	} else {
		gic = only_compatible(&qf, "arm,gic-v3");
		ck_assert_int_eq(fdt_find_compatible(&qf, -1, "arm,cortex-a15-gic"),
				 -ENOENT);
		assert_reg(&qf, gic, 0, 0x08000000, 0x10000);	/* distributor */
		assert_reg(&qf, gic, 1, 0x080a0000, 0xf60000);	/* redistributors */
		ck_assert_int_ge(fdt_path(&qf, "/intc/its"), 0);
	}
	ck_assert(!fdt_reg(&qf, fdt_root(&qf), gic, 2, &(uint64_t){ 0 },
			   &(uint64_t){ 0 }));
	ck_assert_int_eq(fdt_path(&qf, "/intc"), gic);
	ck_assert_int_eq(fdt_path(&qf, "/intc@8000000"), gic);
	ck_assert_int_eq(fdt_path(&qf, "/intc@8000001"), -ENOENT);
	ck_assert_ptr_nonnull(fdt_prop(&qf, gic, "interrupt-controller", NULL));
	ck_assert_uint_eq(cell(&qf, gic, "#interrupt-cells", 0), 3);
	/* The root's interrupt-parent is the GIC's phandle. */
	ck_assert_uint_eq(cell(&qf, fdt_root(&qf), "interrupt-parent", 0),
			  cell(&qf, gic, "phandle", 0));
	close_qemu();
}
END_TEST

CHECK_LOOP_TEST("qemu", test_qemu_timer_ppis_and_pmu_ppi, 0, NQEMU)
{
	const struct qemu_dtb *q = open_qemu(_i);
	/* GICv2 flags carry the CPU mask of -smp 4 in bits 8-15. */
	uint32_t flags = q->gic == 2 ? 0xf04 : 0x04;
	static const uint32_t ppi[] = { 13, 14, 11, 10 };	/* INTID 29 30 27 26 */
	uint32_t len;
	int timer = only_compatible(&qf, "arm,armv8-timer");
	int pmu = only_compatible(&qf, "arm,armv8-pmuv3");

	ck_assert(fdt_compatible(&qf, timer, "arm,armv7-timer"));
	ck_assert_ptr_nonnull(fdt_prop(&qf, timer, "interrupts", &len));
	ck_assert_uint_eq(len, 4 * 12);
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_uint_eq(cell(&qf, timer, "interrupts", 3 * i), 1);	/* PPI */
		ck_assert_uint_eq(cell(&qf, timer, "interrupts", 3 * i + 1), ppi[i]);
		ck_assert_uint_eq(cell(&qf, timer, "interrupts", 3 * i + 2), flags);
	}
	/* Virtual timer INTID 27, physical 30 (doc: platform facts). */
	ck_assert_uint_eq(16 + cell(&qf, timer, "interrupts", 7), 27);
	ck_assert_uint_eq(16 + cell(&qf, timer, "interrupts", 4), 30);
	ck_assert_ptr_nonnull(fdt_prop(&qf, pmu, "interrupts", &len));
	ck_assert_uint_eq(len, 12);
	ck_assert_uint_eq(cell(&qf, pmu, "interrupts", 0), 1);
	ck_assert_uint_eq(16 + cell(&qf, pmu, "interrupts", 1), 23);
	ck_assert_uint_eq(cell(&qf, pmu, "interrupts", 2), flags);
	close_qemu();
}
END_TEST

CHECK_LOOP_TEST("qemu", test_qemu_psci_conduit, 0, NQEMU)
{
	const struct qemu_dtb *q = open_qemu(_i);
	int psci = fdt_path(&qf, "/psci");
	uint32_t v;

	ck_assert_int_ge(psci, 0);
	ck_assert(fdt_compatible(&qf, psci, "arm,psci-0.2"));
	ck_assert(fdt_compatible(&qf, psci, "arm,psci-1.0"));
	ck_assert(fdt_compatible(&qf, psci, "arm,psci"));
	ck_assert_int_eq(fdt_find_compatible(&qf, -1, "arm,psci-0.2"), psci);
	ck_assert_str_eq(prop_str(&qf, psci, "method"), q->psci);
	ck_assert(fdt_prop_u32(&qf, psci, "cpu_on", &v));
	ck_assert_uint_eq(v, 0xc4000003);
	ck_assert(!fdt_prop_u32(&qf, psci, "compatible", &v));	/* not one cell */
	close_qemu();
}
END_TEST

CHECK_LOOP_TEST("qemu", test_qemu_32_virtio_mmio_slots, 0, NQEMU)
{
	uint32_t seen = 0;
	unsigned n = 0;
	int node = -1;

	open_qemu(_i);
	while ((node = fdt_find_compatible(&qf, node, "virtio,mmio")) >= 0) {
		uint64_t a, s;
		unsigned slot;

		ck_assert(fdt_reg(&qf, fdt_root(&qf), node, 0, &a, &s));
		ck_assert_uint_ge(a, 0x0a000000);
		ck_assert_uint_lt(a, 0x0a000000 + 32 * 0x200);
		ck_assert_uint_eq((a - 0x0a000000) % 0x200, 0);
		ck_assert_uint_eq(s, 0x200);
		slot = (unsigned)((a - 0x0a000000) / 0x200);
		ck_assert_msg(!(seen >> slot & 1), "slot %u twice", slot);
		seen |= 1u << slot;
		/* SPI 16 + slot, edge rising. */
		ck_assert_uint_eq(cell(&qf, node, "interrupts", 0), 0);
		ck_assert_uint_eq(cell(&qf, node, "interrupts", 1), 16 + slot);
		ck_assert_uint_eq(cell(&qf, node, "interrupts", 2), 1);
		n++;
	}
	ck_assert_int_eq(node, -ENOENT);
	ck_assert_uint_eq(n, 32);
	ck_assert_uint_eq(seen, 0xffffffffu);
	/* The highest slot, where -device virtio-net-device lands. */
	ck_assert_int_ge(fdt_path(&qf, "/virtio_mmio@a003e00"), 0);
	close_qemu();
}
END_TEST

CHECK_LOOP_TEST("qemu", test_qemu_chosen_bootargs_only_with_append, 0, NQEMU)
{
	const struct qemu_dtb *q = open_qemu(_i);
	int chosen = fdt_path(&qf, "/chosen");

	ck_assert_int_ge(chosen, 0);
	if (q->bootargs)
		ck_assert_str_eq(prop_str(&qf, chosen, "bootargs"), q->bootargs);
	else
		ck_assert_ptr_null(fdt_prop(&qf, chosen, "bootargs", NULL));
	/* No cells stated: the defaults. */
	ck_assert_uint_eq(fdt_address_cells(&qf, chosen), 2);
	ck_assert_uint_eq(fdt_size_cells(&qf, chosen), 1);
	close_qemu();
}
END_TEST

CHECK_LOOP_TEST("qemu", test_qemu_cpus_and_paths, 0, NQEMU)
{
	int cpus, cpu, n = 0;
	uint64_t a, s;

	open_qemu(_i);
	cpus = fdt_path(&qf, "/cpus");
	ck_assert_int_ge(cpus, 0);
	ck_assert_uint_eq(fdt_address_cells(&qf, cpus), 1);
	ck_assert_uint_eq(fdt_size_cells(&qf, cpus), 0);
	for (cpu = fdt_first_child(&qf, cpus); cpu >= 0;
	     cpu = fdt_next_sibling(&qf, cpu)) {
		char want[16];

		if (strcmp(fdt_node_name(&qf, cpu), "cpu-map") == 0)
			continue;
		snprintf(want, sizeof(want), "cpu@%d", n);
		ck_assert_str_eq(fdt_node_name(&qf, cpu), want);
		ck_assert_str_eq(prop_str(&qf, cpu, "enable-method"), "psci");
		ck_assert_uint_eq(cell(&qf, cpu, "reg", 0), (uint32_t)n);
		/* #size-cells 0: fdt_reg takes 1 or 2 cells only. */
		ck_assert(!fdt_reg(&qf, cpus, cpu, 0, &a, &s));
		n++;
	}
	ck_assert_int_eq(cpu, -ENOENT);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(fdt_path(&qf, "/"), 0);
	ck_assert_int_eq(fdt_path(&qf, "//"), 0);
	ck_assert_int_ge(fdt_path(&qf, "/cpus/cpu-map/socket0/cluster0/core3"), 0);
	ck_assert_int_eq(fdt_path(&qf, "/cpus/cpu"), fdt_path(&qf, "/cpus/cpu@0"));
	ck_assert_int_eq(fdt_path(&qf, "/chosen/"), fdt_path(&qf, "/chosen"));
	ck_assert_int_eq(fdt_path(&qf, "/cpus/cpu@4"), -ENOENT);
	ck_assert_int_eq(fdt_path(&qf, "/nothere"), -ENOENT);
	ck_assert_int_eq(fdt_path(&qf, "/chos"), -ENOENT);
	ck_assert_int_eq(fdt_path(&qf, "chosen"), -EINVAL);
	ck_assert_int_eq(fdt_path(&qf, ""), -EINVAL);
	ck_assert_int_eq(fdt_find_compatible(&qf, -1, "no,such-device"), -ENOENT);
	close_qemu();
}
END_TEST

/* Every way to cut the structure block short (the header still inside
 * the blob): no FDT_END, so fdt_check refuses it; the walk reads only
 * what is left and stays in order. */
CHECK_LOOP_TEST("damaged", test_qemu_struct_cut_anywhere_refused, 0, NQEMU)
{
	struct fdt_walk_stats st;
	uint32_t full;

	open_qemu(_i);
	full = qf.struct_size;
	for (uint32_t cut = 0; cut < full; cut++) {
		qf.struct_size = cut;
		ck_assert_msg(fdt_check(&qf) == -EINVAL, "cut at %u", cut);
		if (cut % 16 == 0 || cut + 64 > full) {
			fdt_walk_all(&qf, &st);
			ck_assert(!st.order_broken);
		}
	}
	close_qemu();
}
END_TEST

/* Every truncation of the blob itself: refused by the header check. */
CHECK_LOOP_TEST("damaged", test_qemu_truncated_blob_refused, 0, NQEMU)
{
	open_qemu(_i);
	for (size_t n = 0; n < qemu_size; n++) {
		uint8_t *cut = malloc(n ? n : 1);
		struct fdt f;

		memcpy(cut, qemu_blob, n);
		ck_assert_int_eq(fdt_init(&f, cut, n), -EINVAL);
		if (n >= 8) {	/* and with totalsize saying the cut size */
			cut[4] = (uint8_t)(n >> 24), cut[5] = (uint8_t)(n >> 16);
			cut[6] = (uint8_t)(n >> 8), cut[7] = (uint8_t)n;
			ck_assert_int_eq(fdt_init(&f, cut, n), -EINVAL);
		}
		free(cut);
	}
	close_qemu();
}
END_TEST

/* Random byte damage to a real tree: whatever the answers, no read
 * outside the blob, no walk out of order.  A fixed seed: the same trees
 * every run. */
CHECK_LOOP_TEST("damaged", test_qemu_random_damage_never_reads_outside,
		0, NQEMU)
{
	uint32_t seed = 12345u + (uint32_t)_i;
	unsigned refused = 0, checked_ok = 0;

	open_qemu(_i);
	for (unsigned round = 0; round < 400; round++) {
		uint8_t *b = malloc(qemu_size);
		struct fdt_walk_stats st;
		struct fdt f;
		unsigned flips;

		memcpy(b, qemu_blob, qemu_size);
		seed = seed * 1103515245u + 12345u;
		flips = 1 + (seed >> 16) % 4;
		for (unsigned k = 0; k < flips; k++) {
			seed = seed * 1103515245u + 12345u;
			b[(seed >> 8) % qemu_size] ^= (uint8_t)(1u << (seed >> 28) % 8);
		}
		if (fdt_init(&f, b, qemu_size) != 0) {
			refused++;
		} else {
			fdt_walk_all(&f, &st);
			ck_assert(!st.order_broken);
			if (fdt_check(&f) == 0) {
				checked_ok++;
				ck_assert_uint_eq(st.errors, 0);
			}
		}
		free(b);
	}
	ck_assert_uint_gt(checked_ok, 0);
	(void)refused;
	close_qemu();
}
END_TEST

/* --- hand-built trees --------------------------------------------------- */

#define FDT_BEGIN_NODE 1
#define FDT_END_NODE 2
#define FDT_PROP 3
#define FDT_NOP 4
#define FDT_END 9

/* Header field offsets. */
#define H_TOTAL 4
#define H_STRUCT 8
#define H_STRINGS 12
#define H_RSVMAP 16
#define H_VERSION 20
#define H_LASTCOMP 24
#define H_STRINGS_SIZE 32
#define H_STRUCT_SIZE 36

struct tb {
	uint8_t s[1 << 16];	/* structure block */
	size_t slen;
	char str[1024];		/* strings block */
	size_t strlen;
	uint64_t rsv[8][2];
	unsigned nrsv;
};

static struct tb tb;

static void tb_reset(void)
{
	memset(&tb, 0, sizeof(tb));
}

static void tb_u32(uint32_t v)
{
	ck_assert_uint_le(tb.slen + 4, sizeof(tb.s));
	tb.s[tb.slen++] = (uint8_t)(v >> 24);
	tb.s[tb.slen++] = (uint8_t)(v >> 16);
	tb.s[tb.slen++] = (uint8_t)(v >> 8);
	tb.s[tb.slen++] = (uint8_t)v;
}

static void tb_bytes(const void *p, size_t n)
{
	ck_assert_uint_le(tb.slen + n + 3, sizeof(tb.s));
	memcpy(tb.s + tb.slen, p, n);
	tb.slen += n;
	while (tb.slen % 4)
		tb.s[tb.slen++] = 0;
}

static void tb_begin(const char *name)
{
	tb_u32(FDT_BEGIN_NODE);
	tb_bytes(name, strlen(name) + 1);
}

static void tb_end(void)
{
	tb_u32(FDT_END_NODE);
}

/* The offset of @name in the strings block, added when new. */
static uint32_t tb_string(const char *name)
{
	size_t n = strlen(name) + 1;

	for (size_t off = 0; off < tb.strlen; off += strlen(tb.str + off) + 1)
		if (strcmp(tb.str + off, name) == 0)
			return (uint32_t)off;
	ck_assert_uint_le(tb.strlen + n, sizeof(tb.str));
	memcpy(tb.str + tb.strlen, name, n);
	tb.strlen += n;
	return (uint32_t)(tb.strlen - n);
}

static void tb_prop(const char *name, const void *val, uint32_t len)
{
	tb_u32(FDT_PROP);
	tb_u32(len);
	tb_u32(tb_string(name));
	tb_bytes(val, len);
}

static void tb_prop_str(const char *name, const char *s)
{
	tb_prop(name, s, (uint32_t)strlen(s) + 1);
}

static void tb_prop_cells(const char *name, unsigned n, ...)
{
	uint8_t v[64];
	va_list ap;

	ck_assert_uint_le(n, 16);
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++) {
		uint32_t c = va_arg(ap, uint32_t);

		v[4 * i] = (uint8_t)(c >> 24), v[4 * i + 1] = (uint8_t)(c >> 16);
		v[4 * i + 2] = (uint8_t)(c >> 8), v[4 * i + 3] = (uint8_t)c;
	}
	va_end(ap);
	tb_prop(name, v, 4 * n);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

/* The tree built so far as a blob (header, memreserve entries and their
 * terminator, structure, strings) in a heap block of exactly its size. */
static uint8_t *tb_blob(size_t *size)
{
	size_t rsv = 40, st = rsv + 16 * (tb.nrsv + 1), str = st + tb.slen;
	size_t total = str + tb.strlen;
	uint8_t *b = calloc(1, total);

	ck_assert_ptr_nonnull(b);
	put32(b, FDT_MAGIC);
	put32(b + H_TOTAL, (uint32_t)total);
	put32(b + H_STRUCT, (uint32_t)st);
	put32(b + H_STRINGS, (uint32_t)str);
	put32(b + H_RSVMAP, (uint32_t)rsv);
	put32(b + H_VERSION, 17);
	put32(b + H_LASTCOMP, 16);
	put32(b + H_STRINGS_SIZE, (uint32_t)tb.strlen);
	put32(b + H_STRUCT_SIZE, (uint32_t)tb.slen);
	for (unsigned i = 0; i < tb.nrsv; i++) {
		put64(b + rsv + 16 * i, tb.rsv[i][0]);
		put64(b + rsv + 16 * i + 8, tb.rsv[i][1]);
	}
	memcpy(b + st, tb.s, tb.slen);
	memcpy(b + str, tb.str, tb.strlen);
	*size = total;
	return b;
}

/* A small good tree: root { #address-cells 1, #size-cells 1;
 * dev@1000 { compatible "vendor,dev" "generic"; reg <0x1000 0x100 0x2000
 * 0x200>; } sub { leaf {} } }. */
static void tb_small(bool with_end)
{
	tb_reset();
	tb_begin("");
	tb_prop_cells("#address-cells", 1, 1);
	tb_prop_cells("#size-cells", 1, 1);
	tb_begin("dev@1000");
	tb_prop("compatible", "vendor,dev\0generic", 19);
	tb_prop_cells("reg", 4, 0x1000, 0x100, 0x2000, 0x200);
	tb_end();
	tb_begin("sub");
	tb_begin("leaf");
	tb_end();
	tb_end();
	tb_end();
	if (with_end)
		tb_u32(FDT_END);
}

/* Every read the walk makes, on a blob whose fdt_init passed. */
static struct fdt_walk_stats walk_blob(const uint8_t *b, size_t size)
{
	struct fdt_walk_stats st;
	struct fdt f;

	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	fdt_walk_all(&f, &st);
	ck_assert(!st.order_broken);
	return st;
}

CHECK_TEST("built", test_small_tree_answers)
{
	size_t size;
	uint8_t *b;
	struct fdt f;
	int root, dev, sub;
	uint64_t a, s;

	tb_small(true);
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), 0);
	root = fdt_root(&f);
	dev = fdt_first_child(&f, root);
	ck_assert_str_eq(fdt_node_name(&f, dev), "dev@1000");
	sub = fdt_next_sibling(&f, dev);
	ck_assert_str_eq(fdt_node_name(&f, sub), "sub");
	ck_assert_int_eq(fdt_next_sibling(&f, sub), -ENOENT);
	ck_assert_int_eq(fdt_next_sibling(&f, root), -ENOENT);
	ck_assert_int_eq(fdt_first_child(&f, dev), -ENOENT);
	ck_assert_str_eq(fdt_node_name(&f, fdt_first_child(&f, sub)), "leaf");
	ck_assert_int_eq(fdt_path(&f, "/sub/leaf"), fdt_first_child(&f, sub));
	ck_assert_int_eq(fdt_path(&f, "/dev"), dev);
	ck_assert(fdt_compatible(&f, dev, "vendor,dev"));
	ck_assert(fdt_compatible(&f, dev, "generic"));
	ck_assert(!fdt_compatible(&f, dev, "gener"));
	ck_assert(!fdt_compatible(&f, dev, ""));
	ck_assert(!fdt_compatible(&f, sub, "generic"));
	ck_assert_int_eq(fdt_find_compatible(&f, -1, "generic"), dev);
	ck_assert_int_eq(fdt_find_compatible(&f, dev, "generic"), -ENOENT);
	ck_assert(fdt_reg(&f, root, dev, 0, &a, &s));
	ck_assert_uint_eq(a, 0x1000);
	ck_assert_uint_eq(s, 0x100);
	ck_assert(fdt_reg(&f, root, dev, 1, &a, &s));
	ck_assert_uint_eq(a, 0x2000);
	ck_assert_uint_eq(s, 0x200);
	ck_assert(!fdt_reg(&f, root, dev, 2, &a, &s));
	ck_assert(!fdt_reg(&f, root, dev, UINT32_MAX, &a, &s));
	/* Read with the defaults (2, 1) of a parent that states none. */
	ck_assert(fdt_reg(&f, sub, dev, 0, &a, &s));
	ck_assert_uint_eq(a, 0x100000000100ull);
	ck_assert_uint_eq(s, 0x2000);
	ck_assert(!fdt_reg(&f, sub, dev, 1, &a, &s));
	/* Not nodes: every function answers an error. */
	ck_assert_int_eq(fdt_first_child(&f, 4), -EINVAL);
	ck_assert_int_eq(fdt_next_sibling(&f, -1), -EINVAL);
	ck_assert_int_eq(fdt_next_sibling(&f, 1 << 20), -EINVAL);
	ck_assert_ptr_null(fdt_node_name(&f, 2));
	ck_assert_ptr_null(fdt_prop(&f, -4, "reg", NULL));
	ck_assert_int_eq(fdt_find_compatible(&f, 8, "generic"), -EINVAL);
	free(b);
}
END_TEST

CHECK_TEST("built", test_header_checks)
{
	size_t size;
	uint8_t *b, *c;
	struct fdt f;

	tb_small(true);
	b = tb_blob(&size);
	c = malloc(size);
#define FRESH() memcpy(c, b, size)
	FRESH();
	ck_assert_int_eq(fdt_init(&f, c, size), 0);
	ck_assert_int_eq(fdt_init(&f, NULL, size), -EINVAL);
	ck_assert_int_eq(fdt_init(&f, c, 35), -EINVAL);
	c[0] ^= 1;				/* bad magic */
	ck_assert_int_eq(fdt_init(&f, c, size), -EINVAL);
	FRESH();
	put32(c + H_VERSION, 15);
	ck_assert_int_eq(fdt_init(&f, c, size), -EINVAL);
	FRESH();
	put32(c + H_VERSION, 16);		/* no size_dt_struct: ends at FDT_END */
	ck_assert_int_eq(fdt_init(&f, c, size), 0);
	ck_assert_int_eq(fdt_check(&f), 0);
	ck_assert_int_ge(fdt_path(&f, "/sub/leaf"), 0);
	FRESH();
	put32(c + H_VERSION, 20);		/* newer, still compatible with 16 */
	ck_assert_int_eq(fdt_init(&f, c, size), 0);
	put32(c + H_LASTCOMP, 18);
	ck_assert_int_eq(fdt_init(&f, c, size), -EINVAL);
	FRESH();
	put32(c + H_TOTAL, (uint32_t)size + 1);	/* more than there is */
	ck_assert_int_eq(fdt_init(&f, c, size), -EINVAL);
	put32(c + H_TOTAL, 39);			/* less than its header */
	ck_assert_int_eq(fdt_init(&f, c, size), -EINVAL);
	FRESH();
	put32(c + H_STRUCT, fdt_be32(c + H_STRUCT) + 2);	/* misaligned */
	put32(c + H_STRUCT_SIZE, 8);
	ck_assert_int_eq(fdt_init(&f, c, size), -EINVAL);
	FRESH();
	/* Into the strings block is still inside the blob; past it is not. */
	put32(c + H_STRUCT_SIZE, (uint32_t)size - fdt_be32(c + H_STRUCT));
	ck_assert_int_eq(fdt_init(&f, c, size), 0);
	put32(c + H_STRUCT_SIZE, (uint32_t)size - fdt_be32(c + H_STRUCT) + 4);
	ck_assert_int_eq(fdt_init(&f, c, size), -EINVAL);
	FRESH();
	put32(c + H_STRUCT, 0xfffffff0);
	ck_assert_int_eq(fdt_init(&f, c, size), -EINVAL);
	FRESH();
	put32(c + H_STRUCT, 8);			/* inside the header */
	ck_assert_int_eq(fdt_init(&f, c, size), -EINVAL);
	FRESH();
	put32(c + H_STRINGS_SIZE, fdt_be32(c + H_STRINGS_SIZE) + 1);
	ck_assert_int_eq(fdt_init(&f, c, size), -EINVAL);
	FRESH();
	put32(c + H_STRINGS, 0xffffff00);
	put32(c + H_STRINGS_SIZE, 0x200);	/* wraps in 32 bits */
	ck_assert_int_eq(fdt_init(&f, c, size), -EINVAL);
	FRESH();
	put32(c + H_RSVMAP, (uint32_t)size - 8);	/* no room for the terminator */
	ck_assert_int_eq(fdt_init(&f, c, size), -EINVAL);
#undef FRESH
	free(c);
	free(b);
}
END_TEST

CHECK_TEST("built", test_nop_tokens_skipped_everywhere)
{
	size_t size;
	uint8_t *b;
	struct fdt f;
	int dev;
	uint64_t a, s;

	tb_reset();
	tb_u32(FDT_NOP);
	tb_begin("");
	tb_u32(FDT_NOP);
	tb_prop_cells("#address-cells", 1, 1);
	tb_u32(FDT_NOP);
	tb_prop_cells("#size-cells", 1, 1);
	tb_u32(FDT_NOP);
	tb_begin("a");
	tb_u32(FDT_NOP);
	tb_end();
	tb_u32(FDT_NOP);
	tb_begin("dev@1");
	tb_u32(FDT_NOP);
	tb_prop_str("compatible", "x,y");
	tb_u32(FDT_NOP);
	tb_prop_cells("reg", 2, 0x10, 0x20);
	tb_end();
	tb_u32(FDT_NOP);
	tb_end();
	tb_u32(FDT_NOP);
	tb_u32(FDT_END);
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), 0);
	ck_assert_int_eq(fdt_root(&f), 4);
	dev = fdt_find_compatible(&f, -1, "x,y");
	ck_assert_int_eq(fdt_path(&f, "/dev"), dev);
	ck_assert_int_eq(fdt_next_sibling(&f, fdt_path(&f, "/a")), dev);
	ck_assert(fdt_reg(&f, fdt_root(&f), dev, 0, &a, &s));
	ck_assert_uint_eq(a, 0x10);
	ck_assert_uint_eq(s, 0x20);
	ck_assert_uint_eq(walk_blob(b, size).nodes, 3);
	free(b);
}
END_TEST

CHECK_TEST("built", test_no_fdt_end_refused)
{
	size_t size;
	uint8_t *b;
	struct fdt f;
	struct fdt_walk_stats st;

	tb_small(false);
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	ck_assert_int_eq(fdt_next_sibling(&f, fdt_root(&f)), -EINVAL);
	ck_assert_int_eq(fdt_find_compatible(&f, -1, "none"), -EINVAL);
	/* Everything inside the root still answers. */
	ck_assert_int_ge(fdt_path(&f, "/sub/leaf"), 0);
	st = walk_blob(b, size);
	ck_assert_uint_eq(st.nodes, 4);
	free(b);
}
END_TEST

CHECK_TEST("built", test_string_offset_out_of_range_refused)
{
	/* Added to the block's size: at its end, past it, far past it. */
	static const uint32_t bad[] = { 0, 1, 0x7fffffff, 0xfffffff0 };
	size_t size;
	uint8_t *b;
	struct fdt f;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tb_reset();
		tb_begin("");
		tb_prop_str("model", "m");
		tb_u32(FDT_PROP);
		tb_u32(4);
		tb_u32(0);		/* patched below */
		tb_u32(0x12345678);
		tb_begin("child");
		tb_end();
		tb_end();
		tb_u32(FDT_END);
		/* The name offset: the strings block's size plus @bad[i]. */
		put32(tb.s + 4 + 4 + 4 * 3 + 4 + 4 + 4, (uint32_t)tb.strlen + bad[i]);
		b = tb_blob(&size);
		ck_assert_int_eq(fdt_init(&f, b, size), 0);
		ck_assert_int_eq(fdt_check(&f), -EINVAL);
		ck_assert_ptr_nonnull(fdt_prop(&f, 0, "model", NULL));
		ck_assert_ptr_null(fdt_prop(&f, 0, "other", NULL));
		ck_assert_int_eq(fdt_first_child(&f, 0), -EINVAL);
		ck_assert_int_eq(fdt_next_sibling(&f, 0), -EINVAL);
		ck_assert_int_eq(fdt_path(&f, "/child"), -EINVAL);
		walk_blob(b, size);
		free(b);
	}
}
END_TEST

CHECK_TEST("built", test_string_without_nul_refused)
{
	size_t size;
	uint8_t *b;
	struct fdt f;

	tb_reset();
	tb_begin("");
	tb_prop_str("abc", "v");
	tb_end();
	tb_u32(FDT_END);
	tb.strlen--;		/* "abc" loses its NUL: the block ends on 'c' */
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	ck_assert_ptr_null(fdt_prop(&f, 0, "abc", NULL));
	walk_blob(b, size);
	free(b);
}
END_TEST

CHECK_TEST("built", test_property_length_past_block_refused)
{
	static const uint32_t extra[] = { 1, 4, 0x1000, 0x7ffffff0, 0xffffffe0 };
	size_t size;
	uint8_t *b;
	struct fdt f;

	for (unsigned i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
		tb_reset();
		tb_begin("");
		tb_prop_cells("reg", 2, 1, 2);
		tb_end();
		tb_u32(FDT_END);
		/* The value's 8 bytes and what is left (END_NODE, END), plus. */
		put32(tb.s + 12, 8 + 8 + extra[i]);
		b = tb_blob(&size);
		ck_assert_int_eq(fdt_init(&f, b, size), 0);
		ck_assert_int_eq(fdt_check(&f), -EINVAL);
		ck_assert_ptr_null(fdt_prop(&f, 0, "reg", NULL));
		ck_assert_int_eq(fdt_next_sibling(&f, 0), -EINVAL);
		walk_blob(b, size);
		free(b);
	}
	/* Exactly to the end of the block is a length, if not a tree. */
	tb_reset();
	tb_begin("");
	tb_prop_cells("reg", 2, 1, 2);
	tb_end();
	tb_u32(FDT_END);
	put32(tb.s + 12, 16);
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_ptr_nonnull(fdt_prop(&f, 0, "reg", NULL));
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	free(b);
}
END_TEST

CHECK_TEST("built", test_unterminated_name_refused)
{
	size_t size;
	uint8_t *b;
	struct fdt f;

	/* The root's name runs to the end of the block. */
	tb_reset();
	tb_u32(FDT_BEGIN_NODE);
	tb_bytes("abcdefgh", 8);
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	ck_assert_int_eq(fdt_root(&f), -EINVAL);
	ck_assert_ptr_null(fdt_node_name(&f, 0));
	ck_assert_int_eq(fdt_path(&f, "/"), -EINVAL);
	walk_blob(b, size);
	free(b);
	/* A child's name does. */
	tb_reset();
	tb_begin("");
	tb_u32(FDT_BEGIN_NODE);
	tb_bytes("childname", 9);
	tb.s[tb.slen - 3] = 'x';	/* the padding too: no NUL left */
	tb.s[tb.slen - 2] = 'x';
	tb.s[tb.slen - 1] = 'x';
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	ck_assert_int_eq(fdt_first_child(&f, 0), -EINVAL);
	ck_assert_ptr_null(fdt_node_name(&f, 8));
	walk_blob(b, size);
	free(b);
}
END_TEST

/* @depth nodes, each inside the last. */
static uint8_t *tb_nested(unsigned depth, size_t *size)
{
	tb_reset();
	for (unsigned i = 0; i < depth; i++)
		tb_begin(i ? "n" : "");
	for (unsigned i = 0; i < depth; i++)
		tb_end();
	tb_u32(FDT_END);
	return tb_blob(size);
}

CHECK_TEST("built", test_nesting_deeper_than_limit_refused)
{
	size_t size;
	uint8_t *b;
	struct fdt f;
	struct fdt_walk_stats st;

	b = tb_nested(FDT_MAX_DEPTH, &size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), 0);
	ck_assert_int_eq(fdt_next_sibling(&f, 0), -ENOENT);
	free(b);

	b = tb_nested(FDT_MAX_DEPTH + 1, &size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	ck_assert_int_eq(fdt_next_sibling(&f, 0), -EINVAL);
	/* One level down, the rest is within the limit. */
	ck_assert_int_eq(fdt_next_sibling(&f, 8), -ENOENT);
	st = walk_blob(b, size);
	ck_assert_uint_eq(st.nodes, FDT_MAX_DEPTH);
	free(b);

	/* Thousands deep: every answer bounded. */
	b = tb_nested(5000, &size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	ck_assert_int_eq(fdt_next_sibling(&f, 0), -EINVAL);
	ck_assert_int_eq(fdt_find_compatible(&f, -1, "x"), -ENOENT);
	walk_blob(b, size);
	free(b);
}
END_TEST

CHECK_TEST("built", test_bad_structure_refused)
{
	size_t size;
	uint8_t *b;
	struct fdt f;

	/* An unknown token. */
	tb_small(true);
	put32(tb.s + tb.slen - 8, 5);	/* the root's END_NODE */
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	ck_assert_int_eq(fdt_next_sibling(&f, 0), -EINVAL);
	walk_blob(b, size);
	free(b);
	/* A property after a subnode, and one outside the root. */
	tb_reset();
	tb_begin("");
	tb_begin("a");
	tb_end();
	tb_prop_str("late", "x");
	tb_end();
	tb_u32(FDT_END);
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	ck_assert_int_eq(fdt_next_sibling(&f, fdt_path(&f, "/a")), -EINVAL);
	free(b);
	tb_reset();
	tb_prop_str("early", "x");
	tb_begin("");
	tb_end();
	tb_u32(FDT_END);
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	ck_assert_int_eq(fdt_root(&f), -EINVAL);
	free(b);
	/* An END_NODE too many, a second root, FDT_END inside the root. */
	tb_small(false);
	tb_end();
	tb_u32(FDT_END);
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	free(b);
	tb_small(false);
	tb_begin("");
	tb_end();
	tb_u32(FDT_END);
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	free(b);
	tb_reset();
	tb_begin("");
	tb_u32(FDT_END);
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	ck_assert_int_eq(fdt_first_child(&f, 0), -EINVAL);
	ck_assert_int_eq(fdt_find_compatible(&f, -1, "x"), -ENOENT);
	free(b);
	/* An empty structure block. */
	tb_reset();
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), -EINVAL);
	ck_assert_int_eq(fdt_root(&f), -EINVAL);
	walk_blob(b, size);
	free(b);
}
END_TEST

CHECK_TEST("built", test_memreserve_entries_until_terminator)
{
	size_t size;
	uint8_t *b;
	struct fdt f;
	uint64_t a, s;

	tb_small(true);
	tb.rsv[0][0] = 0x40000000, tb.rsv[0][1] = 0x100000;
	tb.rsv[1][0] = 0x123456789000ull, tb.rsv[1][1] = 0x1000;
	tb.nrsv = 2;
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert(fdt_memreserve(&f, 0, &a, &s));
	ck_assert_uint_eq(a, 0x40000000);
	ck_assert_uint_eq(s, 0x100000);
	ck_assert(fdt_memreserve(&f, 1, &a, &s));
	ck_assert_uint_eq(a, 0x123456789000ull);
	ck_assert_uint_eq(s, 0x1000);
	ck_assert(!fdt_memreserve(&f, 2, &a, &s));
	ck_assert(!fdt_memreserve(&f, UINT32_MAX, &a, &s));
	ck_assert_uint_eq(walk_blob(b, size).memreserve, 2);
	/* The map moved to the last 16 bytes (the strings): no terminator
	 * before the end of the blob, nothing read past it. */
	put32(b + H_RSVMAP, (uint32_t)size - 16);
	memset(b + size - 16, 0xff, 16);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert(fdt_memreserve(&f, 0, &a, &s));
	ck_assert_uint_eq(a, UINT64_MAX);
	ck_assert(!fdt_memreserve(&f, 1, &a, &s));
	free(b);
}
END_TEST

CHECK_TEST("built", test_reg_cell_counts)
{
	static const struct { uint32_t ac, sc; bool ok; } cases[] = {
		{ 1, 1, true }, { 1, 2, true }, { 2, 1, true }, { 2, 2, true },
		{ 0, 1, false }, { 1, 0, false }, { 3, 1, false }, { 2, 3, false },
		{ 0xffffffff, 1, false }, { 0x80000001, 0x80000001, false },
	};
	size_t size;
	uint8_t *b;
	struct fdt f;

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t a = 0, s = 0;
		uint64_t want_a, want_s;

		tb_reset();
		tb_begin("");
		tb_prop_cells("#address-cells", 1, cases[i].ac);
		tb_prop_cells("#size-cells", 1, cases[i].sc);
		tb_begin("d");
		/* Five cells: enough for one entry of any accepted shape. */
		tb_prop_cells("reg", 5, 0x11, 0x22, 0x33, 0x44, 0x55);
		tb_end();
		tb_end();
		tb_u32(FDT_END);
		b = tb_blob(&size);
		ck_assert_int_eq(fdt_init(&f, b, size), 0);
		ck_assert_uint_eq(fdt_address_cells(&f, 0), cases[i].ac);
		ck_assert_uint_eq(fdt_size_cells(&f, 0), cases[i].sc);
		ck_assert(fdt_reg(&f, 0, fdt_path(&f, "/d"), 0, &a, &s) == cases[i].ok);
		if (cases[i].ok) {
			want_a = cases[i].ac == 1 ? 0x11 : 0x1100000022ull;
			want_s = cases[i].sc == 1 ? (cases[i].ac == 1 ? 0x22 : 0x33)
				 : (cases[i].ac == 1 ? 0x2200000033ull : 0x3300000044ull);
			ck_assert_uint_eq(a, want_a);
			ck_assert_uint_eq(s, want_s);
			/* A second entry would need more than five cells
			 * (1+1 fits twice: 0x33, 0x44). */
			ck_assert(fdt_reg(&f, 0, fdt_path(&f, "/d"), 1, &a, &s) ==
				  (cases[i].ac + cases[i].sc == 2));
		}
		walk_blob(b, size);
		free(b);
	}
}
END_TEST

CHECK_TEST("built", test_compatible_list_edges)
{
	size_t size;
	uint8_t *b;
	struct fdt f;

	tb_reset();
	tb_begin("");
	tb_begin("unterminated");
	tb_prop("compatible", "foo\0bar", 7);	/* "bar" without its NUL */
	tb_end();
	tb_begin("empty");
	tb_prop("compatible", "", 0);
	tb_end();
	tb_begin("blank");
	tb_prop("compatible", "\0\0x", 4);
	tb_end();
	tb_end();
	tb_u32(FDT_END);
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ck_assert_int_eq(fdt_check(&f), 0);
	ck_assert(fdt_compatible(&f, fdt_path(&f, "/unterminated"), "foo"));
	ck_assert(!fdt_compatible(&f, fdt_path(&f, "/unterminated"), "bar"));
	ck_assert(!fdt_compatible(&f, fdt_path(&f, "/empty"), ""));
	ck_assert(fdt_compatible(&f, fdt_path(&f, "/blank"), ""));
	ck_assert(fdt_compatible(&f, fdt_path(&f, "/blank"), "x"));
	ck_assert_int_eq(fdt_find_compatible(&f, -1, "foo"),
			 fdt_path(&f, "/unterminated"));
	ck_assert_int_eq(fdt_find_compatible(&f, -1, "bar"), -ENOENT);
	free(b);
}
END_TEST

CHECK_TEST("built", test_path_matches_unit_addresses)
{
	size_t size;
	uint8_t *b;
	struct fdt f;
	int a1, a2, ab;

	tb_reset();
	tb_begin("");
	tb_begin("ab");
	tb_end();
	tb_begin("a@1");
	tb_end();
	tb_begin("a@2");
	tb_begin("b");
	tb_end();
	tb_end();
	tb_begin("a");
	tb_end();
	tb_end();
	tb_u32(FDT_END);
	b = tb_blob(&size);
	ck_assert_int_eq(fdt_init(&f, b, size), 0);
	ab = fdt_first_child(&f, 0);
	a1 = fdt_next_sibling(&f, ab);
	a2 = fdt_next_sibling(&f, a1);
	ck_assert_int_eq(fdt_path(&f, "/a"), a1);	/* first match, not "ab" */
	ck_assert_int_eq(fdt_path(&f, "/ab"), ab);
	ck_assert_int_eq(fdt_path(&f, "/a@2"), a2);
	ck_assert_int_eq(fdt_path(&f, "/a@2/b"), fdt_first_child(&f, a2));
	ck_assert_int_eq(fdt_path(&f, "/a/b"), -ENOENT);	/* a@1 has none */
	ck_assert_int_eq(fdt_path(&f, "/a@3"), -ENOENT);
	ck_assert_int_eq(fdt_path(&f, "/a@"), -ENOENT);
	ck_assert_int_eq(fdt_path(&f, "/@1"), -ENOENT);
	ck_assert_int_eq(fdt_path(&f, "/a@1/"), a1);
	free(b);
}
END_TEST

CHECK_TEST("built", test_be32_and_cells_unaligned)
{
	static const uint8_t v[] = { 0xff, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc,
				     0xde, 0xf0, 0x01 };

	ck_assert_uint_eq(fdt_be32(v + 1), 0x12345678);
	ck_assert_uint_eq(fdt_cells(v + 1, 1), 0x12345678);
	ck_assert_uint_eq(fdt_cells(v + 1, 2), 0x123456789abcdef0ull);
	ck_assert_uint_eq(fdt_cells(v + 1, 0), 0);
	ck_assert_uint_eq(fdt_cells(v + 1, 3), 0);
	ck_assert_uint_eq(fdt_header_totalsize(v), 0x789abcde);
}
END_TEST

CHECK_CASE("damaged", NULL, NULL, 60);

int main(void)
{
	return check_run(check_suite("fdt", NULL, 0));
}
