# SPDX-License-Identifier: BSD-2-Clause
# make bench: figures, nothing asserted, not part of make check
# (doc/performance.md).  The programs run a ksim machine in-process, so
# they link the simulator; bench_prof resolves frames against the image's
# own table (the three-pass link), as a profile does.
BENCH_PROGS = %reldir%/bench_prof %reldir%/bench_cost %reldir%/bench_switch
EXTRA_PROGRAMS += $(BENCH_PROGS)
CLEANFILES += $(BENCH_PROGS)
.PHONY: bench

if PLATFORM_SIM

%canon_reldir%_bench_prof_SOURCES = %reldir%/bench_prof.c %reldir%/bench_run.c %reldir%/bench_run.h
%canon_reldir%_bench_prof_LDADD = sim/libksim.la
%canon_reldir%_bench_prof_LDFLAGS = -Wc,-no-pie
%canon_reldir%_bench_prof_LINK = $(KP_LINK3_PROG)
EXTRA_%canon_reldir%_bench_prof_DEPENDENCIES = $(KP_LINK3_DEPS)

%canon_reldir%_bench_cost_SOURCES = %reldir%/bench_cost.c
%canon_reldir%_bench_cost_LDADD = sim/libksim.la
%canon_reldir%_bench_cost_LDFLAGS = -Wc,-no-pie
%canon_reldir%_bench_cost_LINK = $(KP_LINK3_PROG)
EXTRA_%canon_reldir%_bench_cost_DEPENDENCIES = $(KP_LINK3_DEPS)

%canon_reldir%_bench_switch_SOURCES = %reldir%/bench_switch.c %reldir%/bench_run.c %reldir%/bench_run.h
%canon_reldir%_bench_switch_LDADD = sim/libksim.la
%canon_reldir%_bench_switch_LDFLAGS = -Wc,-no-pie
%canon_reldir%_bench_switch_LINK = $(KP_LINK3_PROG)
EXTRA_%canon_reldir%_bench_switch_DEPENDENCIES = $(KP_LINK3_DEPS)

bench: $(BENCH_PROGS)
	@echo "== $$(uname -srm), $$(nproc) cpus, $$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
	./%reldir%/bench_prof
	./%reldir%/bench_cost
	./%reldir%/bench_switch
else
# A kernel's make bench: instructions per switch under QEMU -icount
# (bench/switch-icount; it builds the kernel without the hook in nohook/,
# and the one that stores every wall record in store/).
if PLATFORM_ARM64
bench: $(ARM64_KERNEL)
	PYTHONPATH=$(abs_top_srcdir)/tests KPROF_ARCH=arm64 $(srcdir)/%reldir%/switch-icount 5
else
bench: all
	PYTHONPATH=$(abs_top_srcdir)/tests $(srcdir)/%reldir%/switch-icount 5
endif
endif

# kprof-collect on a fleet of ksims (issue 43): figures only, by hand:
# PYTHONPATH=../tests KPROF_BUILDDIR=$PWD ../bench/collect-fleet [N [INTERVAL_S [SECONDS]]].
# The shell's stack headroom after each profile view (issue 60), by hand:
# KPROF_BUILDDIR=$PWD ../bench/stack-headroom [RUNS [HZ]].
EXTRA_DIST += %reldir%/collect-fleet %reldir%/stack-headroom

# Instructions per context switch under QEMU -icount shift=0 (issue 53):
# make bench in a kernel's build folder, or by hand there:
# ../bench/switch-icount [SECONDS [sweep]] (KPROF_ARCH=arm64 in the arm64 one;
# sweep: the stored path by depth).
EXTRA_DIST += %reldir%/switch-icount

# The trace ring's events a second on this host, and the tracepoints'
# instructions per switch under QEMU -icount (issue 58), by hand: in the
# simulator's build folder `make bench/bench_trace_ring && ./bench/bench_trace_ring`;
# in a kernel's, PYTHONPATH=../tests ../bench/trace-icount [SECONDS]
# (KPROF_ARCH=arm64 in the arm64 one).
if PLATFORM_SIM
EXTRA_PROGRAMS += %reldir%/bench_trace_ring
CLEANFILES += %reldir%/bench_trace_ring
%canon_reldir%_bench_trace_ring_SOURCES = %reldir%/bench_trace_ring.c src/kernel/trace_ring.c
%canon_reldir%_bench_trace_ring_CFLAGS = $(AM_CFLAGS) -O2
%canon_reldir%_bench_trace_ring_LDADD = -lpthread
endif
EXTRA_DIST += %reldir%/trace-icount
