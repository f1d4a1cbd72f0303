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
