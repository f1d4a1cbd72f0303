# SPDX-License-Identifier: BSD-2-Clause
# The built-in workloads (`work`): code of known shape for the profiler
# to find.
src_libkprof_la_SOURCES += \
	%reldir%/deep.c \
	%reldir%/pingpong.c \
	%reldir%/sleepy.c %reldir%/sleepy_test.h \
	%reldir%/split.c %reldir%/split_test.h \
	%reldir%/swincr.c \
	%reldir%/work.c %reldir%/work.h
