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
tests_check_udpsh_CFLAGS = $(TEST_CFLAGS)
tests_check_udpsh_LDADD = $(TEST_LDADD)
endif
