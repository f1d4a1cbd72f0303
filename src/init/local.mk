# SPDX-License-Identifier: BSD-2-Clause
# The boot story and its own command-line keys: the top layer, the only
# one that knows the order in which the others come up.
src_libkprof_la_SOURCES += \
	%reldir%/banner.c %reldir%/banner.h \
	%reldir%/boot_args.c %reldir%/boot_args.h \
	%reldir%/main.c
