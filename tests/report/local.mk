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
TESTS += $(REPORT_TESTS)
# The whole path on ksim sessions (folded output; 77 where the kernel prints none).
# The address view resolved against ksim's own ELF.
if PLATFORM_SIM
TESTS += %reldir%/test_report_ksim %reldir%/test_report_addr
endif
# kprof-report trace on a ksim trace: the Chrome trace format's rules.
if PLATFORM_SIM
TESTS += %reldir%/test_report_trace
endif
EXTRA_DIST += %reldir%/test_report_trace
EXTRA_DIST += $(REPORT_TESTS) %reldir%/test_report_ksim \
	%reldir%/test_report_addr \
	%reldir%/before.folded %reldir%/after.folded \
	%reldir%/bare.folded %reldir%/wall.folded \
	%reldir%/top-before.txt %reldir%/top-after-n5.txt \
	%reldir%/top-bare.txt %reldir%/diff-text.txt \
	%reldir%/diff-text-pids.txt
