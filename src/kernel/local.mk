# SPDX-License-Identifier: BSD-2-Clause
src_libkprof_la_SOURCES += \
	%reldir%/backtrace.c %reldir%/backtrace.h \
	%reldir%/build_id.c %reldir%/build_id.h \
	%reldir%/cmdline.c %reldir%/cmdline.h \
	%reldir%/console.c %reldir%/console.h \
	%reldir%/deep.c \
	%reldir%/heap.c %reldir%/heap.h \
	%reldir%/kernel.c %reldir%/kernel.h \
	%reldir%/page.c %reldir%/page.h \
	%reldir%/panic.c %reldir%/panic.h \
	%reldir%/random.c %reldir%/random.h \
	%reldir%/sched.c %reldir%/sched.h \
	%reldir%/split.c %reldir%/split.h \
	%reldir%/stacktrace.c %reldir%/stacktrace.h \
	%reldir%/stat.c %reldir%/stat.h \
	%reldir%/symbols.c %reldir%/symbols.h \
	%reldir%/task.c %reldir%/task.h \
	%reldir%/work.c %reldir%/work.h

include %reldir%/prof.mk
