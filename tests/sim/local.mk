# SPDX-License-Identifier: BSD-2-Clause
# sim suites: the simulated platform itself (check_sim), and what needs a
# working perf_event_open (check_sim_perf, skipped with 77 when refused);
# the stress suites below, work start/stop in work.mk.
# Each test starts a whole machine in Check's forked child, so these link
# the simulator (sim/libksim.la), not the fake platform.
if PLATFORM_SIM
SIM_TEST_SOURCES = tests/kit/sim_fixture.c tests/kit/sim_fixture.h
SIM_TEST_LDADD = tests/libtesthelp.la sim/libksim.la $(CHECK_LIBS)
SIM_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/tests/kit \
	-DKP_TEST_SRCDIR='"$(abs_top_srcdir)"'

check_PROGRAMS += %reldir%/check_sim
TESTS += %reldir%/check_sim
%canon_reldir%_check_sim_SOURCES = %reldir%/check_sim.c $(SIM_TEST_SOURCES)
%canon_reldir%_check_sim_CPPFLAGS = $(AM_CPPFLAGS) \
	-DKSIM_PATH='"$(abs_top_builddir)/ksim"'
%canon_reldir%_check_sim_CFLAGS = $(SIM_TEST_CFLAGS)
%canon_reldir%_check_sim_LDADD = $(SIM_TEST_LDADD)
%canon_reldir%_check_sim_LDFLAGS = -Wc,-no-pie
# The report resolves symbols: the image carries its own table.
%canon_reldir%_check_sim_LINK = $(KP_LINK3_PROG)
EXTRA_%canon_reldir%_check_sim_DEPENDENCIES = ksim$(EXEEXT) $(KP_LINK3_DEPS)

# `events` and `stat events=` on ksim: the host's perf events beside the
# kernel's, multiplexed on --pmu-counters, a task followed.
check_PROGRAMS += %reldir%/check_sim_events
TESTS += %reldir%/check_sim_events
%canon_reldir%_check_sim_events_SOURCES = %reldir%/check_sim_events.c $(SIM_TEST_SOURCES)
%canon_reldir%_check_sim_events_CFLAGS = $(SIM_TEST_CFLAGS)
%canon_reldir%_check_sim_events_LDADD = $(SIM_TEST_LDADD)
%canon_reldir%_check_sim_events_LDFLAGS = -Wc,-no-pie
%canon_reldir%_check_sim_events_LINK = $(KP_LINK3_PROG)
EXTRA_%canon_reldir%_check_sim_events_DEPENDENCIES = $(KP_LINK3_DEPS)

check_PROGRAMS += %reldir%/check_sim_perf
TESTS += %reldir%/check_sim_perf
%canon_reldir%_check_sim_perf_SOURCES = %reldir%/check_sim_perf.c $(SIM_TEST_SOURCES)
%canon_reldir%_check_sim_perf_CFLAGS = $(SIM_TEST_CFLAGS)
%canon_reldir%_check_sim_perf_LDADD = $(SIM_TEST_LDADD)
%canon_reldir%_check_sim_perf_LDFLAGS = -Wc,-no-pie
%canon_reldir%_check_sim_perf_LINK = $(KP_LINK3_PROG)
EXTRA_%canon_reldir%_check_sim_perf_DEPENDENCIES = $(KP_LINK3_DEPS)

# `test overflow` on the ksim program, in the shape the kernels' QEMU
# tests check (tests/kptest/overflow.py).
TESTS += tests/test_overflow_ksim
endif
EXTRA_DIST += tests/test_overflow_ksim

# stress suites: start/stop storms and signal rates, with the
# tick (check_stress) and with the counter (check_stress_perf, skipped
# with 77 when perf_event_open is refused).  The storm resolves frames
# against the image's own table.
if PLATFORM_SIM
STRESS_TEST_SOURCES = %reldir%/check_stress_storm.c %reldir%/check_stress_storm.h \
	$(SIM_TEST_SOURCES)

check_PROGRAMS += %reldir%/check_stress
TESTS += %reldir%/check_stress
%canon_reldir%_check_stress_SOURCES = %reldir%/check_stress.c $(STRESS_TEST_SOURCES)
%canon_reldir%_check_stress_CFLAGS = $(SIM_TEST_CFLAGS)
%canon_reldir%_check_stress_LDADD = $(SIM_TEST_LDADD)
%canon_reldir%_check_stress_LDFLAGS = -Wc,-no-pie
%canon_reldir%_check_stress_LINK = $(KP_LINK3_PROG)
EXTRA_%canon_reldir%_check_stress_DEPENDENCIES = $(KP_LINK3_DEPS)

check_PROGRAMS += %reldir%/check_stress_perf
TESTS += %reldir%/check_stress_perf
%canon_reldir%_check_stress_perf_SOURCES = %reldir%/check_stress_perf.c \
	$(STRESS_TEST_SOURCES)
%canon_reldir%_check_stress_perf_CFLAGS = $(SIM_TEST_CFLAGS)
%canon_reldir%_check_stress_perf_LDADD = $(SIM_TEST_LDADD)
%canon_reldir%_check_stress_perf_LDFLAGS = -Wc,-no-pie
%canon_reldir%_check_stress_perf_LINK = $(KP_LINK3_PROG)
EXTRA_%canon_reldir%_check_stress_perf_DEPENDENCIES = $(KP_LINK3_DEPS)
endif

include %reldir%/work.mk
include %reldir%/trace.mk
include %reldir%/probe.mk
