# SPDX-License-Identifier: BSD-2-Clause
# symbols suites: symbol resolution, the generator and the three-pass link
# (check_symbols), the stack walk and frame-0 recovery (check_stacktrace).
# Both carry a real table from the three-pass link, so they link the fake
# platform (TEST_LDADD) without tests/kit/fake_symtab.c (FAKE_HAL_SOURCES).  check_symbols is a PIE (base from
# __ehdr_start), check_stacktrace is linked -no-pie (a constant base, as a
# kernel has), so both kinds of table are tested.
if PLATFORM_SIM

check_PROGRAMS += %reldir%/check_symbols %reldir%/check_stacktrace
TESTS += %reldir%/check_symbols %reldir%/check_stacktrace

%canon_reldir%_check_symbols_SOURCES = %reldir%/check_symbols.c tests/kit/stack_fixture.S
%canon_reldir%_check_symbols_CPPFLAGS = $(AM_CPPFLAGS) \
	-DKP_TEST_CC='"$(CC)"' \
	-DKP_TEST_SYMGEN='"$(abs_top_builddir)/$(KP_SYMGEN)"'
%canon_reldir%_check_symbols_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_symbols_LDADD = $(TEST_LDADD)
%canon_reldir%_check_symbols_LINK = $(KP_LINK3_PROG)
EXTRA_%canon_reldir%_check_symbols_DEPENDENCIES = $(KP_LINK3_DEPS)

%canon_reldir%_check_stacktrace_SOURCES = %reldir%/check_stacktrace.c tests/kit/stack_fixture.S
%canon_reldir%_check_stacktrace_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_stacktrace_LDFLAGS = -no-pie
%canon_reldir%_check_stacktrace_LDADD = $(TEST_LDADD)
%canon_reldir%_check_stacktrace_LINK = $(KP_LINK3_PROG)
EXTRA_%canon_reldir%_check_stacktrace_DEPENDENCIES = $(KP_LINK3_DEPS)

# check_stacktrace_a64 walks aarch64 stacks on the host against the table
# kp-symgen makes of tests/kit/stack_fixture_a64.S, assembled and linked by
# the cross compiler configure found (m4/kp_aarch64_cc.m4) at the arm64
# kernel's link address.  Without one the table is empty and the test
# exits 77 (skipped), saying why.
check_PROGRAMS += %reldir%/check_stacktrace_a64
TESTS += %reldir%/check_stacktrace_a64
CLEANFILES += %reldir%/a64_fixture.symtab.c %reldir%/a64_fixture.o \
	%reldir%/a64_fixture.elf
%canon_reldir%_check_stacktrace_a64_SOURCES = %reldir%/check_stacktrace_a64.c \
	$(FAKE_HAL_SOURCES)
nodist_%canon_reldir%_check_stacktrace_a64_SOURCES = %reldir%/a64_fixture.symtab.c
%canon_reldir%_check_stacktrace_a64_CPPFLAGS = $(AM_CPPFLAGS) \
	-DKP_TEST_A64_CC='"$(KP_AARCH64_CC)"'
%canon_reldir%_check_stacktrace_a64_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_stacktrace_a64_LDADD = $(TEST_LDADD)

if HAVE_AARCH64_CC
%reldir%/a64_fixture.elf: $(top_srcdir)/tests/kit/stack_fixture_a64.S
	@$(MKDIR_P) %reldir%
	$(AM_V_GEN)$(KP_AARCH64_CC) -c -o %reldir%/a64_fixture.o \
		$(top_srcdir)/tests/kit/stack_fixture_a64.S && \
	$(KP_AARCH64_CC) -nostdlib -static -no-pie -Wl,-Ttext=0x40200000 \
		-Wl,-e,kpa_outer -Wl,--build-id=none -o $@ %reldir%/a64_fixture.o

%reldir%/a64_fixture.symtab.c: %reldir%/a64_fixture.elf $(KP_SYMGEN)
	$(AM_V_GEN)$(KP_SYMGEN) --name a64_symtab -o $@ %reldir%/a64_fixture.elf
else
%reldir%/a64_fixture.symtab.c: $(KP_SYMGEN)
	@$(MKDIR_P) %reldir%
	$(AM_V_GEN)$(KP_SYMGEN) --empty --name a64_symtab -o $@
endif
endif
EXTRA_DIST += tests/kit/stack_fixture_a64.S
