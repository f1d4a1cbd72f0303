# SPDX-License-Identifier: BSD-2-Clause
# Network stack suites: the stack on frames built in memory (check_net),
# netload's iperf 2 format (check_netload).  Both use the recording fake
# network device, tests/fake_netdev.c (part of FAKE_HAL_SOURCES).
if PLATFORM_SIM
NET_TEST_SOURCES = $(FAKE_HAL_SOURCES)

check_PROGRAMS += %reldir%/check_net %reldir%/check_netload
TESTS += %reldir%/check_net %reldir%/check_netload
%canon_reldir%_check_net_SOURCES = %reldir%/check_net.c $(NET_TEST_SOURCES)
%canon_reldir%_check_net_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_net_LDADD = $(TEST_LDADD)
%canon_reldir%_check_netload_SOURCES = %reldir%/check_netload.c $(NET_TEST_SOURCES)
%canon_reldir%_check_netload_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_netload_LDADD = $(TEST_LDADD)

# The virtio family (src/drivers/virtio) against a modelled device on
# each transport.  --wrap lets a test act at the moment the driver turns
# its receive interrupt back on (the race of the poll contract).
check_PROGRAMS += %reldir%/check_virtio
TESTS += %reldir%/check_virtio
%canon_reldir%_check_virtio_SOURCES = %reldir%/check_virtio.c \
	%reldir%/virtio_model.c %reldir%/virtio_model.h $(NET_TEST_SOURCES)
%canon_reldir%_check_virtio_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_virtio_LDFLAGS = -Wl,--wrap=virtq_enable_irq
%canon_reldir%_check_virtio_LDADD = $(TEST_LDADD)

# The 82574L driver (src/drivers/e1000e) against a modelled part: the
# driver needs only its register window, so the suite links nothing else
# of the kernel (tests/e1000e_model.h).
E1000E_CHECK_SOURCES = %reldir%/check_e1000e.c %reldir%/e1000e_model.c \
	%reldir%/e1000e_model.h src/drivers/e1000e/e1000e.c src/lib/kstring.c
check_PROGRAMS += %reldir%/check_e1000e
TESTS += %reldir%/check_e1000e
%canon_reldir%_check_e1000e_SOURCES = $(E1000E_CHECK_SOURCES)
%canon_reldir%_check_e1000e_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_e1000e_LDADD = $(CHECK_LIBS)

# The stack live in ksim: frames injected over its loopback device, and
# two ksims running netload against each other.  Runs the ksim program.
check_PROGRAMS += %reldir%/check_net_sim
TESTS += %reldir%/check_net_sim
%canon_reldir%_check_net_sim_SOURCES = %reldir%/check_net_sim.c
%canon_reldir%_check_net_sim_CPPFLAGS = $(AM_CPPFLAGS) \
	-DKSIM_PATH='"$(abs_top_builddir)/ksim"'
%canon_reldir%_check_net_sim_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_net_sim_LDADD = tests/libtesthelp.la $(CHECK_LIBS)
EXTRA_%canon_reldir%_check_net_sim_DEPENDENCIES = ksim$(EXEEXT)

# The UDP shell under attack (forged sources, ARP poisoning, replay,
# reflection, over-long commands) through ksim's network device, and
# tools/kshell's checks and authenticated protocol: python3 scripts on
# tests/kpnet.py that run ksim and kshell from the build folder.
TESTS += %reldir%/test_udpsh_attacks %reldir%/test_kshell
# (The logs named through a variable: automake would take a rule it sees
# for a .log it generates as a replacement for its own.)
net_script_log = %reldir%/test_
$(net_script_log)udpsh_attacks.log $(net_script_log)kshell.log: ksim$(EXEEXT) \
	tools/kshell$(EXEEXT)
# profile and netload recv keep their window while the UDP shell's
# client keeps sending (ksim --net).
TESTS += %reldir%/test_window_flood
$(net_script_log)window_flood.log: ksim$(EXEEXT)
# kshell -o saves a folded profile, its counts checked against the end
# line, and refuses one that lost a datagram.
TESTS += %reldir%/test_kshell_folded
$(net_script_log)kshell_folded.log: ksim$(EXEEXT) tools/kshell$(EXEEXT)
# tools/kprof-collect on ksim: a minute at 2 s, 20% loss, a restart, and
# kprof-report merge of what it wrote (about 2 minutes).
TESTS += %reldir%/test_collect
$(net_script_log)collect.log: ksim$(EXEEXT) tools/kprof-collect tools/kprof-report
# kprof-collect with a hostile target (a hole, a huge count, 16 MiB, a
# 100k-frame line, drips) beside two ksims and a dead one (about
# 30 s).
TESTS += %reldir%/test_collect_hostile
$(net_script_log)collect_hostile.log: ksim$(EXEEXT) tools/kprof-collect
# kprof-collect's folders (planted links, a shared --out) and the numbers
# it takes from a block's header, against a target played in Python.
TESTS += %reldir%/test_collect_files
$(net_script_log)collect_files.log: tools/kprof-collect
endif
# The same suite in the x86_64 kernel configuration, whose compiler
# builds the kernel: built for this machine with CC_FOR_BUILD, as
# the host tools are (the model tests pass in the x86
# configuration's make check).
if PLATFORM_X86_64
E1000E_HOST_CHECK = %reldir%/check-e1000e-model
check_SCRIPTS = $(E1000E_HOST_CHECK)
TESTS += $(E1000E_HOST_CHECK)
CLEANFILES += $(E1000E_HOST_CHECK)
E1000E_HOST_SRC = $(top_srcdir)/%reldir%/check_e1000e.c \
	$(top_srcdir)/%reldir%/e1000e_model.c \
	$(top_srcdir)/src/drivers/e1000e/e1000e.c $(top_srcdir)/src/lib/kstring.c
$(E1000E_HOST_CHECK): $(E1000E_HOST_SRC) $(top_srcdir)/%reldir%/e1000e_model.h \
		$(top_srcdir)/src/drivers/e1000e/e1000e.h
	@$(MKDIR_P) %reldir%
	$(AM_V_GEN)$(CC_FOR_BUILD) -Wall -Wextra $(CFLAGS_FOR_BUILD) $(CHECK_CFLAGS) \
		-I$(top_builddir) -I$(top_srcdir)/src -I$(top_srcdir)/%reldir% \
		$(LDFLAGS_FOR_BUILD) -o $@ $(E1000E_HOST_SRC) $(CHECK_LIBS)
endif
EXTRA_DIST += %reldir%/check_e1000e.c %reldir%/e1000e_model.c %reldir%/e1000e_model.h
EXTRA_DIST += %reldir%/kpnet.py %reldir%/test_udpsh_attacks %reldir%/test_kshell \
	%reldir%/test_window_flood %reldir%/test_kshell_folded %reldir%/test_collect \
	%reldir%/test_collect_hostile %reldir%/test_collect_files \
	%reldir%/collectlib.py
