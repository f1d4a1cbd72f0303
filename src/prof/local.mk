# SPDX-License-Identifier: BSD-2-Clause
# The profiler: sampling, arming, folding and the report, and counting
# mode (`stat`).
src_libkprof_la_SOURCES += \
	%reldir%/fold.c %reldir%/fold.h \
	%reldir%/profiler.c %reldir%/profiler.h \
	%reldir%/report.c %reldir%/report.h \
	%reldir%/session.c %reldir%/session.h \
	%reldir%/stat.c %reldir%/stat.h \
	%reldir%/throttle.c %reldir%/throttle.h \
	%reldir%/views.c
