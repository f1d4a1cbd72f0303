# SPDX-License-Identifier: BSD-2-Clause
# The profiler: sampling, arming, folding and the report, and counting
# mode (`stat`).
src_libkprof_la_SOURCES += \
	%reldir%/fold.c %reldir%/fold.h %reldir%/fold_test.h \
	%reldir%/folded.c %reldir%/folded.h \
	%reldir%/profiler.c %reldir%/profiler.h %reldir%/profiler_test.h \
	%reldir%/drain.c %reldir%/run.h \
	%reldir%/introspect.c %reldir%/source.c \
	%reldir%/prof_data.h \
	%reldir%/report.c %reldir%/report.h %reldir%/report_test.h \
	%reldir%/sampler.c %reldir%/sampler.h \
	%reldir%/session.c %reldir%/session.h \
	%reldir%/stat.c %reldir%/stat.h %reldir%/stat_test.h \
	%reldir%/stat_cpu.c %reldir%/stat_list.c %reldir%/stat_sched.c \
	%reldir%/stat_plan.h %reldir%/stat_report.c \
	%reldir%/events.c %reldir%/events.h \
	%reldir%/throttle.c %reldir%/throttle.h \
	%reldir%/tick_ask.c %reldir%/tick_ask.h \
	%reldir%/views.c \
	%reldir%/offcpu.c %reldir%/offcpu.h \
	%reldir%/wall.c %reldir%/wall.h %reldir%/wall_internal.h \
	%reldir%/wall_start.c %reldir%/wall_books.c %reldir%/wall_collect.c \
	%reldir%/wall_views.c \
	%reldir%/trace_session.c %reldir%/trace_session.h %reldir%/trace_views.c
src_libkprof_la_SOURCES += \
	%reldir%/probe.c %reldir%/probe.h %reldir%/probe_internal.h \
	%reldir%/probe_hit.c %reldir%/probe_views.c %reldir%/probe_cost.c
