/* SPDX-License-Identifier: BSD-2-Clause */
/* Folding and the report text, pinned by golden files in tests/prof/golden/.
 * Records are built here, as the sampler would store them. */
#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "prof_testlib.h"
#include "prof/fold.h"
#include "prof/fold_test.h"
#include "lib/errno.h"
#include "prof/profiler.h"
#include "prof/report.h"
#include "prof/report_test.h"
#include "lib/out.h"
#include "check_main.h"

#define MAX_RECS 8192
/* Ends the frames given to add(): a vararg must be a full word. */
#define END ((uintptr_t)0)

static struct prof_record recs[MAX_RECS];
static size_t nrecs;
static char text[1 << 17];

static void setup(void)
{
	nrecs = 0;
	pt_use_symbols();
}

/* @times samples of @pid with frames (frame 0 first), 0-terminated. */
static void add(int pid, unsigned times, uintptr_t ip, ...)
{
	struct prof_record r = { .pid = pid, .nframes = 1, .frames = { ip } };
	va_list ap;
	uintptr_t ra;

	va_start(ap, ip);
	while ((ra = va_arg(ap, uintptr_t)) != 0 && r.nframes < PROF_MAX_FRAMES)
		r.frames[r.nframes++] = ra;
	va_end(ap);
	for (unsigned i = 0; i < times; i++) {
		ck_assert_uint_lt(nrecs, MAX_RECS);
		recs[nrecs++] = r;
	}
}

/* Print the records as one run: the first @split on cpu 0, the rest on
 * cpu 1 (with @dropped1 dropped there). */
static const char *print(int pid, unsigned chains, size_t split,
			 uint64_t dropped1, const char *source, bool counter)
{
	struct prof_segment segs[2] = {
		{ 0, recs, split, 0 },
		{ 1, recs + split, nrecs - split, dropped1 },
	};
	struct prof_report_in in = {
		.window_ns = 2000000000ull,
		.source = source,
		.counter = counter,
		.pid = pid,
		.chains = chains,
		.segs = segs,
		.nsegs = 2,
	};
	struct out_buf ob;

	out_buf_init(&ob, text, sizeof(text));
	ck_assert_int_eq(prof_report_print(&ob.out, &in), 0);
	ck_assert_uint_eq(ob.lost, 0);
	return text;
}

#define NFC(off) (PT_NET_FRAME_COPY + (off))
#define VNR(off) (PT_VIRTIO_NET_RX + (off))

CHECK_TEST("golden", test_report_spans_and_exact_callers)
{
	/* One leaf symbol at three offsets under one exact caller chain:
	 * one chain, its span 0x1a..0x3e. */
	add(3, 3, PT_MEMCPY + 0x1a, NFC(0x44), VNR(0x1b2), END);
	add(3, 2, PT_MEMCPY + 0x3e, NFC(0x44), VNR(0x1b2), END);
	add(4, 1, PT_MEMCPY + 0x20, NFC(0x44), VNR(0x1b2), END);
	/* The same leaf under another call site of net_frame_copy. */
	add(3, 2, PT_MEMCPY + 0x1a, NFC(0x50), VNR(0x1b2), END);
	/* A call that ends udp_input returns to cpu_idle's first byte: it
	 * still prints as udp_input. */
	add(5, 4, PT_SPIN_LOCK + 0x8, PT_UDP_INPUT + 0x100, END);
	add(1, 2, PT_CPU_IDLE + 0x4, END);
	ck_assert(pt_golden_equal("spans_callers.txt",
				  print(PROF_PID_ALL, 8, 7, 3, "pmu/nmi intel fixed-ctr1", true)));
}
END_TEST

CHECK_TEST("golden", test_report_orders_hottest_then_ties_by_address)
{
	/* Equal counts: lower leaf address first, then the shorter chain,
	 * then the lower return addresses. */
	add(1, 2, PT_UDP_INPUT + 0x10, VNR(0x30), END);
	add(1, 2, PT_SPIN_LOCK + 0x4, VNR(0x30), END);
	add(1, 2, PT_SPIN_LOCK + 0x4, VNR(0x20), END);
	add(1, 2, PT_SPIN_LOCK + 0x4, END);
	add(1, 5, PT_CPU_IDLE, END);
	add(1, 2, PT_SPIN_LOCK + 0x4, VNR(0x20), NFC(0x10), END);
	ck_assert(pt_golden_equal("ordering.txt",
				  print(PROF_PID_ALL, 8, 4, 0, "tick 100hz", false)));
}
END_TEST

CHECK_TEST("golden", test_report_order_independent_of_input_order)
{
	char first[sizeof(text)];

	add(1, 2, PT_UDP_INPUT + 0x10, VNR(0x30), END);
	add(1, 2, PT_SPIN_LOCK + 0x4, VNR(0x30), END);
	add(1, 2, PT_SPIN_LOCK + 0x4, VNR(0x20), END);
	strcpy(first, print(PROF_PID_ALL, 8, 3, 0, "tick 100hz", false));
	/* Reverse the records. */
	for (size_t i = 0; i < nrecs / 2; i++) {
		struct prof_record t = recs[i];

		recs[i] = recs[nrecs - 1 - i];
		recs[nrecs - 1 - i] = t;
	}
	ck_assert_str_eq(print(PROF_PID_ALL, 8, 3, 0, "tick 100hz", false), first);
}
END_TEST

CHECK_TEST("golden", test_report_pid_filter_percentages)
{
	add(7, 30, PT_MEMCPY + 0x10, NFC(0x44), END);
	add(12, 2, PT_MEMCPY + 0x10, NFC(0x44), END);
	add(12, 1, PT_SPIN_LOCK + 0x8, PT_UDP_INPUT + 0x20, END);
	add(7, 10, PT_SPIN_LOCK + 0x8, PT_UDP_INPUT + 0x20, END);
	/* cpu 1 holds only pid 7: it does not count as contributing. */
	ck_assert(pt_golden_equal("pid_filter.txt",
				  print(12, 8, 33, 0, "tick 100hz", false)));
}
END_TEST

CHECK_TEST("golden", test_report_chain_count_limits_lines)
{
	add(1, 50, PT_MEMCPY + 0x1, END);
	add(1, 40, PT_NET_FRAME_COPY + 0x2, END);
	add(1, 30, PT_VIRTIO_NET_RX + 0x3, END);
	add(1, 20, PT_SPIN_LOCK + 0x4, END);
	add(1, 10, PT_UDP_INPUT + 0x5, END);
	ck_assert(pt_golden_equal("chain_count.txt",
				  print(PROF_PID_ALL, 2, 150, 0, "tick 100hz", false)));
}
END_TEST

CHECK_TEST("golden", test_report_one_more_chain_singular)
{
	add(1, 3, PT_MEMCPY + 0x1, END);
	add(1, 1, PT_SPIN_LOCK + 0x4, END);
	print(PROF_PID_ALL, 1, 4, 0, "tick 100hz", false);
	ck_assert_ptr_nonnull(strstr(text, "\n+ 1 more chain holding 1 sample (25.0%)\n"));
}
END_TEST

CHECK_TEST("golden", test_report_keeps_128_of_more_chains)
{
	/* 200 distinct chains: the leaf alike, the caller's exact return
	 * address different in each.  Counts 1-4 by a fixed pattern. */
	for (unsigned i = 0; i < 200; i++)
		add(1, 1 + (i * 7) % 4, PT_MEMCPY + 0x10, VNR(1 + i), END);
	ck_assert(pt_golden_equal("more_than_128.txt",
				  print(PROF_PID_ALL, PROF_CHAINS_MAX, nrecs, 0,
					"pmu/nmi amd pmc0", true)));
}
END_TEST

CHECK_TEST("golden", test_report_unknown_addresses)
{
	/* No symbol covers the gap or far addresses: leaves fold by exact
	 * address, and print as one. */
	add(1, 3, PT_GAP + 0x10, PT_UDP_INPUT + 0x33, END);
	add(1, 2, PT_GAP + 0x14, PT_UDP_INPUT + 0x33, END);
	add(1, 1, 0xdead0000ul, 0xfeed0000ul, VNR(0x40), END);
	add(1, 1, PT_MEMCPY + 0x8, 0xfeed0000ul, END);
	ck_assert(pt_golden_equal("unknown.txt",
				  print(PROF_PID_ALL, 8, 3, 0, "tick 100hz", false)));
}
END_TEST

CHECK_TEST("golden", test_report_host_frames_fold_into_one)
{
	/* The records of unknown.txt, on a platform that names code outside
	 * the image: the gap is still the image's and prints as an address;
	 * everything outside folds into [host], and the samples whose leaf
	 * is there are counted. */
	fake_foreign_name = "[host]";
	add(1, 3, PT_GAP + 0x10, PT_UDP_INPUT + 0x33, END);
	add(1, 2, PT_GAP + 0x14, PT_UDP_INPUT + 0x33, END);
	add(1, 1, 0xdead0000ul, 0xfeed0000ul, VNR(0x40), END);
	add(1, 1, 0xbeef0000ul, 0xfeed0004ul, VNR(0x40), END);
	add(1, 1, PT_MEMCPY + 0x8, 0xfeed0000ul, END);
	ck_assert(pt_golden_equal("host.txt",
				  print(PROF_PID_ALL, 8, 3, 0, "tick/sigprof 100hz", false)));
	fake_foreign_name = NULL;
}
END_TEST

CHECK_TEST("golden", test_report_names_unarmed_missing_and_counter_errors)
{
	struct prof_segment seg = { 0, recs, 0, 0 };
	struct prof_report_in in = {
		.window_ns = 1000000000ull,
		.source = "pmu/signal perf task-clock",
		.counter = true,
		.pid = PROF_PID_ALL,
		.chains = 8,
		.unarmed = (1u << 1) | (1u << 2),
		.arm_wait_ns = 5000000000ull,
		.missing = 1u << 3,
		.wait_ns = 5000000000ull,
		.errors = 1,
		.segs = &seg,
		.nsegs = 1,
	};
	struct out_buf ob;

	add(5, 4, PT_SPIN_LOCK + 0x8, PT_UDP_INPUT + 0x33, END);
	seg.count = nrecs;
	out_buf_init(&ob, text, sizeof(text));
	ck_assert_int_eq(prof_report_print(&ob.out, &in), 0);
	ck_assert(pt_golden_equal("unarmed_missing_errors.txt", text));
}
END_TEST

CHECK_TEST("golden", test_report_empty_pid_filter)
{
	add(7, 5, PT_MEMCPY, END);
	ck_assert(pt_golden_equal("empty_pid.txt",
				  print(12, 8, 5, 0, "pmu/nmi intel fixed-ctr1", true)));
}
END_TEST

CHECK_TEST("golden", test_report_empty_when_no_cpu_answered)
{
	struct prof_report_in in = {
		.window_ns = 500000000ull,
		.source = "tick 100hz",
		.pid = PROF_PID_ALL,
		.chains = 8,
		.missing = (1u << 0) | (1u << 3),
		.wait_ns = 200000000ull,
	};
	struct out_buf ob;

	out_buf_init(&ob, text, sizeof(text));
	ck_assert_int_eq(prof_report_print(&ob.out, &in), 0);
	ck_assert(pt_golden_equal("empty_tick.txt", text));
}
END_TEST

/* A window shorter than one period: no CPU need have sampled, and the
 * report does not call the CPUs idle or the task asleep. */
CHECK_TEST("golden", test_report_empty_window_shorter_than_a_period)
{
	struct prof_segment seg = { 0, recs, 0, 0 };
	struct prof_report_in in = {
		.window_ns = 700000ull,
		.source = "pmu/nmi intel fixed-ctr1",
		.counter = true,
		.pid = PROF_PID_ALL,
		.chains = 8,
		.hz = 1000,
		.segs = &seg,
		.nsegs = 1,
	};
	struct out_buf ob;

	out_buf_init(&ob, text, sizeof(text));
	ck_assert_int_eq(prof_report_print(&ob.out, &in), 0);
	ck_assert(pt_golden_equal("empty_short_window.txt", text));
	/* A whole period, and still nothing: the counter's idle CPUs. */
	in.window_ns = 1000000ull;
	out_buf_init(&ob, text, sizeof(text));
	ck_assert_int_eq(prof_report_print(&ob.out, &in), 0);
	ck_assert_ptr_nonnull(strstr(text, "every CPU was idle the whole window\n"));
	/* The tick's 10 ms period, a task's filter. */
	in.window_ns = 3000000ull;
	in.hz = 100;
	in.pid = 12;
	in.source = "tick 100hz";
	in.counter = false;
	out_buf_init(&ob, text, sizeof(text));
	ck_assert_int_eq(prof_report_print(&ob.out, &in), 0);
	ck_assert_ptr_nonnull(strstr(text, "no samples: the window was shorter than one sampling period (10000 us at 100 Hz per cpu)\n"));
}
END_TEST

CHECK_TEST("golden", test_fold_leaf_spans_offsets)
{
	struct fold f;

	add(1, 1, PT_MEMCPY + 0x30, NFC(4), END);
	add(1, 1, PT_MEMCPY + 0x08, NFC(4), END);
	add(1, 1, PT_MEMCPY + 0x7f, NFC(4), END);
	add(1, 1, PT_MEMCPY + 0x08, NFC(5), END);
	ck_assert_int_eq(fold_init(&f, nrecs, PROF_MAX_FRAMES), 0);
	for (size_t i = 0; i < nrecs; i++)
		fold_add(&f, &recs[i]);
	fold_sort(&f);
	ck_assert_uint_eq(f.nchains, 2);
	ck_assert_uint_eq(f.samples, 4);
	ck_assert_uint_eq(f.chains[0].count, 3);
	ck_assert_uint_eq(f.chains[0].leaf, PT_MEMCPY);
	ck_assert_str_eq(f.chains[0].name, "memcpy");
	ck_assert_uint_eq(f.chains[0].lo, 0x08);
	ck_assert_uint_eq(f.chains[0].hi, 0x7f);
	ck_assert_uint_eq(f.chains[1].callers[0], NFC(5));
	fold_free(&f);
}
END_TEST

/* Past its first size the table grows and rehashes: every distinct chain
 * is still found again, and a new chain past its limit is refused while
 * the chains it holds still count. */
CHECK_TEST("golden", test_fold_grows_past_initial_table)
{
	enum { DISTINCT = 3000, REPEAT = 2 };
	static struct prof_record many[DISTINCT * REPEAT];
	struct prof_record extra = { .pid = 1, .nframes = 1, .frames = { 0x99 } };
	struct fold f;

	for (size_t i = 0; i < DISTINCT * REPEAT; i++) {
		many[i].pid = 1;
		many[i].nframes = 2;
		many[i].frames[0] = 0x10;		/* no symbol: folds by address */
		many[i].frames[1] = 0x100000 + (i % DISTINCT) * 16;
	}
	ck_assert_int_eq(fold_init(&f, DISTINCT, PROF_MAX_FRAMES), 0);
	for (size_t i = 0; i < DISTINCT * REPEAT; i++)
		ck_assert_int_eq(fold_add(&f, &many[i]), 0);
	ck_assert_uint_eq(f.nchains, DISTINCT);
	ck_assert_uint_eq(f.samples, DISTINCT * REPEAT);
	ck_assert_int_eq(fold_add(&f, &extra), -ENOSPC);
	ck_assert_int_eq(fold_add(&f, &many[0]), 0);
	ck_assert_uint_eq(f.samples, DISTINCT * REPEAT + 1);
	fold_sort(&f);
	ck_assert_uint_eq(f.chains[0].count, REPEAT + 1);
	for (size_t c = 1; c < DISTINCT; c++)
		ck_assert_uint_eq(f.chains[c].count, REPEAT);
	fold_free(&f);
}
END_TEST

/* Fold the records added so far into @f, at @depth, hottest first. */
static void fold_recs(struct fold *f, unsigned depth)
{
	ck_assert_int_eq(fold_init(f, nrecs, depth), 0);
	for (size_t i = 0; i < nrecs; i++)
		ck_assert_int_eq(fold_add(f, &recs[i]), 0);
	fold_sort(f);
	ck_assert_uint_eq(f->samples, nrecs);
}

/* Chain @i of folded table @f: @count samples, @ncallers callers. */
static void expect_chain(const struct fold *f, size_t i, uint64_t count,
			 uint32_t ncallers)
{
	ck_assert_uint_lt(i, f->nchains);
	ck_assert_uint_eq(f->chains[i].count, count);
	ck_assert_uint_eq(f->chains[i].ncallers, ncallers);
}

/* A record of @n frames: frame i is @base + 16 i, except frame @odd
 * (when below n), which is @odd_value; every word past the n frames is
 * @junk, as a ring slot reused from a deeper sample holds. */
static void add_frames(uint32_t n, uintptr_t base, uint32_t odd,
		       uintptr_t odd_value, uintptr_t junk)
{
	struct prof_record r = { .pid = 3, .nframes = n };

	for (uint32_t i = 0; i < PROF_MAX_FRAMES; i++)
		r.frames[i] = i >= n ? junk : i == odd ? odd_value : base + 16 * i;
	ck_assert_uint_lt(nrecs, MAX_RECS);
	recs[nrecs++] = r;
}

/* A chain is its frames, not the words after them: whatever a record
 * holds past nframes (here in the leaf's block and in later ones), the
 * samples fold together. */
CHECK_TEST("golden", test_fold_ignores_words_past_nframes)
{
	struct fold f;

	add_frames(3, PT_UDP_INPUT, 99, 0, 0);
	add_frames(3, PT_UDP_INPUT, 99, 0, 0x4141414141414141ull);
	add_frames(3, PT_UDP_INPUT, 99, 0, PT_UDP_INPUT);
	add_frames(6, PT_UDP_INPUT, 99, 0, 0x77);
	add_frames(6, PT_UDP_INPUT, 99, 0, 0x78);
	fold_recs(&f, PROF_MAX_FRAMES);
	ck_assert_uint_eq(f.nchains, 2);
	expect_chain(&f, 0, 3, 2);
	expect_chain(&f, 1, 2, 5);
	fold_free(&f);
}
END_TEST

/* Rows are compared block by block: a difference in any word of any
 * block, the last one included, makes another chain. */
CHECK_TEST("golden", test_fold_tells_chains_apart_in_every_block)
{
	enum { N = 20 };
	struct fold f;

	add_frames(N, PT_UDP_INPUT, 99, 0, 0);
	add_frames(N, PT_UDP_INPUT, 99, 0, 0);
	for (uint32_t odd = 1; odd < N; odd++)
		add_frames(N, PT_UDP_INPUT, odd, 0x5150, 0);
	fold_recs(&f, PROF_MAX_FRAMES);
	ck_assert_uint_eq(f.nchains, N);
	ck_assert_uint_eq(f.chains[0].count, 2);
	for (size_t c = 0; c < f.nchains; c++)
		ck_assert_uint_eq(f.chains[c].ncallers, N - 1);
	fold_free(&f);
}
END_TEST

/* A caller of 0 is a frame: the chain with it is not the chain without
 * it, whether or not the extra frame starts a new block. */
CHECK_TEST("golden", test_fold_zero_caller_is_a_longer_chain)
{
	struct fold f;

	add_frames(3, PT_UDP_INPUT, 99, 0, 0);
	add_frames(4, PT_UDP_INPUT, 3, 0, 0);
	add_frames(4, PT_UDP_INPUT, 3, 0, 0);
	for (int i = 0; i < 3; i++) {
		add_frames(5, PT_UDP_INPUT, 3, 0, 0);
		recs[nrecs - 1].frames[4] = 0;
	}
	fold_recs(&f, PROF_MAX_FRAMES);
	ck_assert_uint_eq(f.nchains, 3);
	expect_chain(&f, 0, 3, 4);
	ck_assert_uint_eq(f.chains[0].callers[2], 0);
	ck_assert_uint_eq(f.chains[0].callers[3], 0);
	expect_chain(&f, 1, 2, 3);
	expect_chain(&f, 2, 1, 2);
	fold_free(&f);
}
END_TEST

/* At depth 4 a chain keeps its leaf and 3 callers: records that differ
 * only deeper fold together, and one that differs within them does not. */
CHECK_TEST("golden", test_fold_cuts_chains_at_the_table_depth)
{
	struct fold f;

	add_frames(9, PT_UDP_INPUT, 99, 0, 0);
	add_frames(9, PT_UDP_INPUT, 4, 0x5150, 0);
	add_frames(9, PT_UDP_INPUT, 8, 0x5150, 0);
	add_frames(5, PT_UDP_INPUT, 99, 0, 0);
	add_frames(9, PT_UDP_INPUT, 3, 0x5150, 0);
	fold_recs(&f, 4);
	ck_assert_uint_eq(f.nchains, 2);
	expect_chain(&f, 0, 4, 3);
	ck_assert_uint_eq(f.chains[0].callers[2], PT_UDP_INPUT + 48);
	ck_assert_uint_eq(f.chains[1].count, 1);
	ck_assert_uint_eq(f.chains[1].callers[2], 0x5150);
	fold_free(&f);
}
END_TEST

/* Leaves in the gap after memcpy fold by their own addresses, though
 * one lookup answers for the whole gap; the symbols on either side of
 * it, met between them, still resolve. */
CHECK_TEST("golden", test_fold_leaves_in_a_gap_stay_addresses)
{
	struct fold f;

	add(1, 3, PT_GAP + 0x10, PT_UDP_INPUT + 0x33, END);
	add(1, 2, PT_GAP + 0x14, PT_UDP_INPUT + 0x33, END);
	add(1, 4, PT_MEMCPY + 0x7c, PT_UDP_INPUT + 0x33, END);
	add(1, 1, PT_GAP + 0x7f, PT_UDP_INPUT + 0x33, END);
	add(1, 5, NFC(0x2), PT_UDP_INPUT + 0x33, END);
	add(1, 1, PT_GAP + 0x10, PT_UDP_INPUT + 0x33, END);
	fold_recs(&f, PROF_MAX_FRAMES);
	ck_assert_uint_eq(f.nchains, 5);
	ck_assert_str_eq(f.chains[0].name, "net_frame_copy");
	ck_assert_uint_eq(f.chains[0].leaf, PT_NET_FRAME_COPY);
	ck_assert_uint_eq(f.chains[0].lo, 2);
	ck_assert_str_eq(f.chains[1].name, "memcpy");
	ck_assert_uint_eq(f.chains[1].lo, 0x7c);
	ck_assert_ptr_null(f.chains[2].name);
	ck_assert_uint_eq(f.chains[2].leaf, PT_GAP + 0x10);
	ck_assert_uint_eq(f.chains[2].count, 4);
	ck_assert_ptr_null(f.chains[3].name);
	ck_assert_uint_eq(f.chains[3].leaf, PT_GAP + 0x14);
	ck_assert_ptr_null(f.chains[4].name);
	ck_assert_uint_eq(f.chains[4].leaf, PT_GAP + 0x7f);
	fold_free(&f);
}
END_TEST

CHECK_TEST("golden", test_percent_rounds_half_up_in_tenths)
{
	/* 1/8 = 12.5%; 1/3 = 33.3%; 2/3 = 66.7%. */
	add(1, 2, PT_MEMCPY, END);
	add(1, 1, PT_SPIN_LOCK, END);
	print(PROF_PID_ALL, 8, 3, 0, "tick 100hz", false);
	ck_assert_ptr_nonnull(strstr(text, "\n66.7% 2 memcpy+0x0\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n33.3% 1 spin_lock+0x0\n"));
	nrecs = 0;
	add(1, 7, PT_MEMCPY, END);
	add(1, 1, PT_SPIN_LOCK, END);
	print(PROF_PID_ALL, 8, 8, 0, "tick 100hz", false);
	ck_assert_ptr_nonnull(strstr(text, "\n87.5% 7 memcpy+0x0\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n12.5% 1 spin_lock+0x0\n"));
}
END_TEST

int main(void)
{
	return check_run(check_suite("report", setup, 0));
}
