# SPDX-License-Identifier: BSD-2-Clause
# The tests.  tests/kit/ is what the suites share (fakes of the
# platform, device models, testlib, the sim fixture, check_main.h, stack
# fixtures); a folder for each room of the tree holds the Check suites
# of that room and its fragment, included below: lib, kernel, prof,
# shell (shell/udpsh), net, drivers, sim, arch; report/ and qemu/ hold
# their scripts and data.  Here: the kit's libraries, what every suite
# is built and run with, the tree's own checks and the host scripts.
# Every logic test links the portable library on the fake platform
# (tests/kit/fake_*.c), one convenience library compiled once
# (tests/libfakehal.la).
noinst_HEADERS = %reldir%/kit/check_main.h %reldir%/kit/shell_testcmds.h \
	%reldir%/kit/test_wire.h

if PLATFORM_SIM
# The fake platform and the portable library in one archive, so that the
# linker finds a fake that only the library calls (hal_pmu_*, say) as
# well as one the test calls.  The empty symbol table is not in it: a
# test adds FAKE_HAL_SOURCES (tests/kit/fake_symtab.c) unless it carries
# the real table of the three-pass link (tests/kernel/symbols.mk).
check_LTLIBRARIES += tests/libfakehal.la
tests_libfakehal_la_SOURCES = \
	tests/kit/fake_hal.c tests/kit/fake_hal.h \
	tests/kit/fake_pmu.c tests/kit/fake_pmu.h \
	tests/kit/fake_netdev.c tests/kit/fake_netdev.h \
	tests/kit/fake_probe.c tests/kit/fake_probe.h
tests_libfakehal_la_CFLAGS = $(TEST_CFLAGS)
tests_libfakehal_la_LIBADD = src/libkprof.la
FAKE_HAL_SOURCES = tests/kit/fake_symtab.c
# What the suites would each write again (tests/kit/testlib.h): a command
# run on words into a buffer (testlib_cmd.c, on the kernel's shell), and
# loopback sockets, free ports, clocks (testlib.c, libc only).
check_LTLIBRARIES += tests/libtesthelp.la
tests_libtesthelp_la_SOURCES = tests/kit/testlib.c tests/kit/testlib.h \
	tests/kit/testlib_cmd.c
tests_libtesthelp_la_CFLAGS = $(TEST_CFLAGS)
TEST_LDADD = tests/libtesthelp.la tests/libfakehal.la $(CHECK_LIBS)
# A suite finds the kit's headers by name, and the source folder (its
# documents, data, fixtures) at KP_TEST_SRCDIR wherever it is run from.
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/tests/kit \
	-DKP_TEST_SRCDIR='"$(abs_top_srcdir)"'
# Check's own per-test timeout; suites that need longer set it per case.
AM_TESTS_ENVIRONMENT = CK_DEFAULT_TIMEOUT=10; export CK_DEFAULT_TIMEOUT; \
	KPROF_BUILDDIR=$(abs_builddir); export KPROF_BUILDDIR; \
	PYTHONPATH=$(abs_top_srcdir)/tests; export PYTHONPATH; \
	PYTHONDONTWRITEBYTECODE=1; export PYTHONDONTWRITEBYTECODE; \
	XDG_CONFIG_HOME=$(abs_builddir)/tests/config-home; export XDG_CONFIG_HOME; \
	$(LAYERS_TESTS_ENVIRONMENT)

# configure --help: every project option with its values and default.
TESTS += %reldir%/check-configure-help

# The programs' command lines and exit statuses (ksim, kshell, kp-symgen).
TESTS += %reldir%/test_cli
cli_script_log = %reldir%/test_
$(cli_script_log)cli.log: ksim$(EXEEXT) tools/kshell$(EXEEXT) $(KP_SYMGEN)

# kprof-qemu's exit statuses on both architectures' QEMU lines: poweroff
# N against QEMU's own failure, a taken port, a missing QEMU.
TESTS += %reldir%/test_kprof_qemu

# make install lays doc/*.md and README.md in $(docdir).
TESTS += %reldir%/check-install-docs

# Every source file carries the SPDX licence line (LICENSE).
TESTS += %reldir%/check-spdx

# The man pages name every option and exit status the programs do.
TESTS += %reldir%/check-man
man_check_log = %reldir%/check-
$(man_check_log)man.log: ksim$(EXEEXT) tools/kshell$(EXEEXT)

# Under --enable-sanitizers every host program carries the sanitizers,
# those built with CC_FOR_BUILD too; skipped otherwise.
TESTS += %reldir%/check-sanitized-tools
$(man_check_log)sanitized-tools.log: ksim$(EXEEXT) tools/kshell$(EXEEXT) $(KPROF_REPORT) \
	$(KPROF_COLLECT)

# Every path of the tree a comment or a document names exists.
TESTS += %reldir%/check-paths

# Every folder under src/, arch/, tools/ and tests/ is named in the map,
# doc/hacking.md.
TESTS += %reldir%/check-map

# The layer check reads the simulator's objects as the backend.
TESTS += %reldir%/check-layers
LAYERS_BACKEND_OBJECTS = $(sim_libksim_la_OBJECTS)

endif

# The layer check (doc/internals.md, "The layer check"), in every
# configuration: the HAL against the backend's objects, and src/'s layers
# calling downward only, read with nm from the objects automake links.
# Each configuration adds it to TESTS with its LAYERS_BACKEND_OBJECTS.
LAYERS_TESTS_ENVIRONMENT = \
	KPROF_SRCDIR=$(abs_top_srcdir); export KPROF_SRCDIR; \
	KPROF_BACKEND=$(kp_platform); export KPROF_BACKEND; \
	KPROF_NM='$(NM)'; export KPROF_NM; \
	KPROF_SRC_OBJECTS='$(src_libkprof_la_OBJECTS)'; \
	export KPROF_SRC_OBJECTS; \
	KPROF_BACKEND_OBJECTS='$(LAYERS_BACKEND_OBJECTS)'; \
	export KPROF_BACKEND_OBJECTS;
EXTRA_DIST += %reldir%/check-sanitized-tools
# The test scripts' Python helpers, one package (on PYTHONPATH above).
EXTRA_DIST += %reldir%/kptest/__init__.py %reldir%/kptest/collect.py \
	%reldir%/kptest/common.py %reldir%/kptest/frames.py %reldir%/kptest/gocheck.py \
	%reldir%/kptest/kernel.py %reldir%/kptest/ksim.py %reldir%/kptest/measure.py \
	%reldir%/kptest/overflow.py %reldir%/kptest/pbcheck.py %reldir%/kptest/pmu_kit.py \
	%reldir%/kptest/qemu.py %reldir%/kptest/report.py %reldir%/kptest/runner.py \
	%reldir%/kptest/svgcheck.py %reldir%/kptest/udpsh.py %reldir%/kptest/wall.py
EXTRA_DIST += %reldir%/check-layers %reldir%/test_cli %reldir%/check-configure-help \
	%reldir%/test_kprof_qemu %reldir%/check-install-docs \
	%reldir%/check-man %reldir%/check-spdx %reldir%/check-paths \
	%reldir%/check-map

include %reldir%/lib/local.mk
include %reldir%/kernel/local.mk
include %reldir%/shell/local.mk
include %reldir%/prof/local.mk
include %reldir%/sim/local.mk
include %reldir%/net/local.mk
include %reldir%/drivers/local.mk
include %reldir%/arch/local.mk
include %reldir%/qemu/local.mk
include %reldir%/report/local.mk

# The fast loop (doc/hacking.md): one test, T= its path as TESTS names
# it, built alone and run at once in the harness's environment, its
# output on the terminal: a Check suite builds its own program and what
# it links, a script what `make all` builds (ksim, the tools, a kernel).
# make check TESTS=... would build every suite first, and a QEMU test's
# log waits for those ordered before it.
check-one:
	@case '$(T)' in \
	'') echo 'make check-one: say which test: T=tests/ROOM/check_NAME or T=tests/qemu/test_NAME' >&2; \
	    exit 2;; \
	esac; \
	case ' $(TESTS) ' in \
	*' $(T) '*) ;; \
	*) echo 'make check-one: $(T) is not one of the TESTS of this configuration' >&2; exit 2;; \
	esac
	@case ' $(check_PROGRAMS) ' in \
	*' $(T)$(EXEEXT) '*) $(MAKE) $(AM_MAKEFLAGS) '$(T)$(EXEEXT)';; \
	*) $(MAKE) $(AM_MAKEFLAGS) all;; \
	esac
	@$(AM_TESTS_ENVIRONMENT) srcdir=$(srcdir); export srcdir; \
	if test -f './$(T)'; then t='./$(T)'; else t='$(srcdir)/$(T)'; fi; \
	"$$t"; st=$$?; \
	case $$st in \
	0) echo 'PASS: $(T)';; \
	77) echo 'SKIP: $(T)'; st=0;; \
	*) echo 'FAIL: $(T)';; \
	esac; \
	exit $$st
.PHONY: check-one

# The key files the tests' own XDG_CONFIG_HOME holds (kshell --init-key
# makes one there); distcheck wants the build folder clean after distclean.
clean-local: clean-local-config-home
clean-local-config-home:
	rm -rf tests/config-home
.PHONY: clean-local-config-home
