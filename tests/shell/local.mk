# SPDX-License-Identifier: BSD-2-Clause
# shell suites: the line rules, help and the console (check_shell), the
# UDP shell core (check_udpsh_*, one a concern of src/shell/udpsh/).
# Each program defines its own shell_commands[], so the real table and
# its commands are not linked in.
if PLATFORM_SIM
check_PROGRAMS += tests/check_shell
TESTS += tests/check_shell
tests_check_shell_SOURCES = tests/check_shell.c $(FAKE_HAL_SOURCES)
tests_check_shell_CFLAGS = $(TEST_CFLAGS)
tests_check_shell_LDADD = $(TEST_LDADD)

# The UDP shell core's suites share a kit (tests/udpsh_testlib.h): the
# recording transport, the test command table, the keyed helpers.
check_LTLIBRARIES += tests/libudpshtest.la
tests_libudpshtest_la_SOURCES = tests/udpsh_testlib.c tests/udpsh_testlib.h
tests_libudpshtest_la_CFLAGS = $(TEST_CFLAGS)
UDPSH_TEST_LDADD = tests/libudpshtest.la $(TEST_LDADD)
check_PROGRAMS += tests/check_udpsh_admit tests/check_udpsh_reply \
	tests/check_udpsh_allow tests/check_udpsh_tickets \
	tests/check_udpsh_cookies tests/check_udpsh_wire
TESTS += tests/check_udpsh_admit tests/check_udpsh_reply \
	tests/check_udpsh_allow tests/check_udpsh_tickets \
	tests/check_udpsh_cookies tests/check_udpsh_wire
tests_check_udpsh_admit_SOURCES = tests/check_udpsh_admit.c $(FAKE_HAL_SOURCES)
tests_check_udpsh_admit_CFLAGS = $(TEST_CFLAGS)
tests_check_udpsh_admit_LDADD = $(UDPSH_TEST_LDADD)
tests_check_udpsh_reply_SOURCES = tests/check_udpsh_reply.c $(FAKE_HAL_SOURCES)
tests_check_udpsh_reply_CFLAGS = $(TEST_CFLAGS)
tests_check_udpsh_reply_LDADD = $(UDPSH_TEST_LDADD)
tests_check_udpsh_allow_SOURCES = tests/check_udpsh_allow.c $(FAKE_HAL_SOURCES)
tests_check_udpsh_allow_CFLAGS = $(TEST_CFLAGS)
tests_check_udpsh_allow_LDADD = $(UDPSH_TEST_LDADD)
tests_check_udpsh_tickets_SOURCES = tests/check_udpsh_tickets.c $(FAKE_HAL_SOURCES)
tests_check_udpsh_tickets_CFLAGS = $(TEST_CFLAGS)
tests_check_udpsh_tickets_LDADD = $(UDPSH_TEST_LDADD)
tests_check_udpsh_cookies_SOURCES = tests/check_udpsh_cookies.c $(FAKE_HAL_SOURCES)
tests_check_udpsh_cookies_CFLAGS = $(TEST_CFLAGS)
tests_check_udpsh_cookies_LDADD = $(UDPSH_TEST_LDADD)
# doc/shell.md's worked example, read from the source folder.
tests_check_udpsh_wire_SOURCES = tests/check_udpsh_wire.c $(FAKE_HAL_SOURCES)
tests_check_udpsh_wire_CPPFLAGS = $(AM_CPPFLAGS) -DKP_TEST_SRCDIR='"$(abs_top_srcdir)"'
tests_check_udpsh_wire_CFLAGS = $(TEST_CFLAGS)
tests_check_udpsh_wire_LDADD = $(UDPSH_TEST_LDADD)
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
