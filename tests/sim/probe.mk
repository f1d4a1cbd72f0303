# SPDX-License-Identifier: BSD-2-Clause
# Probes on the simulator (check_probe, issue 59): entries patched while
# the simulated CPUs run them, held against split's own counts.  The
# image carries its own symbol table: `probe add` finds functions by
# name.
if PLATFORM_SIM
check_PROGRAMS += %reldir%/check_probe
TESTS += %reldir%/check_probe
%canon_reldir%_check_probe_SOURCES = %reldir%/check_probe.c $(SIM_TEST_SOURCES)
%canon_reldir%_check_probe_CPPFLAGS = $(AM_CPPFLAGS) \
	-DKSIM_PATH='"$(abs_top_builddir)/ksim"'
%canon_reldir%_check_probe_CFLAGS = $(SIM_TEST_CFLAGS)
%canon_reldir%_check_probe_LDADD = $(SIM_TEST_LDADD)
%canon_reldir%_check_probe_LDFLAGS = -Wc,-no-pie
%canon_reldir%_check_probe_LINK = $(KP_LINK3_PROG)
EXTRA_%canon_reldir%_check_probe_DEPENDENCIES = ksim$(EXEEXT) $(KP_LINK3_DEPS)

# The long stress, outside `make check`: 100 probes on and off 1000
# times under load (make check runs 3 rounds).
check-probe-stress: %reldir%/check_probe$(EXEEXT)
	KPROF_PROBE_ROUNDS=1000 CK_RUN_CASE=stress CK_TIMEOUT_MULTIPLIER=10 \
		$(builddir)/%reldir%/check_probe
endif
.PHONY: check-probe-stress
