# SPDX-License-Identifier: BSD-2-Clause
src_libkprof_la_SOURCES += \
	%reldir%/bytes.h \
	%reldir%/errno.h \
	%reldir%/fdt.c %reldir%/fdt.h \
	%reldir%/fmt.c %reldir%/fmt.h \
	%reldir%/folded_frame.h %reldir%/trace_frame.h %reldir%/folded_write.c %reldir%/folded_write.h \
	%reldir%/kstring.c %reldir%/kstring.h \
	%reldir%/notrace.h \
	%reldir%/out.c %reldir%/out.h \
	%reldir%/parse.c %reldir%/parse.h \
	%reldir%/race_point.h \
	%reldir%/sha256.c %reldir%/sha256.h \
	%reldir%/stack.h \
	%reldir%/ticks.h \
	%reldir%/spinlock.h
