/* SPDX-License-Identifier: BSD-2-Clause */
/* The views of a session (`profile show text|folded|cpus|tasks|top`),
 * pinned by golden files in tests/prof/golden/, from one session's data built
 * here as the drain would fold it; and every folded view (by name, by
 * address, by CPU, wall, `profile rotate`'s) read back through the host's
 * one reader (tools/folded_read.c) with its header intact. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "prof_testlib.h"
#include "prof/folded.h"
#include "prof/profiler.h"
#include "prof/report.h"
#include "prof/wall.h"
#include "folded_read.h"
#include "lib/folded_write.h"
#include "kernel/symbols.h"
#include "lib/errno.h"
#include "lib/out.h"
#include "check_main.h"

#define END ((uintptr_t)0)
#define NFC(off) (PT_NET_FRAME_COPY + (off))
#define VNR(off) (PT_VIRTIO_NET_RX + (off))

static struct prof_data d;
static char text[1 << 16];
/* The weight each sample of take() carries: counter events. */
static uint64_t weight_each = 3000000;

static void setup(void)
{
	pt_use_symbols();
	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(fold_init(&d.fold, 64, 8), 0);
	d.window_ns = 2000000000ull;
	d.source = "pmu/nmi intel fixed-ctr1";
	d.counter = true;
	d.hz = 1000;
	d.depth = 8;
	d.pid = PROF_PID_ALL;
	d.run_cpus = 0x3;
	d.cpu_ns[0] = d.cpu_ns[1] = 2000000000ull;
	d.cpu_idle_ns[0] = 500000000ull;	/* 25% */
	d.cpu_idle_ns[1] = 1000000;		/* 0.05%: rounds to 0.1% */
}

static void teardown(void)
{
	fold_free(&d.fold);
}

static void name(int pid, const char *n)
{
	d.tasks[d.ntasks].pid = pid;
	snprintf(d.tasks[d.ntasks].name, sizeof(d.tasks[0].name), "%s", n);
	d.ntasks++;
}

/* @times samples on @cpu of @pid with frames (frame 0 first), as the
 * drain takes them: counted, then folded or, past the table, other. */
static void take(unsigned cpu, int pid, unsigned times, uintptr_t ip, ...)
{
	struct prof_record r = { .pid = pid, .nframes = 1, .weight = weight_each,
				 .frames = { ip } };
	va_list ap;
	uintptr_t ra;

	va_start(ap, ip);
	while ((ra = va_arg(ap, uintptr_t)) != 0 && r.nframes < PROF_MAX_FRAMES)
		r.frames[r.nframes++] = ra;
	va_end(ap);
	for (unsigned i = 0; i < times; i++) {
		d.samples++;
		d.cpu_samples[cpu]++;
		if (fold_add_cpu(&d.fold, &r, cpu) < 0) {
			d.other++;
			d.other_weight += r.weight;
			d.other_cpus |= 1u << cpu;
			d.cpu_other[cpu]++;
			d.cpu_other_weight[cpu] += r.weight;
		}
	}
}

/* The session every golden view below shows: two tasks on two CPUs,
 * memcpy under two call sites of one caller, a recursion in udp_input. */
static void session(void)
{
	name(3, "rx/0");
	name(7, "split/1");
	take(0, 3, 5, PT_MEMCPY + 0x1a, NFC(0x44), VNR(0x1b2), END);
	take(0, 3, 2, PT_MEMCPY + 0x3e, NFC(0x50), VNR(0x1b2), END);
	take(1, 7, 4, PT_SPIN_LOCK + 0x8, PT_UDP_INPUT + 0x20, PT_UDP_INPUT + 0x40, END);
	take(1, 7, 1, PT_UDP_INPUT + 0x10, VNR(0x30), END);
	take(0, 1, 3, PT_CPU_IDLE + 0x4, END);
	d.dropped = 2;
}

static const char *show(int (*view)(struct out *o, const struct prof_data *d,
				    int pid, unsigned n), int pid, unsigned n)
{
	struct out_buf ob;

	out_buf_init(&ob, text, sizeof(text));
	ck_assert_int_eq(view(&ob.out, &d, pid, n), 0);
	ck_assert_uint_eq(ob.lost, 0);
	return text;
}

static int folded(struct out *o, const struct prof_data *dd, int pid, unsigned n)
{
	(void)n;
	return prof_view_folded(o, dd, pid);
}

static int cpus_view(struct out *o, const struct prof_data *dd, int pid, unsigned n)
{
	(void)pid;
	(void)n;
	return prof_view_cpus(o, dd);
}

static int tasks_view(struct out *o, const struct prof_data *dd, int pid, unsigned n)
{
	(void)pid;
	(void)n;
	return prof_view_tasks(o, dd);
}

CHECK_TEST("golden", test_view_folded_root_first_by_function)
{
	session();
	ck_assert(pt_golden_equal("view_folded.txt", show(folded, PROF_PID_ALL, 0)));
}
END_TEST

/* A chain that met the session's depth says so where it was cut, between
 * the task and its outermost kept caller; a shallower one does not. */
CHECK_TEST("golden", test_view_folded_marks_depth_cut)
{
	fold_free(&d.fold);
	ck_assert_int_eq(fold_init(&d.fold, 64, 3), 0);
	d.depth = 3;
	name(3, "rx/0");
	take(0, 3, 2, PT_MEMCPY + 0x1a, NFC(0x44), VNR(0x1b2), PT_UDP_INPUT + 0x10, END);
	take(0, 3, 1, PT_MEMCPY + 0x1a, NFC(0x44), END);
	show(folded, PROF_PID_ALL, 0);
	ck_assert_ptr_nonnull(strstr(text, "\n3-rx/0;[truncated];virtio_net_rx;net_frame_copy;memcpy 2\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n3-rx/0;net_frame_copy;memcpy 1\n"));
	ck_assert_ptr_null(strstr(text, ";udp_input"));
}
END_TEST

CHECK_TEST("golden", test_view_folded_pid_filter)
{
	session();
	ck_assert(pt_golden_equal("view_folded_pid.txt", show(folded, 7, 0)));
}
END_TEST

CHECK_TEST("golden", test_view_cpus_shares_and_idle)
{
	session();
	ck_assert(pt_golden_equal("view_cpus.txt", show(cpus_view, 0, 0)));
}
END_TEST

CHECK_TEST("golden", test_view_tasks_shares)
{
	session();
	ck_assert(pt_golden_equal("view_tasks.txt", show(tasks_view, 0, 0)));
}
END_TEST

CHECK_TEST("golden", test_view_top_self_and_total)
{
	session();
	ck_assert(pt_golden_equal("view_top.txt", show(prof_view_top, PROF_PID_ALL, 8)));
}
END_TEST

CHECK_TEST("golden", test_view_text_from_session)
{
	session();
	ck_assert(pt_golden_equal("view_text.txt", show(prof_view_text, PROF_PID_ALL, 8)));
}
END_TEST

/* A table of two chains: the third chain's samples are other, in the
 * header, as a line, and in every total. */
CHECK_TEST("golden", test_view_folded_other_when_table_full)
{
	fold_free(&d.fold);
	ck_assert_int_eq(fold_init(&d.fold, 2, 8), 0);
	session();
	ck_assert_uint_eq(d.fold.nchains, 2);
	ck_assert_uint_eq(d.other, 4 + 1 + 3);
	ck_assert_uint_eq(d.fold.samples + d.other, d.samples);
	ck_assert(pt_golden_equal("view_folded_other.txt", show(folded, PROF_PID_ALL, 0)));
	ck_assert(pt_golden_equal("view_text_other.txt",
				  show(prof_view_text, PROF_PID_ALL, 8)));
}
END_TEST

/* The folded lines sum to the end line's and the header's samples, which
 * are the text report's. */
CHECK_TEST("golden", test_view_folded_counts_match_text)
{
	unsigned long long lines = 0, sum = 0, end_lines = 0, end_samples = 0;
	unsigned long long head = 0, text_samples = 0;
	char *save, *line;

	session();
	show(prof_view_text, PROF_PID_ALL, 8);
	ck_assert_int_eq(sscanf(strchr(text, '\n') + 1, "%llu samples", &text_samples), 1);
	show(folded, PROF_PID_ALL, 0);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "# samples=%llu", &head) == 1 ||
		    sscanf(line, "# kprof folded end lines=%llu samples=%llu",
			   &end_lines, &end_samples) == 2 || line[0] == '#')
			continue;
		ck_assert_ptr_null(strchr(line, '\t'));
		lines++;
		sum += strtoull(strrchr(line, ' ') + 1, NULL, 10);
	}
	ck_assert_uint_eq(lines, end_lines);
	ck_assert_uint_eq(sum, end_samples);
	ck_assert_uint_eq(sum, head);
	ck_assert_uint_eq(sum, text_samples);
	ck_assert_uint_eq(sum, 15);
}
END_TEST

/* A name with a blank or a ';' would split a frame: it is written with
 * '_' instead. */
CHECK_TEST("golden", test_view_folded_names_never_split)
{
	name(9, "a b;c");
	take(0, 9, 1, PT_SPIN_LOCK, END);
	show(folded, PROF_PID_ALL, 0);
	ck_assert_ptr_nonnull(strstr(text, "\n9-a_b_c;spin_lock 1\n"));
}
END_TEST

/* A session's own table: leaves by their exact address, as the drain
 * folds them.  Its counter counts 3*10^9 events a second. */
static void exact_session(void)
{
	fold_free(&d.fold);
	ck_assert_int_eq(fold_init(&d.fold, 64, 8), 0);
	d.fold.exact_leaf = true;
	d.fold.by_cpu = true;
	d.weight_per_sec = 3000000000ull;
	session();
}

/* Every name view of a table of exact leaves is what it was when the
 * leaves folded by symbol: they merge them as they print. */
CHECK_TEST("golden", test_views_by_name_merge_exact_leaves)
{
	exact_session();
	ck_assert_uint_eq(d.fold.nchains, 5);
	ck_assert(pt_golden_equal("view_folded.txt", show(folded, PROF_PID_ALL, 0)));
	ck_assert(pt_golden_equal("view_folded_pid.txt", show(folded, 7, 0)));
	ck_assert(pt_golden_equal("view_top.txt", show(prof_view_top, PROF_PID_ALL, 8)));
	ck_assert(pt_golden_equal("view_text.txt", show(prof_view_text, PROF_PID_ALL, 8)));
}
END_TEST

static int folded_addr(struct out *o, const struct prof_data *dd, int pid, unsigned n)
{
	(void)n;
	return prof_view_folded_addr(o, dd, pid);
}

/* @in with every 0x... frame written as the symbol and offset it names
 * (sym_format(), exact): the golden holds names, not addresses that
 * move with every edit of the image. */
static const char *resolved(const char *in)
{
	static char outbuf[1 << 16];
	size_t w = 0;

	for (const char *p = in; *p && w + 128 < sizeof(outbuf);) {
		if ((p == in || p[-1] == ';') && p[0] == '0' && p[1] == 'x') {
			char *end;
			uintptr_t a = (uintptr_t)strtoull(p + 2, &end, 16);

			sym_format(outbuf + w, sizeof(outbuf) - w, a, false);
			w += strlen(outbuf + w);
			p = end;
			continue;
		}
		outbuf[w++] = *p++;
	}
	outbuf[w] = '\0';
	return outbuf;
}

/* The address view: each chain as folded, the leaf the interrupted
 * instruction, callers their return addresses, the weight in ns from
 * the counter's events; the image's build-id and the busy time in the
 * header. */
static void read_back(const char *t, struct folded_reader *r, char *err,
		      size_t n);

/* The weights of view @t, summed by the host's one reader. */
static uint64_t weight_sum(const char *t)
{
	struct folded_reader r;
	char err[256];
	uint64_t w;

	read_back(t, &r, err, sizeof(err));
	ck_assert(r.meta.weight_ns);
	w = r.total_weight;
	folded_reader_free(&r);
	return w;
}

static int folded_weight(struct out *o, const struct prof_data *dd, int pid,
			 unsigned n)
{
	(void)n;
	return prof_view_folded_as(o, dd, pid, FOLD_VIEW_WEIGHT);
}

/* The by-name view with its weights (`profile show folded weight`):
 * the plain view's lines, each with its ns after its count, under
 * `# weight=ns` and the busy time; the same total as the address view's,
 * line by line summed.  The plain view has no weight column: it is what
 * flamegraph.pl reads. */
CHECK_TEST("golden", test_view_folded_weight_by_name)
{
	uint64_t by_name, by_addr;

	session();
	ck_assert(pt_golden_equal("view_folded_weight.txt",
				  show(folded_weight, PROF_PID_ALL, 0)));
	by_name = weight_sum(text);
	show(folded_addr, PROF_PID_ALL, 0);
	by_addr = weight_sum(text);
	ck_assert_uint_eq(by_name, 45000000);	/* 15 samples, 3 ms each */
	ck_assert_uint_eq(by_name, by_addr);
	show(folded, PROF_PID_ALL, 0);
	ck_assert_ptr_null(strstr(text, "# weight=ns"));
}
END_TEST

CHECK_TEST("golden", test_view_folded_addr_frames_as_sampled)
{
	static const unsigned char note[] = {
		4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
		0xde, 0xad, 0xbe, 0xef,
	};

	fake_build_id_note = note;
	fake_build_id_note_len = sizeof(note);
	exact_session();
	ck_assert(pt_golden_equal("view_folded_addr.txt",
				  resolved(show(folded_addr, PROF_PID_ALL, 0))));
	/* 5 + 2 samples of pid 3's memcpy at 3*10^6 events, 1 ms each. */
	ck_assert_ptr_nonnull(strstr(text, ";0x"));
	ck_assert_ptr_nonnull(strstr(text, "# build_id=deadbeef\n"));
}
END_TEST

CHECK_TEST("golden", test_view_folded_addr_pid_and_other)
{
	fold_free(&d.fold);
	ck_assert_int_eq(fold_init(&d.fold, 2, 8), 0);
	d.fold.exact_leaf = true;
	d.weight_per_sec = 1000000000ull;
	session();
	show(folded_addr, PROF_PID_ALL, 0);
	/* Chains past the table: their samples and weights. */
	ck_assert_ptr_nonnull(strstr(text, "\nother 8 24000000\n"));
	ck_assert_ptr_null(strstr(text, "# build_id="));
	show(folded_addr, 7, 0);
	ck_assert_ptr_nonnull(strstr(text, "# pid=7\n"));
	ck_assert_ptr_null(strstr(text, "\nother "));
}
END_TEST

/* A session's table keeps each CPU's chains apart: the session above
 * with pid 3's memcpy chain sampled on CPU 1 as well. */
static void cpu_session(void)
{
	exact_session();
	ck_assert(d.fold.exact_leaf);
	take(1, 3, 2, PT_MEMCPY + 0x1a, NFC(0x44), VNR(0x1b2), END);
}

static int folded_cpus(struct out *o, const struct prof_data *dd, int pid, unsigned n)
{
	(void)n;
	return prof_view_folded_as(o, dd, pid, FOLD_VIEW_CPUS);
}

static int folded_addr_cpus(struct out *o, const struct prof_data *dd, int pid,
			    unsigned n)
{
	(void)n;
	return prof_view_folded_as(o, dd, pid, FOLD_VIEW_ADDR | FOLD_VIEW_CPUS);
}

/* One chain on two CPUs is two chains of the table; every view that is
 * not by CPU merges them (the same line, 5 + 2 + 2 samples), the views
 * by CPU print each CPU's lines under its root frame, by name or by
 * address with each CPU's busy time. */
CHECK_TEST("golden", test_views_by_cpu_keep_each_cpu)
{
	cpu_session();
	ck_assert_uint_eq(d.fold.nchains, 6);
	show(folded, PROF_PID_ALL, 0);
	ck_assert_ptr_nonnull(strstr(text, "\n3-rx/0;virtio_net_rx;net_frame_copy;memcpy 9\n"));
	ck_assert_ptr_null(strstr(text, "cpu0;"));
	show(folded_addr, PROF_PID_ALL, 0);
	ck_assert_ptr_nonnull(strstr(resolved(text),
		"\n3-rx/0;virtio_net_rx+0x1b2;net_frame_copy+0x44;memcpy+0x1a 7 7000000\n"));
	ck_assert_ptr_null(strstr(text, "# cpu_busy_ns="));
	ck_assert(pt_golden_equal("view_folded_cpus.txt", show(folded_cpus, PROF_PID_ALL, 0)));
	d.cpu_ns[0] = d.cpu_ns[1] = d.window_ns;
	d.cpu_run_ns[1] = 1200000000ull;	/* less than its clock: it counts */
	ck_assert(pt_golden_equal("view_folded_addr_cpus.txt",
				  resolved(show(folded_addr_cpus, PROF_PID_ALL, 0))));
	show(folded_addr_cpus, 7, 0);
	ck_assert_ptr_nonnull(strstr(text, "# pid=7\n# root=cpu\n"));
	ck_assert_ptr_null(strstr(text, "\ncpu0;"));
}
END_TEST

/* Chains past the table are each CPU's `other` in a view by CPU, with
 * their weights; the views that merge CPUs have the one line. */
CHECK_TEST("golden", test_views_by_cpu_other_per_cpu)
{
	fold_free(&d.fold);
	ck_assert_int_eq(fold_init(&d.fold, 2, 8), 0);
	d.fold.exact_leaf = true;
	d.fold.by_cpu = true;
	d.weight_per_sec = 1000000000ull;
	session();
	take(1, 3, 2, PT_MEMCPY + 0x1a, NFC(0x44), VNR(0x1b2), END);
	show(folded_addr_cpus, PROF_PID_ALL, 0);
	/* Past two chains (cpu 0's memcpy twice): cpu 0's idle 3, cpu
	 * 1's 4 + 1 and its memcpy 2, 3 ms each. */
	ck_assert_ptr_nonnull(strstr(text, "\ncpu0;other 3 9000000\n"));
	ck_assert_ptr_nonnull(strstr(text, "\ncpu1;other 7 21000000\n"));
	ck_assert_ptr_nonnull(strstr(text, "# kprof folded end lines=4 samples=17\n"));
	show(folded_cpus, PROF_PID_ALL, 0);
	ck_assert_ptr_nonnull(strstr(text, "\ncpu1;other 7\n"));
	show(folded_addr, PROF_PID_ALL, 0);
	ck_assert_ptr_nonnull(strstr(text, "\nother 10 30000000\n"));
}
END_TEST

/* ---- every folded view through the one reader ---- */

/* @t read by the host's one reader, as kshell -o takes a block (no blank
 * in a frame, whole counts; each key once): to its end line, no error. */
static void read_back(const char *t, struct folded_reader *r, char *err, size_t n)
{
	enum folded_kind k = FOLDED_SKIP;

	folded_reader_init(r, "view", FOLDED_READ_KERNEL | FOLDED_READ_ONCE, err, n);
	for (const char *p = t; *p && k != FOLDED_END;) {
		const char *nl = strchr(p, '\n');

		ck_assert_ptr_nonnull(nl);
		k = folded_reader_line(r, p, (size_t)(nl - p));
		ck_assert_msg(k != FOLDED_ERROR, "%s in:\n%s", err, t);
		p = nl + 1;
	}
	ck_assert_int_eq(k, FOLDED_END);
	ck_assert(folded_reader_finish(r));
}

static void num_intact(bool given, bool read, uint64_t wrote, uint64_t got)
{
	ck_assert_int_eq(given, read);
	if (given)
		ck_assert_uint_eq(wrote, got);
}

static void cpu_busy_intact(bool given, const struct folded_head *h,
			    const struct fold_meta *m)
{
	ck_assert_int_eq(given, !!(m->have & META_CPU_BUSY));
	if (!given)
		return;
	ck_assert_uint_eq(h->cpu_busy_mask, m->cpu_busy_mask);
	for (unsigned cpu = 0; cpu < FOLDED_CPUS_MAX; cpu++)
		if ((h->cpu_busy_mask >> cpu) & 1)
			ck_assert_uint_eq(h->cpu_busy_ns[cpu], m->cpu_busy_ns[cpu]);
}

/* Key @f of the head written, @h, as the reader read it into @m: given
 * or not alike, and the same value.  No default: a key added to the
 * writer and not here does not compile (-Wswitch). */
static void key_intact(const struct folded_head *h, const struct fold_meta *m,
		       enum folded_field f)
{
	bool given = h->have & FOLDED_HAS(f);

	switch (f) {
	case FOLDED_F_SEQ:
		num_intact(given, m->have & META_SEQ, h->seq, m->seq);
		break;
	case FOLDED_F_START_NS:
		num_intact(given, m->have & META_START, h->start_ns, m->start_ns);
		break;
	case FOLDED_F_END_NS:
		num_intact(given, m->have & META_END, h->end_ns, m->end_ns);
		break;
	case FOLDED_F_STOP_NS:
		num_intact(given, m->have & META_STOP, h->stop_ns, m->stop_ns);
		break;
	case FOLDED_F_SOURCE:
		ck_assert_int_eq(given, !!(m->have & META_SOURCE));
		if (given)
			ck_assert_str_eq(h->source, m->source);
		break;
	case FOLDED_F_HZ:
		num_intact(given, m->have & META_HZ, h->hz, m->hz);
		break;
	case FOLDED_F_WINDOW_MS:
		num_intact(given, m->have & META_WINDOW, h->window_ms, m->window_ms);
		break;
	case FOLDED_F_CPUS:
		num_intact(given, m->have & META_CPUS, h->cpus, m->cpus);
		break;
	case FOLDED_F_WALL:
		ck_assert_int_eq(given, m->wall);
		break;
	case FOLDED_F_UNIT_US:
		ck_assert_int_eq(given, m->unit_us);
		break;
	case FOLDED_F_SAMPLES:
		num_intact(given, m->have & META_SAMPLES, h->samples, m->samples);
		break;
	case FOLDED_F_DROPPED:
		num_intact(given, m->have & META_DROPPED, h->dropped, m->dropped);
		break;
	case FOLDED_F_OTHER:
		num_intact(given, m->have & META_OTHER, h->other, m->other);
		break;
	case FOLDED_F_DEPTH:
		num_intact(given, m->have & META_DEPTH, h->depth, m->depth);
		break;
	case FOLDED_F_PID:
		num_intact(given, m->have & META_PID, (uint64_t)h->pid, (uint64_t)m->pid);
		break;
	case FOLDED_F_ROOT_CPU:
		ck_assert_int_eq(given, m->root_cpu);
		break;
	case FOLDED_F_FRAMES_ADDR:
		ck_assert_int_eq(given, m->addr);
		break;
	case FOLDED_F_BUILD_ID:
		ck_assert_int_eq(given, m->build_id[0] != '\0');
		if (given)
			ck_assert_str_eq(h->build_id, m->build_id);
		break;
	case FOLDED_F_WEIGHT_NS:
		ck_assert_int_eq(given, m->weight_ns);
		break;
	case FOLDED_F_BUSY_NS:
		num_intact(given, m->have & META_BUSY, h->busy_ns, m->busy_ns);
		break;
	case FOLDED_F_CPU_BUSY_NS:
		cpu_busy_intact(given, h, m);
		break;
	case FOLDED_F_THROTTLED_HZ:
		num_intact(given, m->have & META_THROTTLED, h->throttled_hz,
			   m->throttled_hz);
		break;
	case FOLDED_F_HIDDEN_NS:
		num_intact(given, m->have & META_HIDDEN, h->hidden_ns, m->hidden_ns);
		break;
	case FOLDED_F_COUNT:
		ck_abort();
	}
}

/* The view in text, written under head @h, read back: every key of @h
 * intact, none added, and lines whose counts sum to its samples where
 * it gives them.  Returns @h's keys. */
static uint32_t round_trip(const char *t, const struct folded_head *h)
{
	struct folded_reader r;
	char err[256] = "";

	read_back(t, &r, err, sizeof(err));
	for (unsigned f = 0; f < FOLDED_F_COUNT; f++)
		key_intact(h, &r.meta, f);
	ck_assert_uint_gt(r.lines, 0);
	if (h->have & FOLDED_HAS(FOLDED_F_SAMPLES))
		ck_assert_uint_eq(r.total, h->samples);
	folded_reader_free(&r);
	return h->have;
}

/* One view @how of the session, task @pid's, as `profile show folded`
 * writes it. */
static uint32_t view_round_trip(int pid, unsigned how)
{
	struct folded_head h;
	struct out_buf ob;

	out_buf_init(&ob, text, sizeof(text));
	ck_assert_int_eq(prof_view_folded_as(&ob.out, &d, pid, how), 0);
	ck_assert_uint_eq(ob.lost, 0);
	prof_folded_head(&h, &d, pid, how);
	return round_trip(text, &h);
}

/* `profile rotate 5 [addr]` of the session as an interval. */
static uint32_t interval_round_trip(unsigned how)
{
	struct folded_head h;
	struct out_buf ob;

	out_buf_init(&ob, text, sizeof(text));
	ck_assert_int_eq(prof_view_interval(&ob.out, &d, how, 5, 1000000000ull,
					    3000000000ull), 0);
	ck_assert_uint_eq(ob.lost, 0);
	prof_interval_head(&h, &d, how, 5, 1000000000ull, 3000000000ull);
	ck_assert_uint_eq(h.seq, 5);
	return round_trip(text, &h);
}

/* A wall session's books: task 3 on its CPU and blocked, task 7
 * runnable, in microseconds of wall time. */
static struct prof_wall wall;

static void wall_take(enum wall_state s, int pid, uint64_t ns, uintptr_t ip,
		      uintptr_t ra)
{
	struct prof_record r = { .pid = pid, .nframes = 2, .weight = ns,
				 .frames = { ip, ra } };

	ck_assert_int_eq(fold_add_cpu(&wall.fold[s], &r, 0), 0);
}

/* The wall views of task @pid (every task's: the shell's time hidden),
 * by name or by address (@how). */
static uint32_t wall_round_trip(int pid, unsigned how)
{
	struct folded_head h;
	struct out_buf ob;
	uint32_t have;

	memset(&wall, 0, sizeof(wall));
	for (unsigned s = 0; s < WALL_STATES; s++)
		ck_assert_int_eq(fold_init(&wall.fold[s], 16, 8), 0);
	wall.start_ns = 1000000000ull;
	wall.stop_ns = 3000000000ull;
	wall.dropped = 4;
	wall_take(WALL_CPU, 3, 7000000, PT_MEMCPY + 0x1a, NFC(0x44));
	wall_take(WALL_BLOCKED, 3, 900000, PT_UDP_INPUT + 0x10, VNR(0x30));
	wall_take(WALL_RUNNABLE, 7, 2500000, PT_SPIN_LOCK + 0x8, PT_UDP_INPUT + 0x20);
	/* The shell, blocked all along: a service task, hidden. */
	wall_take(WALL_BLOCKED, 9, 2000000000, PT_UDP_INPUT + 0x10, VNR(0x30));
	wall.ntasks = 1;
	wall.tasks[0] = (struct wall_task){ .pid = 9,
					    .ns[WALL_BLOCKED] = 2000000000 };
	d.wall = &wall;
	out_buf_init(&ob, text, sizeof(text));
	ck_assert_int_eq(prof_view_wall_folded_as(&ob.out, &d, pid, how), 0);
	ck_assert_uint_eq(ob.lost, 0);
	ck_assert_ptr_null(strstr(text, "-shell;"));
	prof_wall_folded_head(&h, &d, pid, how);
	ck_assert_int_eq(!!(h.have & FOLDED_HAS(FOLDED_F_HIDDEN_NS)), pid == PROF_PID_ALL);
	have = round_trip(text, &h);
	d.wall = NULL;
	for (unsigned s = 0; s < WALL_STATES; s++)
		fold_free(&wall.fold[s]);
	return have;
}

/* Every folded view the kernel writes -- by name and by address, each by
 * CPU too, a task's, wall, and `profile rotate`'s of either -- read back
 * through the host's one reader with every header key intact; between
 * them they give every key the writer has. */
CHECK_TEST("golden", test_views_folded_read_back_whole)
{
	static const unsigned char note[] = {
		4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
		0xde, 0xad, 0xbe, 0xef,
	};
	uint32_t keys = 0;

	fake_build_id_note = note;
	fake_build_id_note_len = sizeof(note);
	cpu_session();
	d.throttled_hz = 250;
	keys |= view_round_trip(PROF_PID_ALL, 0);
	keys |= view_round_trip(7, 0);
	keys |= view_round_trip(PROF_PID_ALL, FOLD_VIEW_ADDR);
	keys |= view_round_trip(PROF_PID_ALL, FOLD_VIEW_CPUS);
	keys |= view_round_trip(3, FOLD_VIEW_ADDR | FOLD_VIEW_CPUS);
	keys |= interval_round_trip(0);
	keys |= interval_round_trip(FOLD_VIEW_ADDR);
	name(9, "shell");
	keys |= wall_round_trip(PROF_PID_ALL, 0);
	keys |= wall_round_trip(3, 0);
	keys |= wall_round_trip(PROF_PID_ALL, FOLD_VIEW_ADDR);
	ck_assert_uint_eq(keys, FOLDED_HAS(FOLDED_F_COUNT) - 1);
	fake_build_id_note = NULL;
	fake_build_id_note_len = 0;
}
END_TEST

CHECK_CASE("golden", setup, teardown, 0);

int main(void)
{
	return check_run(check_suite("views", NULL, 0));
}
