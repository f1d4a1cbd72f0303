# SPDX-License-Identifier: BSD-2-Clause
# Network stack suites: the stack on frames built in memory (check_net),
# netload's iperf 2 format (check_netload).  Both use the recording fake
# network device, tests/kit/fake_netdev.c (part of FAKE_HAL_SOURCES).
# Then the stack in ksim (check_net_loss, check_net_sim) and the host
# scripts in tests/ that drive ksim's network device.
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

# Losses counted where they happen, ksim flooded end to end (check_net_loss).
check_PROGRAMS += %reldir%/check_net_loss
TESTS += %reldir%/check_net_loss
%canon_reldir%_check_net_loss_SOURCES = %reldir%/check_net_loss.c \
	$(SIM_TEST_SOURCES) tests/kit/fake_symtab.c
%canon_reldir%_check_net_loss_CFLAGS = $(SIM_TEST_CFLAGS)
%canon_reldir%_check_net_loss_LDADD = $(SIM_TEST_LDADD)

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
# tests/kptest/ that run ksim and kshell from the build folder.
TESTS += tests/test_udpsh_attacks tests/test_kshell
# (The logs named through a variable: automake would take a rule it sees
# for a .log it generates as a replacement for its own.)
net_script_log = tests/test_
$(net_script_log)udpsh_attacks.log $(net_script_log)kshell.log: ksim$(EXEEXT) \
	tools/kshell$(EXEEXT)
# profile and netload recv keep their window while the UDP shell's
# client keeps sending (ksim --net).
TESTS += tests/test_window_flood
$(net_script_log)window_flood.log: ksim$(EXEEXT)
# kshell -o saves a folded profile, its counts checked against the end
# line, and refuses one that lost a datagram.
TESTS += tests/test_kshell_folded
$(net_script_log)kshell_folded.log: ksim$(EXEEXT) tools/kshell$(EXEEXT)
# tools/kprof-collect on ksim: a minute at 2 s, 20% loss, a restart, and
# kprof-report merge of what it wrote (about 2 minutes).
TESTS += tests/test_collect
$(net_script_log)collect.log: ksim$(EXEEXT) tools/kprof-collect tools/kprof-report
# kprof-collect with a hostile target (a hole, a huge count, 16 MiB, a
# 100k-frame line, drips) beside two ksims and a dead one (about
# 30 s).
TESTS += tests/test_collect_hostile
$(net_script_log)collect_hostile.log: ksim$(EXEEXT) tools/kprof-collect
# kprof-collect's folders (planted links, a shared --out) and the numbers
# it takes from a block's header, against a target played in Python.
TESTS += tests/test_collect_files
$(net_script_log)collect_files.log: tools/kprof-collect
# kprof-collect --elf-dir: three ksims' address views resolved into
# Mappings and lines with their targets' labels, merged and read by go
# tool pprof; a missing or mismatched image written by name (about 25 s).
TESTS += tests/test_collect_lines
$(net_script_log)collect_lines.log: ksim$(EXEEXT) tools/kprof-collect tools/kprof-report
endif
EXTRA_DIST += tests/test_udpsh_attacks tests/test_kshell \
	tests/test_window_flood tests/test_kshell_folded tests/test_collect \
	tests/test_collect_hostile tests/test_collect_files \
	tests/test_collect_lines
