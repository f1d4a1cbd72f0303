# SPDX-License-Identifier: BSD-2-Clause
# shell suites: the line rules, help and the console (check_shell), the
# UDP shell core (check_udpsh).  Each defines its own shell_commands[], so
# the real table and its commands are not linked in.
if PLATFORM_SIM
check_PROGRAMS += tests/check_shell tests/check_udpsh
TESTS += tests/check_shell tests/check_udpsh
tests_check_shell_SOURCES = tests/check_shell.c $(FAKE_HAL_SOURCES)
tests_check_shell_CFLAGS = $(TEST_CFLAGS)
tests_check_shell_LDADD = $(TEST_LDADD)
tests_check_udpsh_SOURCES = tests/check_udpsh.c $(FAKE_HAL_SOURCES)
tests_check_udpsh_CPPFLAGS = $(AM_CPPFLAGS) -DKP_TEST_SRCDIR='"$(abs_top_srcdir)"'
tests_check_udpsh_CFLAGS = $(TEST_CFLAGS)
tests_check_udpsh_LDADD = $(TEST_LDADD)
endif

# doc/shell.md against the real command table (shell/commands.c): every
# command documented with its grammar, and `NAME --help` for each.
if PLATFORM_SIM
check_PROGRAMS += tests/check_shell_doc
TESTS += tests/check_shell_doc
tests_check_shell_doc_SOURCES = tests/check_shell_doc.c $(FAKE_HAL_SOURCES)
tests_check_shell_doc_CPPFLAGS = $(AM_CPPFLAGS) -DKP_TEST_SRCDIR='"$(abs_top_srcdir)"'
tests_check_shell_doc_CFLAGS = $(TEST_CFLAGS)
tests_check_shell_doc_LDADD = $(TEST_LDADD)
endif
