# SPDX-License-Identifier: BSD-2-Clause
# tools/kprof-report (doc/kprof-report.1), in every configuration: the
# program is built for the build machine wherever the kernel is built
# for.  Python scripts over the fixtures in tests/report/: the command
# line, goldens and bad input (test_report), the SVG's geometry
# (test_report_svg), the pprof output read back by a decoder in the test
# (test_report_pprof) and by go tool pprof (test_report_gopprof; 77
# without golang-go); in the simulator, the same on ksim sessions.
REPORT_TESTS = %reldir%/test_report %reldir%/test_report_svg \
	%reldir%/test_report_pprof %reldir%/test_report_gopprof \
	%reldir%/test_report_wall
# pprof's web UI (go tool pprof -http) names no task as a frame.
REPORT_TESTS += %reldir%/test_report_gowebui
TESTS += $(REPORT_TESTS)
# The whole path on ksim sessions (folded output; 77 where the kernel prints none).
# The address view resolved against ksim's own ELF.
if PLATFORM_SIM
TESTS += %reldir%/test_report_ksim %reldir%/test_report_addr
# One session, one total, in every view (folded weight, addr, top, SVG,
# pprof, merge).
TESTS += %reldir%/test_report_weights
# The wall view by address: off-CPU stacks with their lines.
TESTS += %reldir%/test_report_wall_addr
# pprof -http's source view of it, from outside the build folder.
TESTS += %reldir%/test_report_websource
# README.md's "From the hot function to the hot line", run as written.
TESTS += tests/test_readme_hotline
endif
# kprof-report trace on a ksim trace: the Chrome trace format's rules.
if PLATFORM_SIM
TESTS += %reldir%/test_report_trace
endif
EXTRA_DIST += %reldir%/test_report_trace
EXTRA_DIST += $(REPORT_TESTS) %reldir%/test_report_ksim \
	%reldir%/test_report_addr %reldir%/test_report_weights \
	%reldir%/test_report_wall_addr %reldir%/test_report_websource \
	tests/test_readme_hotline \
	%reldir%/before.folded %reldir%/after.folded \
	%reldir%/bare.folded %reldir%/wall.folded \
	%reldir%/top-before.txt %reldir%/top-after-n5.txt \
	%reldir%/top-bare.txt %reldir%/diff-text.txt \
	%reldir%/diff-text-pids.txt
# Every image names its sources by absolute path (KP_DEBUG_PREFIX_MAP,
# Makefile.am), in every configuration: its own image read.
# (The log's rule through a variable: a rule automake sees by its name
# would replace the one it writes to run the test.)
TESTS += tests/check-dwarf-paths
EXTRA_DIST += tests/check-dwarf-paths
dwarf_check_log = tests/check-
if PLATFORM_SIM
$(dwarf_check_log)dwarf-paths.log: ksim$(EXEEXT)
endif
if PLATFORM_X86_64
$(dwarf_check_log)dwarf-paths.log: $(X86_KERNEL)
endif
if PLATFORM_ARM64
$(dwarf_check_log)dwarf-paths.log: $(ARM64_KERNEL)
endif
