# SPDX-License-Identifier: BSD-2-Clause
# The portable kernel: one convenience library linked into every program
# and test of every platform.  Built integer-only everywhere.
noinst_LTLIBRARIES += src/libkprof.la
src_libkprof_la_CFLAGS = $(AM_CFLAGS) $(KP_SRC_CFLAGS) $(KP_PROBE_CFLAGS)
src_libkprof_la_SOURCES = \
	%reldir%/hal/console.h \
	%reldir%/hal/context.h \
	%reldir%/hal/cpu.h \
	%reldir%/hal/entry.h \
	%reldir%/hal/firmware.h \
	%reldir%/hal/image.h \
	%reldir%/hal/mem.h \
	%reldir%/hal/platform.h \
	%reldir%/hal/netdev.h \
	%reldir%/hal/pmu.h \
	%reldir%/hal/probe.h \
	%reldir%/hal/power.h \
	%reldir%/hal/random.h \
	%reldir%/hal/timer.h \
	%reldir%/hal/trap.h

include %reldir%/lib/local.mk
include %reldir%/kernel/local.mk
include %reldir%/prof/local.mk
include %reldir%/work/local.mk
include %reldir%/drivers/local.mk
include %reldir%/shell/local.mk
include %reldir%/net/local.mk
include %reldir%/init/local.mk
