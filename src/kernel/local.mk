# SPDX-License-Identifier: BSD-2-Clause
src_libkprof_la_SOURCES += \
	%reldir%/backtrace.c %reldir%/backtrace.h \
	%reldir%/build_id.c %reldir%/build_id.h \
	%reldir%/cmdline.c %reldir%/cmdline.h %reldir%/cmdline_test.h \
	%reldir%/console.c %reldir%/console.h \
	%reldir%/heap.c %reldir%/heap.h %reldir%/heap_test.h \
	%reldir%/kernel.c %reldir%/kernel.h \
	%reldir%/kevents.c %reldir%/kevents.h \
	%reldir%/page.c %reldir%/page.h \
	%reldir%/panic.c %reldir%/panic.h \
	%reldir%/random.c %reldir%/random.h \
	%reldir%/sched.c %reldir%/sched.h \
	%reldir%/stacktrace.c %reldir%/stacktrace.h \
	%reldir%/symbols.c %reldir%/symbols.h %reldir%/symbols_test.h \
	%reldir%/task.c %reldir%/task.h %reldir%/task_test.h \
	%reldir%/tick.c %reldir%/tick.h \
	%reldir%/trace.c %reldir%/trace.h \
	%reldir%/trace_ring.c %reldir%/trace_ring.h
