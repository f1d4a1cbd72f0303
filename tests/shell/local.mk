# SPDX-License-Identifier: BSD-2-Clause
# shell suites: the line rules, help and the console (check_shell), the
# UDP shell core (udpsh/check_udpsh_*, one a concern of src/shell/udpsh/).
# check_shell and the udpsh suites each define their own
# shell_commands[], so the real table and its commands are not linked
# into them; a suite on $(TEST_LDADD) alone gets the real ones.
if PLATFORM_SIM
check_PROGRAMS += %reldir%/check_shell
TESTS += %reldir%/check_shell
%canon_reldir%_check_shell_SOURCES = %reldir%/check_shell.c $(FAKE_HAL_SOURCES)
%canon_reldir%_check_shell_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_shell_LDADD = $(TEST_LDADD)

# The UDP shell core's suites share a kit (tests/kit/udpsh_testlib.h): the
# recording transport, the test command table, the keyed helpers.
check_LTLIBRARIES += tests/libudpshtest.la
tests_libudpshtest_la_SOURCES = tests/kit/udpsh_testlib.c tests/kit/udpsh_testlib.h
tests_libudpshtest_la_CFLAGS = $(TEST_CFLAGS)
UDPSH_TEST_LDADD = tests/libudpshtest.la $(TEST_LDADD)
check_PROGRAMS += %reldir%/udpsh/check_udpsh_admit %reldir%/udpsh/check_udpsh_reply \
	%reldir%/udpsh/check_udpsh_allow %reldir%/udpsh/check_udpsh_tickets \
	%reldir%/udpsh/check_udpsh_cookies %reldir%/udpsh/check_udpsh_wire
TESTS += %reldir%/udpsh/check_udpsh_admit %reldir%/udpsh/check_udpsh_reply \
	%reldir%/udpsh/check_udpsh_allow %reldir%/udpsh/check_udpsh_tickets \
	%reldir%/udpsh/check_udpsh_cookies %reldir%/udpsh/check_udpsh_wire
%canon_reldir%_udpsh_check_udpsh_admit_SOURCES = %reldir%/udpsh/check_udpsh_admit.c $(FAKE_HAL_SOURCES)
%canon_reldir%_udpsh_check_udpsh_admit_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_udpsh_check_udpsh_admit_LDADD = $(UDPSH_TEST_LDADD)
%canon_reldir%_udpsh_check_udpsh_reply_SOURCES = %reldir%/udpsh/check_udpsh_reply.c $(FAKE_HAL_SOURCES)
%canon_reldir%_udpsh_check_udpsh_reply_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_udpsh_check_udpsh_reply_LDADD = $(UDPSH_TEST_LDADD)
%canon_reldir%_udpsh_check_udpsh_allow_SOURCES = %reldir%/udpsh/check_udpsh_allow.c $(FAKE_HAL_SOURCES)
%canon_reldir%_udpsh_check_udpsh_allow_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_udpsh_check_udpsh_allow_LDADD = $(UDPSH_TEST_LDADD)
%canon_reldir%_udpsh_check_udpsh_tickets_SOURCES = %reldir%/udpsh/check_udpsh_tickets.c $(FAKE_HAL_SOURCES)
%canon_reldir%_udpsh_check_udpsh_tickets_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_udpsh_check_udpsh_tickets_LDADD = $(UDPSH_TEST_LDADD)
%canon_reldir%_udpsh_check_udpsh_cookies_SOURCES = %reldir%/udpsh/check_udpsh_cookies.c $(FAKE_HAL_SOURCES)
%canon_reldir%_udpsh_check_udpsh_cookies_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_udpsh_check_udpsh_cookies_LDADD = $(UDPSH_TEST_LDADD)
# doc/shell.md's worked example, read from the source folder.
%canon_reldir%_udpsh_check_udpsh_wire_SOURCES = %reldir%/udpsh/check_udpsh_wire.c $(FAKE_HAL_SOURCES)
%canon_reldir%_udpsh_check_udpsh_wire_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_udpsh_check_udpsh_wire_LDADD = $(UDPSH_TEST_LDADD)
endif

# doc/shell.md against the real command table (shell/commands.c): every
# command documented with its grammar, and `NAME --help` for each.
if PLATFORM_SIM
check_PROGRAMS += %reldir%/check_shell_doc
TESTS += %reldir%/check_shell_doc
%canon_reldir%_check_shell_doc_SOURCES = %reldir%/check_shell_doc.c $(FAKE_HAL_SOURCES)
%canon_reldir%_check_shell_doc_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_shell_doc_LDADD = $(TEST_LDADD)
endif
