# SPDX-License-Identifier: BSD-2-Clause
# Wall-clock profiles on the simulator (check_wall): sleepy's paths
# against its own truth, each task's states against its time alive, and
# the edges (tasks born and exiting in the window, a pid filter, depth=,
# a CPU that never switches, a wait that began before the window, a
# switch rate past the rings', a switch stalled inside the hook).  The
# views name functions: the image carries its own table.  The switch
# hook and the wall books are built into it with their race points
# (lib/race_point.h), so that a test can stall a switch or the collect
# at one; the library's copies are not linked.
if PLATFORM_SIM
check_PROGRAMS += %reldir%/check_wall
TESTS += %reldir%/check_wall
%canon_reldir%_check_wall_SOURCES = %reldir%/check_wall.c $(SIM_TEST_SOURCES) \
	src/prof/offcpu.c src/prof/wall.c src/prof/wall_start.c src/prof/wall_books.c \
	src/prof/wall_collect.c
%canon_reldir%_check_wall_CFLAGS = $(SIM_TEST_CFLAGS) -DKPROF_RACE_POINTS
%canon_reldir%_check_wall_LDADD = $(SIM_TEST_LDADD)
%canon_reldir%_check_wall_LDFLAGS = -Wc,-no-pie
%canon_reldir%_check_wall_LINK = $(KP_LINK3_LIBTOOL) $(%canon_reldir%_check_wall_CFLAGS) \
	$(CFLAGS) $(%canon_reldir%_check_wall_LDFLAGS) $(LDFLAGS) -o $@
EXTRA_%canon_reldir%_check_wall_DEPENDENCIES = $(KP_LINK3_DEPS)
CLEANFILES += %reldir%/check_wall.symtab.*
endif
