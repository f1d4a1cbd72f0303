# SPDX-License-Identifier: BSD-2-Clause
# arch suites: the x86_64 backend's host-testable parts, built in the
# simulator configuration against modelled CPUs and firmware.
if PLATFORM_SIM
# The x86 PMU backend compiled against modelled CPUs: arch/x86_64/pmu*.c
# with its access layer (pmu_hw.h) answered by tests/kit/x86_model.c.
check_PROGRAMS += %reldir%/check_x86pmu
TESTS += %reldir%/check_x86pmu
%canon_reldir%_check_x86pmu_SOURCES = %reldir%/check_x86pmu.c \
	tests/kit/x86_model.c tests/kit/x86_model.h \
	arch/x86_64/pmu.c arch/x86_64/pmu_intel.c arch/x86_64/pmu_amd.c \
	arch/x86_64/pmu_nmi.c arch/x86_64/pmu_priv.h arch/x86_64/pmu_hw.h
%canon_reldir%_check_x86pmu_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_x86pmu_LDADD = $(TEST_LDADD)

# The same backend, with the real profiler, under every interleaving:
# both built with their race points (lib/race_point.h); the backend is
# #included by the test so that its state can be reset between runs.
check_PROGRAMS += %reldir%/check_x86pmu_race
TESTS += %reldir%/check_x86pmu_race
%canon_reldir%_check_x86pmu_race_SOURCES = %reldir%/check_x86pmu_race.c \
	tests/kit/x86_model.c tests/kit/x86_model.h \
	$(FAKE_HAL_SOURCES) src/prof/profiler.c src/prof/drain.c src/prof/sampler.c
%canon_reldir%_check_x86pmu_race_CFLAGS = $(TEST_CFLAGS) -DKPROF_RACE_POINTS
%canon_reldir%_check_x86pmu_race_LDADD = $(TEST_LDADD)

# What firmware and GRUB hand the x86 kernel: the local APIC in both
# modes against tests/kit/apic_model.c, the MADT's entries, the Multiboot2
# tags and GRUB's requoting.
check_PROGRAMS += %reldir%/check_x86boot
TESTS += %reldir%/check_x86boot
%canon_reldir%_check_x86boot_SOURCES = %reldir%/check_x86boot.c \
	tests/kit/apic_model.c tests/kit/apic_model.h \
	arch/x86_64/lapic.c arch/x86_64/acpi.c arch/x86_64/multiboot2.c \
	arch/x86_64/bootinfo.c arch/x86_64/bootinfo.h arch/x86_64/pmu_hw.h \
	arch/x86_64/tsc_cpuid.c
%canon_reldir%_check_x86boot_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_x86boot_LDADD = $(TEST_LDADD)
endif
