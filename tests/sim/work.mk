# SPDX-License-Identifier: BSD-2-Clause
# work start/stop on the simulator (check_work): tasks that exit, are
# reaped and whose memory a later start reuses.  Run by the sanitizer
# build too, where a dead task's stack returned to the heap still
# poisoned used to abort the second start.
if PLATFORM_SIM
check_PROGRAMS += %reldir%/check_work
TESTS += %reldir%/check_work
%canon_reldir%_check_work_SOURCES = %reldir%/check_work.c $(SIM_TEST_SOURCES) \
	tests/kit/fake_symtab.c
%canon_reldir%_check_work_CFLAGS = $(SIM_TEST_CFLAGS)
%canon_reldir%_check_work_LDADD = $(SIM_TEST_LDADD)
endif
