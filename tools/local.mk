# SPDX-License-Identifier: BSD-2-Clause
# Host programs: the symbol-table generator, the UDP shell client.

# tools/kp-symgen runs on the build machine, so it is built with
# CC_FOR_BUILD (m4/kp_symgen.m4), not as one of automake's programs.
KP_SYMGEN = tools/kp-symgen
KP_SYMGEN_WARN = -Wall -Wextra -DKP_VERSION='"$(PACKAGE_VERSION)"'
EXTRA_DIST += %reldir%/kp-symgen.c %reldir%/kp-link3
CLEANFILES += $(KP_SYMGEN)

$(KP_SYMGEN): $(top_srcdir)/%reldir%/kp-symgen.c
	@$(MKDIR_P) tools
	$(AM_V_GEN)$(CC_FOR_BUILD) $(KP_SYMGEN_WARN) $(CFLAGS_FOR_BUILD) \
		$(LIBDW_FOR_BUILD_CFLAGS) $(LDFLAGS_FOR_BUILD) \
		-o $@ $(top_srcdir)/%reldir%/kp-symgen.c $(LIBDW_FOR_BUILD_LIBS)

# The three-pass link (tools/kp-link3), for any program whose image
# carries its own symbol table (doc/internals.md, "The image's symbol
# table").  KP_LINK3 goes in front of a link command that writes $@;
# KP_LINK3_LIBTOOL is libtool's C link command with it in front, and
# KP_LINK3_PROG that with the program's own flags, as automake's link
# line has them, found from its name ($@).  A program says, in two lines:
#
#   prog_LINK = $(KP_LINK3_PROG)
#   EXTRA_prog_DEPENDENCIES = $(KP_LINK3_DEPS)
#
# Its flags are $(prog_CFLAGS) and $(prog_LDFLAGS) by a computed name, a
# GNU make feature automake's portability warnings refuse: Makefile.am
# turns those off (AUTOMAKE_OPTIONS) for this.
#
# KP_SYMTAB_CC compiles the generated table; a kernel passes its own
# compiler and flags in --cc instead.
KP_SYMTAB_CC = $(CC) $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
	$(AM_CFLAGS) $(CFLAGS)
KP_LINK3 = $(SHELL) $(top_srcdir)/%reldir%/kp-link3 --symgen $(KP_SYMGEN) \
	--cc '$(KP_SYMTAB_CC)' --out $@ --
KP_LINK3_LIBTOOL = $(KP_LINK3) $(LIBTOOL) $(AM_V_lt) --tag=CC \
	$(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) --mode=link $(CCLD)
KP_LINK3_DEPS = $(KP_SYMGEN) $(top_srcdir)/%reldir%/kp-link3
KP_LINK3_CANON = $(subst -,_,$(subst /,_,$(@:$(EXEEXT)=)))
KP_LINK3_PROG = $(KP_LINK3_LIBTOOL) $($(KP_LINK3_CANON)_CFLAGS) $(CFLAGS) \
	$($(KP_LINK3_CANON)_LDFLAGS) $(LDFLAGS) -o $@
# What kp-link3 leaves beside each image (IMAGE.symtab.*), in the folders
# that have such programs.
CLEANFILES += *.symtab.* tests/*/*.symtab.* bench/*.symtab.*

# tools/kshell: the UDP shell's client (README, "The UDP shell"), a host
# program installed with the kernel or the simulator.
# HMAC-SHA256 and the keyed wire format (src/shell/udpsh/wire.h): the
# kernel's own code.
# The folded reader (folded_read.[ch]) is kprof-report's too.
KSHELL_SOURCES = %reldir%/kshell.c %reldir%/keyfile.c %reldir%/keyfile.h \
	%reldir%/udpsh_client.c %reldir%/udpsh_client.h \
	%reldir%/folded_read.c %reldir%/folded_read.h \
	src/lib/sha256.c src/lib/kstring.c \
	src/shell/udpsh/wire.c
if PLATFORM_ARM64
# The arm64 kernel is cross-built, but its UDP shell is spoken to from
# this machine (make check's QEMU tests, the README): kshell is built
# with CC_FOR_BUILD, as kp-symgen is, and installed as it is.
EXTRA_DIST += $(KSHELL_SOURCES)
nodist_bin_SCRIPTS = %reldir%/kshell
CLEANFILES += %reldir%/kshell
KSHELL_SRC_PATHS = $(top_srcdir)/%reldir%/kshell.c $(top_srcdir)/%reldir%/keyfile.c \
	$(top_srcdir)/%reldir%/udpsh_client.c $(top_srcdir)/%reldir%/folded_read.c \
	$(top_srcdir)/src/lib/sha256.c $(top_srcdir)/src/lib/kstring.c \
	$(top_srcdir)/src/shell/udpsh/wire.c
%reldir%/kshell: $(KSHELL_SRC_PATHS) $(top_srcdir)/src/lib/folded_frame.h \
		$(top_srcdir)/%reldir%/folded_read.h
	@$(MKDIR_P) tools
	$(AM_V_GEN)$(CC_FOR_BUILD) -Wall -Wextra $(CFLAGS_FOR_BUILD) \
		-I$(top_builddir) -I$(top_srcdir)/src $(LDFLAGS_FOR_BUILD) -o $@ \
		$(KSHELL_SRC_PATHS)
else
bin_PROGRAMS += %reldir%/kshell
%canon_reldir%_kshell_SOURCES = $(KSHELL_SOURCES)
%canon_reldir%_kshell_CFLAGS = -Wall -Wextra
endif

# tools/kprof-report: folded stacks to pprof, flame graph SVG, diff and
# top (doc/kprof-report.1).  Like kp-symgen it runs on the build machine
# and is built with CC_FOR_BUILD in every configuration, so it is not one
# of automake's programs; bin_SCRIPTS installs and uninstalls it as it is.
# Under --enable-sanitizers it and kprof-collect take the sanitizers too
# (KP_SAN_FOR_BUILD, m4/kp_sanitize.m4).
# profile.pb-c.[ch] are generated here, in the build folder, from the
# .proto in the source folder (so a read-only source tree, as distcheck
# makes, is never written).
KPROF_REPORT = tools/kprof-report
KPROF_REPORT_PB = tools/report/profile.pb-c.c tools/report/profile.pb-c.h
KPROF_REPORT_C = $(top_srcdir)/%reldir%/report/main.c $(KPROF_REPORT_LIB_C) \
	$(top_srcdir)/%reldir%/report_san.c
# All of it but main.c: what kprof-collect links too.  The folded
# reader proper (folded_read.c) is shared with kshell.
KPROF_REPORT_LIB_C = $(top_srcdir)/%reldir%/folded_read.c \
	$(top_srcdir)/%reldir%/report/folded.c \
	$(top_srcdir)/%reldir%/report/names.c \
	$(top_srcdir)/%reldir%/report/tree.c \
	$(top_srcdir)/%reldir%/report/top.c \
	$(top_srcdir)/%reldir%/report/svg.c \
	$(top_srcdir)/%reldir%/report/pprof.c \
	$(top_srcdir)/%reldir%/report/outfile.c \
	$(top_srcdir)/%reldir%/report/util.c \
	$(top_srcdir)/%reldir%/report/filter.c \
	$(top_srcdir)/%reldir%/report/image.c \
	$(top_srcdir)/%reldir%/report/annotate.c \
	$(top_srcdir)/%reldir%/report/merge.c
bin_SCRIPTS += $(KPROF_REPORT)
dist_man_MANS += doc/kprof-report.1
CLEANFILES += $(KPROF_REPORT) $(KPROF_REPORT_PB)
EXTRA_DIST += %reldir%/report_san.c
EXTRA_DIST += %reldir%/report/report.h %reldir%/report/profile.proto \
	%reldir%/report/main.c %reldir%/report/folded.c %reldir%/report/names.c \
	%reldir%/report/tree.c %reldir%/report/top.c %reldir%/report/svg.c \
	%reldir%/report/pprof.c %reldir%/report/outfile.c %reldir%/report/util.c \
	%reldir%/report/filter.c %reldir%/report/image.c \
	%reldir%/report/annotate.c %reldir%/report/merge.c

tools/report/profile.pb-c.c: $(top_srcdir)/%reldir%/report/profile.proto
	@$(MKDIR_P) tools/report
	$(AM_V_GEN)$(PROTOC_C) -I$(top_srcdir)/%reldir%/report \
		--c_out=tools/report $(top_srcdir)/%reldir%/report/profile.proto
tools/report/profile.pb-c.h: tools/report/profile.pb-c.c

$(KPROF_REPORT): $(KPROF_REPORT_C) $(top_srcdir)/%reldir%/report/report.h \
		$(top_srcdir)/%reldir%/folded_read.h \
		$(top_srcdir)/src/lib/folded_frame.h $(KPROF_REPORT_PB)
	$(AM_V_GEN)$(CC_FOR_BUILD) $(KP_SYMGEN_WARN) $(CFLAGS_FOR_BUILD) $(KP_SAN_FOR_BUILD) \
		-Itools/report -I$(top_srcdir)/%reldir% -I$(top_srcdir)/src \
		-DKPROF_VERSION='"$(PACKAGE_VERSION)"' \
		$(REPORT_FOR_BUILD_CFLAGS) $(LDFLAGS_FOR_BUILD) -o $@ \
		$(KPROF_REPORT_C) tools/report/profile.pb-c.c \
		$(REPORT_FOR_BUILD_LIBS)

# tools/kprof-collect: many kernels' sessions, one pprof per target per
# interval (doc/collect.md, doc/kprof-collect.1).  It writes pprof with
# kprof-report's own reader and writer (every report file but its main)
# and speaks the keyed UDP shell through kshell's client, so it is built
# as kprof-report is, with CC_FOR_BUILD, in every configuration.
KPROF_COLLECT = tools/kprof-collect
KPROF_COLLECT_C = $(top_srcdir)/%reldir%/collect/main.c \
	$(top_srcdir)/%reldir%/collect/target.c \
	$(top_srcdir)/%reldir%/collect/store.c \
	$(top_srcdir)/%reldir%/collect/interval.c \
	$(top_srcdir)/%reldir%/udpsh_client.c $(top_srcdir)/%reldir%/keyfile.c \
	$(top_srcdir)/src/lib/sha256.c $(top_srcdir)/src/lib/kstring.c \
	$(top_srcdir)/src/shell/udpsh/wire.c \
	$(KPROF_REPORT_LIB_C)
bin_SCRIPTS += $(KPROF_COLLECT)
dist_man_MANS += doc/kprof-collect.1
CLEANFILES += $(KPROF_COLLECT)
EXTRA_DIST += %reldir%/collect/collect.h %reldir%/collect/main.c \
	%reldir%/collect/target.c %reldir%/collect/store.c \
	%reldir%/collect/interval.c
$(KPROF_COLLECT): $(KPROF_COLLECT_C) $(top_srcdir)/%reldir%/collect/collect.h \
		$(top_srcdir)/%reldir%/report/report.h \
		$(top_srcdir)/%reldir%/folded_read.h \
		$(top_srcdir)/%reldir%/udpsh_client.h $(KPROF_REPORT_PB)
	$(AM_V_GEN)$(CC_FOR_BUILD) $(KP_SYMGEN_WARN) $(CFLAGS_FOR_BUILD) $(KP_SAN_FOR_BUILD) \
		-Itools/report -I$(top_srcdir)/%reldir%/report -I$(top_srcdir)/%reldir% \
		-I$(top_srcdir)/src -DKPROF_VERSION='"$(PACKAGE_VERSION)"' \
		$(REPORT_FOR_BUILD_CFLAGS) $(LDFLAGS_FOR_BUILD) -o $@ \
		$(KPROF_COLLECT_C) tools/report/profile.pb-c.c \
		$(REPORT_FOR_BUILD_LIBS) -lpthread

# An installed kernel (kernel configurations): make install puts the
# image in $(pkglibdir) as kprof-ARCH.elf with the QEMU line `make run`
# uses (arch/*/qemu-run) as qemu-run-ARCH, and tools/kprof-qemu, which
# boots it from there (kprof-qemu(1)): no source tree needed.
if PLATFORM_SIM
KP_INSTALL_IMAGE =
endif
if PLATFORM_X86_64
KP_INSTALL_IMAGE = $(X86_KERNEL)
# The CD image (make iso) beside it, as kprof-x86_64.iso.
KP_INSTALL_ISO = $(X86_ISO)
KP_INSTALL_ARCH = x86_64
KP_INSTALL_QEMU_RUN = $(srcdir)/arch/x86_64/qemu-run
endif
if PLATFORM_ARM64
KP_INSTALL_IMAGE = $(ARM64_KERNEL)
KP_INSTALL_ARCH = aarch64
KP_INSTALL_QEMU_RUN = $(srcdir)/arch/arm64/qemu-run
endif
if !PLATFORM_SIM
bin_SCRIPTS += %reldir%/kprof-qemu
man_MANS += doc/kprof-qemu.1
endif
EXTRA_DIST += doc/kprof-qemu.1
CLEANFILES += %reldir%/kprof-qemu
EXTRA_DIST += %reldir%/kprof-qemu.in

# Filled in at make time, so `make prefix=...` is honoured (GNU coding
# standards on installation directories).
%reldir%/kprof-qemu: $(srcdir)/%reldir%/kprof-qemu.in Makefile
	@$(MKDIR_P) %reldir%
	$(AM_V_GEN)sed -e 's|@pkglibdir[@]|$(pkglibdir)|g' \
		-e 's|@VERSION[@]|$(VERSION)|g' \
		-e 's|@PACKAGE_NAME[@]|$(PACKAGE_NAME)|g' \
		-e 's|@PACKAGE_BUGREPORT[@]|$(PACKAGE_BUGREPORT)|g' \
		-e 's|@PACKAGE_URL[@]|$(PACKAGE_URL)|g' \
		$(srcdir)/%reldir%/kprof-qemu.in > $@.tmp && chmod +x $@.tmp && mv $@.tmp $@

install-data-local:
	@if test -n '$(KP_INSTALL_IMAGE)'; then \
		echo " $(MKDIR_P) '$(DESTDIR)$(pkglibdir)'"; \
		$(MKDIR_P) '$(DESTDIR)$(pkglibdir)' && \
		echo " $(INSTALL_DATA) $(KP_INSTALL_IMAGE) '$(DESTDIR)$(pkglibdir)/kprof-$(KP_INSTALL_ARCH).elf'" && \
		$(INSTALL_DATA) $(KP_INSTALL_IMAGE) '$(DESTDIR)$(pkglibdir)/kprof-$(KP_INSTALL_ARCH).elf' && \
		echo " $(INSTALL_SCRIPT) $(KP_INSTALL_QEMU_RUN) '$(DESTDIR)$(pkglibdir)/qemu-run-$(KP_INSTALL_ARCH)'" && \
		$(INSTALL_SCRIPT) $(KP_INSTALL_QEMU_RUN) '$(DESTDIR)$(pkglibdir)/qemu-run-$(KP_INSTALL_ARCH)'; \
	fi
	@if test -n '$(KP_INSTALL_ISO)'; then \
		echo " $(INSTALL_DATA) $(KP_INSTALL_ISO) '$(DESTDIR)$(pkglibdir)/kprof-$(KP_INSTALL_ARCH).iso'" && \
		$(INSTALL_DATA) $(KP_INSTALL_ISO) '$(DESTDIR)$(pkglibdir)/kprof-$(KP_INSTALL_ARCH).iso'; \
	fi

uninstall-local:
	@if test -n '$(KP_INSTALL_IMAGE)'; then \
		rm -f '$(DESTDIR)$(pkglibdir)/kprof-$(KP_INSTALL_ARCH).elf' \
			'$(DESTDIR)$(pkglibdir)/kprof-$(KP_INSTALL_ARCH).iso' \
			'$(DESTDIR)$(pkglibdir)/qemu-run-$(KP_INSTALL_ARCH)'; \
	fi
