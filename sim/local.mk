# SPDX-License-Identifier: BSD-2-Clause
# ksim, the Linux-hosted platform: a library (so the Check suites can
# start a machine in-process) and the `ksim` program around it.  The
# library carries the portable kernel too (one archive, so the linker
# resolves kernel -> hal -> kernel in one pass).
if PLATFORM_SIM
noinst_LTLIBRARIES += sim/libksim.la
sim_libksim_la_SOURCES = \
	%reldir%/ksim.h \
	%reldir%/sim.h \
	%reldir%/console.c \
	%reldir%/context.c \
	%reldir%/cpu.c \
	%reldir%/fault.c \
	%reldir%/firmware.c \
	%reldir%/image.c \
	%reldir%/kglue.c \
	%reldir%/machine.c \
	%reldir%/mem.c \
	%reldir%/netdev.c %reldir%/netdev.h \
	%reldir%/platform.c \
	%reldir%/pmu.c \
	%reldir%/pmu_count.c \
	%reldir%/power.c \
	%reldir%/probe.c \
	%reldir%/probe_entry.S \
	%reldir%/random.c \
	%reldir%/start.c \
	%reldir%/thread_entry.S \
	%reldir%/tick_entry.S \
	%reldir%/tick.c \
	%reldir%/timer.c \
	%reldir%/trap.c \
	%reldir%/udp.c \
	tools/keyfile.c tools/keyfile.h
sim_libksim_la_LIBADD = src/libkprof.la

# Debian's gcc links position-independent executables by default; ksim
# is linked as a fixed image, as a kernel is.  Its symbol table comes from
# the three-pass link (tools/kp-link3, doc/internals.md).
bin_PROGRAMS += ksim
ksim_SOURCES = %reldir%/main.c
ksim_LDADD = sim/libksim.la
ksim_LDFLAGS = -Wc,-no-pie
ksim_LINK = $(KP_LINK3_PROG)
EXTRA_ksim_DEPENDENCIES = $(KP_LINK3_DEPS)
endif
