# SPDX-License-Identifier: BSD-2-Clause
src_libkprof_la_SOURCES += \
	%reldir%/commands.c %reldir%/commands.h \
	%reldir%/shell.c %reldir%/shell.h \
	%reldir%/input.c \
	%reldir%/console.c \
	%reldir%/udpsh.c %reldir%/udpsh.h \
	%reldir%/udpsh_wire.c %reldir%/udpsh_wire.h \
	%reldir%/udpsh_serving.c %reldir%/udpsh_serving.h \
	%reldir%/udpsh_config.c \
	%reldir%/udpsh_net.c %reldir%/udpsh_net.h \
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
	%reldir%/cmd_poweroff.c \
	%reldir%/cmd_test.c
src_libkprof_la_SOURCES += \
	%reldir%/cmd_net.c \
	%reldir%/cmd_netload.c \
	%reldir%/netload_args.c %reldir%/netload_args.h
