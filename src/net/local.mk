# SPDX-License-Identifier: BSD-2-Clause
# The IPv4/UDP stack: no hardware in here (hal/netdev.h).
src_libkprof_la_SOURCES += \
	%reldir%/arp.c \
	%reldir%/checksum.c \
	%reldir%/config.c \
	%reldir%/icmp.c \
	%reldir%/iperf.c %reldir%/iperf.h \
	%reldir%/internal.h \
	%reldir%/ipv4.c \
	%reldir%/net.c %reldir%/net.h \
	%reldir%/netload.c %reldir%/netload.h \
	%reldir%/rx.c \
	%reldir%/start.c \
	%reldir%/udp.c \
	%reldir%/wire.h
