# SPDX-License-Identifier: BSD-2-Clause
# symbols suites: symbol resolution, the generator and the three-pass link
# (check_symbols), the stack walk and frame-0 recovery (check_stacktrace).
# Both carry a real table from the three-pass link, so they link the fake
# platform (TEST_LDADD) without tests/fake_symtab.c (FAKE_HAL_SOURCES).  check_symbols is a PIE (base from
# __ehdr_start), check_stacktrace is linked -no-pie (a constant base, as a
# kernel has), so both kinds of table are tested.
if PLATFORM_SIM

check_PROGRAMS += tests/check_symbols tests/check_stacktrace
TESTS += tests/check_symbols tests/check_stacktrace

tests_check_symbols_SOURCES = tests/check_symbols.c tests/stack_fixture.S
tests_check_symbols_CPPFLAGS = $(AM_CPPFLAGS) \
	-DKP_TEST_CC='"$(CC)"' \
	-DKP_TEST_SRCDIR='"$(abs_top_srcdir)"' \
	-DKP_TEST_SYMGEN='"$(abs_top_builddir)/$(KP_SYMGEN)"'
tests_check_symbols_CFLAGS = $(TEST_CFLAGS)
tests_check_symbols_LDADD = $(TEST_LDADD)
tests_check_symbols_LINK = $(KP_LINK3_PROG)
EXTRA_tests_check_symbols_DEPENDENCIES = $(KP_LINK3_DEPS)

tests_check_stacktrace_SOURCES = tests/check_stacktrace.c tests/stack_fixture.S
tests_check_stacktrace_CFLAGS = $(TEST_CFLAGS)
tests_check_stacktrace_LDFLAGS = -no-pie
tests_check_stacktrace_LDADD = $(TEST_LDADD)
tests_check_stacktrace_LINK = $(KP_LINK3_PROG)
EXTRA_tests_check_stacktrace_DEPENDENCIES = $(KP_LINK3_DEPS)

# check_stacktrace_a64 walks aarch64 stacks on the host against the table
# kp-symgen makes of tests/stack_fixture_a64.S, assembled and linked by
# the cross compiler configure found (m4/kp_aarch64_cc.m4) at the arm64
# kernel's link address.  Without one the table is empty and the test
# exits 77 (skipped), saying why.
check_PROGRAMS += tests/check_stacktrace_a64
TESTS += tests/check_stacktrace_a64
CLEANFILES += tests/a64_fixture.symtab.c tests/a64_fixture.o \
	tests/a64_fixture.elf
tests_check_stacktrace_a64_SOURCES = tests/check_stacktrace_a64.c \
	$(FAKE_HAL_SOURCES)
nodist_tests_check_stacktrace_a64_SOURCES = tests/a64_fixture.symtab.c
tests_check_stacktrace_a64_CPPFLAGS = $(AM_CPPFLAGS) \
	-DKP_TEST_A64_CC='"$(KP_AARCH64_CC)"'
tests_check_stacktrace_a64_CFLAGS = $(TEST_CFLAGS)
tests_check_stacktrace_a64_LDADD = $(TEST_LDADD)

if HAVE_AARCH64_CC
tests/a64_fixture.elf: $(top_srcdir)/tests/stack_fixture_a64.S
	@$(MKDIR_P) tests
	$(AM_V_GEN)$(KP_AARCH64_CC) -c -o tests/a64_fixture.o \
		$(top_srcdir)/tests/stack_fixture_a64.S && \
	$(KP_AARCH64_CC) -nostdlib -static -no-pie -Wl,-Ttext=0x40200000 \
		-Wl,-e,kpa_outer -Wl,--build-id=none -o $@ tests/a64_fixture.o

tests/a64_fixture.symtab.c: tests/a64_fixture.elf $(KP_SYMGEN)
	$(AM_V_GEN)$(KP_SYMGEN) --name a64_symtab -o $@ tests/a64_fixture.elf
else
tests/a64_fixture.symtab.c: $(KP_SYMGEN)
	@$(MKDIR_P) tests
	$(AM_V_GEN)$(KP_SYMGEN) --empty --name a64_symtab -o $@
endif
endif
EXTRA_DIST += %reldir%/stack_fixture_a64.S
