# SPDX-License-Identifier: BSD-2-Clause
src_libkprof_la_SOURCES += \
	%reldir%/commands.c %reldir%/commands.h \
	%reldir%/shell.c %reldir%/shell.h \
	%reldir%/input.c \
	%reldir%/console.c \
	%reldir%/udpsh/udpsh.h %reldir%/udpsh/internal.h \
	%reldir%/udpsh/admit.c %reldir%/udpsh/allow.c \
	%reldir%/udpsh/reply.c %reldir%/udpsh/cookie.c \
	%reldir%/udpsh/tickets.c \
	%reldir%/udpsh/wire.c %reldir%/udpsh/wire.h \
	%reldir%/udpsh/serving.c %reldir%/udpsh/serving.h \
	%reldir%/udpsh/boot_keys.c \
	%reldir%/udpsh/secrets.c %reldir%/udpsh/secrets.h \
	%reldir%/udpsh/net.c %reldir%/udpsh/net.h \
	%reldir%/cmd_help.c
src_libkprof_la_SOURCES += \
	%reldir%/cmd_ps.c \
	%reldir%/cmd_stacks.c \
	%reldir%/cmd_uptime.c \
	%reldir%/cmd_work.c
src_libkprof_la_SOURCES += \
	%reldir%/cmd_lscpu.c \
	%reldir%/cmd_profile.c \
	%reldir%/cmd_stat.c
src_libkprof_la_SOURCES += \
	%reldir%/cmd_events.c
src_libkprof_la_SOURCES += \
	%reldir%/cmd_poweroff.c \
	%reldir%/cmd_test.c
src_libkprof_la_SOURCES += \
	%reldir%/cmd_net.c \
	%reldir%/cmd_netload.c \
	%reldir%/netload_args.c %reldir%/netload_args.h
src_libkprof_la_SOURCES += \
	%reldir%/cmd_trace.c
src_libkprof_la_SOURCES += \
	%reldir%/cmd_probe.c
