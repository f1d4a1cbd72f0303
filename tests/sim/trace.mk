# SPDX-License-Identifier: BSD-2-Clause
# `trace` on the simulator (check_trace): the ping-pong truth, exact lost
# counts, the quiet CPU, bad input, a trace beside a wall profile.
if PLATFORM_SIM
check_PROGRAMS += %reldir%/check_trace
TESTS += %reldir%/check_trace
%canon_reldir%_check_trace_SOURCES = %reldir%/check_trace.c $(SIM_TEST_SOURCES) \
	tests/kit/fake_symtab.c
%canon_reldir%_check_trace_CFLAGS = $(SIM_TEST_CFLAGS)
%canon_reldir%_check_trace_LDADD = $(SIM_TEST_LDADD)
endif
