# SPDX-License-Identifier: BSD-2-Clause
# prof suites: the sampler, arming and the report's wait (check_profiler),
# folding and report texts against %reldir%/golden/ (check_report), and the
# shell's profile and lscpu (check_profile_cmd), counting mode (check_stat),
# the views (check_views); wall-clock profiles in wall.mk.
if PLATFORM_SIM
PROF_TEST_SOURCES = \
	tests/kit/prof_testlib.c tests/kit/prof_testlib.h \
	$(FAKE_HAL_SOURCES)
PROF_TEST_CFLAGS = $(TEST_CFLAGS) \
	-DGOLDEN_DIR='"$(abs_top_srcdir)/%reldir%/golden"' \
	-DGOLDEN_OUT_DIR='"$(abs_top_builddir)/%reldir%/golden-out"'

check_PROGRAMS += %reldir%/check_profiler %reldir%/check_report \
	%reldir%/check_profile_cmd %reldir%/check_stat %reldir%/check_views
TESTS += %reldir%/check_profiler %reldir%/check_report \
	%reldir%/check_profile_cmd %reldir%/check_stat %reldir%/check_views

# Any event (`events`, `stat events=`, `stat pid=`): the table, the list,
# the sets, rotation and scaling, per-task counts.
check_PROGRAMS += %reldir%/check_events
TESTS += %reldir%/check_events
%canon_reldir%_check_events_SOURCES = %reldir%/check_events.c $(PROF_TEST_SOURCES)
%canon_reldir%_check_events_CFLAGS = $(PROF_TEST_CFLAGS)
%canon_reldir%_check_events_LDADD = $(TEST_LDADD)

# The folded views read back through the host's one reader.
%canon_reldir%_check_views_SOURCES = %reldir%/check_views.c $(PROF_TEST_SOURCES) \
	tools/folded_read.c tools/folded_read.h
%canon_reldir%_check_views_CFLAGS = $(PROF_TEST_CFLAGS) -I$(top_srcdir)/tools
%canon_reldir%_check_views_LDADD = $(TEST_LDADD)

# The profiler built with its race points (lib/race_point.h), so that a
# test can play a drain that runs beside the session's holder.
%canon_reldir%_check_profiler_SOURCES = %reldir%/check_profiler.c $(PROF_TEST_SOURCES) \
	src/prof/profiler.c src/prof/drain.c src/prof/sampler.c
%canon_reldir%_check_profiler_CFLAGS = $(PROF_TEST_CFLAGS) -DKPROF_RACE_POINTS
%canon_reldir%_check_profiler_LDADD = $(TEST_LDADD) -lpthread

%canon_reldir%_check_report_SOURCES = %reldir%/check_report.c $(PROF_TEST_SOURCES)
%canon_reldir%_check_report_CFLAGS = $(PROF_TEST_CFLAGS)
%canon_reldir%_check_report_LDADD = $(TEST_LDADD)

%canon_reldir%_check_profile_cmd_SOURCES = %reldir%/check_profile_cmd.c $(PROF_TEST_SOURCES)
%canon_reldir%_check_profile_cmd_CFLAGS = $(PROF_TEST_CFLAGS)
%canon_reldir%_check_profile_cmd_LDADD = $(TEST_LDADD)

%canon_reldir%_check_stat_SOURCES = %reldir%/check_stat.c $(PROF_TEST_SOURCES)
%canon_reldir%_check_stat_CFLAGS = $(PROF_TEST_CFLAGS)
%canon_reldir%_check_stat_LDADD = $(TEST_LDADD)

CLEANFILES += %reldir%/golden-out/*.txt

endif
EXTRA_DIST += %reldir%/golden

include %reldir%/wall.mk

# Probes' handler and management on the fake platform (issue 59): the
# test plays the trampolines (tests/kit/fake_probe.c).
if PLATFORM_SIM
check_PROGRAMS += %reldir%/check_probe_hit
TESTS += %reldir%/check_probe_hit
%canon_reldir%_check_probe_hit_SOURCES = %reldir%/check_probe_hit.c $(PROF_TEST_SOURCES)
%canon_reldir%_check_probe_hit_CFLAGS = $(PROF_TEST_CFLAGS)
%canon_reldir%_check_probe_hit_LDADD = $(TEST_LDADD)
endif
