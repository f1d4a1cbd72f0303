# SPDX-License-Identifier: BSD-2-Clause
# kernel suites: the scheduler (check_sched), the boot command line
# (check_cmdline); symbols and stack walks in symbols.mk.
if PLATFORM_SIM
check_PROGRAMS += %reldir%/check_sched %reldir%/check_cmdline
TESTS += %reldir%/check_sched %reldir%/check_cmdline
%canon_reldir%_check_sched_SOURCES = %reldir%/check_sched.c $(FAKE_HAL_SOURCES)
%canon_reldir%_check_sched_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_sched_LDADD = $(TEST_LDADD)

%canon_reldir%_check_cmdline_SOURCES = %reldir%/check_cmdline.c $(FAKE_HAL_SOURCES)
%canon_reldir%_check_cmdline_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_cmdline_LDADD = $(TEST_LDADD)
endif

include %reldir%/symbols.mk

# The trace ring alone, with its race points (nesting, a reader inside).
if PLATFORM_SIM
check_PROGRAMS += %reldir%/check_trace_ring
TESTS += %reldir%/check_trace_ring
%canon_reldir%_check_trace_ring_SOURCES = %reldir%/check_trace_ring.c src/kernel/trace_ring.c
%canon_reldir%_check_trace_ring_CFLAGS = $(TEST_CFLAGS) -DKPROF_RACE_POINTS
%canon_reldir%_check_trace_ring_LDADD = $(CHECK_LIBS) -lpthread
endif
