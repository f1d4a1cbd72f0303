# SPDX-License-Identifier: BSD-2-Clause
# Check suites, built in the simulator configuration.  Every logic test
# links the portable library on the fake platform (tests/fake_*.c), one
# convenience library compiled once (tests/libfakehal.la).
noinst_HEADERS = %reldir%/check_main.h %reldir%/shell_testcmds.h \
	%reldir%/test_wire.h

if PLATFORM_SIM
# The fake platform and the portable library in one archive, so that the
# linker finds a fake that only the library calls (hal_pmu_*, say) as
# well as one the test calls.  The empty symbol table is not in it: a
# test adds FAKE_HAL_SOURCES (tests/fake_symtab.c) unless it carries the
# real table of the three-pass link (tests/symbols.mk).
check_LTLIBRARIES += tests/libfakehal.la
tests_libfakehal_la_SOURCES = \
	tests/fake_hal.c tests/fake_hal.h \
	tests/fake_pmu.c tests/fake_pmu.h \
	tests/fake_netdev.c tests/fake_netdev.h
tests_libfakehal_la_CFLAGS = $(TEST_CFLAGS)
tests_libfakehal_la_LIBADD = src/libkprof.la
FAKE_HAL_SOURCES = tests/fake_symtab.c
# What the suites would each write again (tests/testlib.h): a command
# run on words into a buffer (testlib_cmd.c, on the kernel's shell), and
# loopback sockets, free ports, clocks (testlib.c, libc only).
check_LTLIBRARIES += tests/libtesthelp.la
tests_libtesthelp_la_SOURCES = tests/testlib.c tests/testlib.h tests/testlib_cmd.c
tests_libtesthelp_la_CFLAGS = $(TEST_CFLAGS)
TEST_LDADD = tests/libtesthelp.la tests/libfakehal.la $(CHECK_LIBS)
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
# Check's own per-test timeout; suites that need longer set it per case.
AM_TESTS_ENVIRONMENT = CK_DEFAULT_TIMEOUT=10; export CK_DEFAULT_TIMEOUT; \
	KPROF_BUILDDIR=$(abs_builddir); export KPROF_BUILDDIR; \
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

check_PROGRAMS += tests/check_lib tests/check_sched
TESTS += tests/check_lib tests/check_sched
tests_check_lib_SOURCES = tests/check_lib.c $(FAKE_HAL_SOURCES)
tests_check_lib_CFLAGS = $(TEST_CFLAGS)
tests_check_lib_LDADD = $(TEST_LDADD)
tests_check_sched_SOURCES = tests/check_sched.c $(FAKE_HAL_SOURCES)
tests_check_sched_CFLAGS = $(TEST_CFLAGS)
tests_check_sched_LDADD = $(TEST_LDADD)

check_PROGRAMS += tests/check_cmdline
TESTS += tests/check_cmdline
tests_check_cmdline_SOURCES = tests/check_cmdline.c $(FAKE_HAL_SOURCES)
tests_check_cmdline_CFLAGS = $(TEST_CFLAGS)
tests_check_cmdline_LDADD = $(TEST_LDADD)

# The device tree reader on QEMU's virt trees (tests/fdt/) and built ones.
check_PROGRAMS += tests/check_fdt
TESTS += tests/check_fdt
tests_check_fdt_SOURCES = tests/check_fdt.c tests/fdt_walk.c tests/fdt_walk.h \
	$(FAKE_HAL_SOURCES)
tests_check_fdt_CPPFLAGS = $(AM_CPPFLAGS) -DKP_TEST_SRCDIR='"$(abs_top_srcdir)"'
tests_check_fdt_CFLAGS = $(TEST_CFLAGS)
tests_check_fdt_LDADD = $(TEST_LDADD)

# The fw_cfg driver (src/drivers/fw_cfg) against a modelled device.
check_PROGRAMS += tests/check_fw_cfg
TESTS += tests/check_fw_cfg
tests_check_fw_cfg_SOURCES = tests/check_fw_cfg.c $(FAKE_HAL_SOURCES)
tests_check_fw_cfg_CFLAGS = $(TEST_CFLAGS)
tests_check_fw_cfg_LDADD = $(TEST_LDADD)
endif
EXTRA_DIST += %reldir%/fdt/make-dtbs %reldir%/fdt/qemu-virt-gicv2.dtb \
	%reldir%/fdt/qemu-virt-gicv3.dtb %reldir%/fdt/qemu-virt-el2.dtb \
	%reldir%/fdt/qemu-virt-bootargs.dtb

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
EXTRA_DIST += %reldir%/check-layers %reldir%/test_cli %reldir%/check-configure-help \
	%reldir%/test_kprof_qemu %reldir%/check-install-docs \
	%reldir%/check-man %reldir%/check-spdx %reldir%/check-paths \
	%reldir%/check-map

include %reldir%/shell.mk
include %reldir%/prof.mk
include %reldir%/symbols.mk
include %reldir%/sim.mk
include %reldir%/net.mk
include %reldir%/qemu.mk
include %reldir%/work.mk
include %reldir%/wall.mk
include %reldir%/report.mk

# The key files the tests' own XDG_CONFIG_HOME holds (kshell --init-key
# makes one there); distcheck wants the build folder clean after distclean.
clean-local: clean-local-config-home
clean-local-config-home:
	rm -rf tests/config-home
.PHONY: clean-local-config-home
