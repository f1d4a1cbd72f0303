# SPDX-License-Identifier: BSD-2-Clause
# prof suites: the sampler, arming and the report's wait (check_profiler),
# folding and report texts against tests/golden/ (check_report), and the
# shell's profile and lscpu (check_profile_cmd), counting mode (check_stat).
if PLATFORM_SIM
PROF_TEST_SOURCES = \
	%reldir%/prof_testlib.c %reldir%/prof_testlib.h \
	$(FAKE_HAL_SOURCES)
PROF_TEST_CFLAGS = $(TEST_CFLAGS) \
	-DGOLDEN_DIR='"$(abs_top_srcdir)/%reldir%/golden"' \
	-DGOLDEN_OUT_DIR='"$(abs_top_builddir)/%reldir%/golden-out"'

check_PROGRAMS += %reldir%/check_profiler %reldir%/check_report \
	%reldir%/check_profile_cmd %reldir%/check_stat %reldir%/check_views
TESTS += %reldir%/check_profiler %reldir%/check_report \
	%reldir%/check_profile_cmd %reldir%/check_stat %reldir%/check_views

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

# The x86 PMU backend compiled against modelled CPUs: arch/x86_64/pmu.c
# with its access layer (pmu_hw.h) answered by tests/x86_model.c.
check_PROGRAMS += %reldir%/check_x86pmu
TESTS += %reldir%/check_x86pmu
%canon_reldir%_check_x86pmu_SOURCES = %reldir%/check_x86pmu.c \
	%reldir%/x86_model.c %reldir%/x86_model.h \
	arch/x86_64/pmu.c arch/x86_64/pmu_hw.h
%canon_reldir%_check_x86pmu_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_x86pmu_LDADD = $(TEST_LDADD)

# The same backend, with the real profiler, under every interleaving:
# both built with their race points (lib/race_point.h); the backend is
# #included by the test so that its state can be reset between runs.
check_PROGRAMS += %reldir%/check_x86pmu_race
TESTS += %reldir%/check_x86pmu_race
%canon_reldir%_check_x86pmu_race_SOURCES = %reldir%/check_x86pmu_race.c \
	%reldir%/x86_model.c %reldir%/x86_model.h \
	$(FAKE_HAL_SOURCES) src/prof/profiler.c src/prof/drain.c src/prof/sampler.c
%canon_reldir%_check_x86pmu_race_CFLAGS = $(TEST_CFLAGS) -DKPROF_RACE_POINTS
%canon_reldir%_check_x86pmu_race_LDADD = $(TEST_LDADD)

# What firmware and GRUB hand the x86 kernel: the local APIC in both
# modes against tests/apic_model.c, the MADT's entries, the Multiboot2
# tags and GRUB's requoting (issue 44).
check_PROGRAMS += %reldir%/check_x86boot
TESTS += %reldir%/check_x86boot
%canon_reldir%_check_x86boot_SOURCES = %reldir%/check_x86boot.c \
	%reldir%/apic_model.c %reldir%/apic_model.h \
	arch/x86_64/lapic.c arch/x86_64/acpi.c arch/x86_64/multiboot2.c \
	arch/x86_64/bootinfo.c arch/x86_64/bootinfo.h arch/x86_64/pmu_hw.h \
	arch/x86_64/tsc_cpuid.c
%canon_reldir%_check_x86boot_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_x86boot_LDADD = $(TEST_LDADD)
endif
EXTRA_DIST += %reldir%/golden
