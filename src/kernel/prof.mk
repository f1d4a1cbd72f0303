# SPDX-License-Identifier: BSD-2-Clause
# The profiler: sampling, arming, folding and the report.
src_libkprof_la_SOURCES += \
	%reldir%/fold.c %reldir%/fold.h \
	%reldir%/profiler.c %reldir%/profiler.h \
	%reldir%/report.c %reldir%/report.h \
	%reldir%/session.c %reldir%/session.h \
	%reldir%/throttle.c %reldir%/throttle.h \
	%reldir%/views.c
