# SPDX-License-Identifier: BSD-2-Clause
# Host programs: the symbol-table generator, the three-pass link, the
# host helpers' archive and the programs on it (kshell, kprof-report,
# kprof-collect), kprof-qemu.

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

# The host helpers, compiled once into one archive, tools/libkphost.a,
# that kshell, kprof-report and kprof-collect link: the UDP shell's
# client (udpsh_client.c) and key files (keyfile.c) with the kernel's own
# HMAC-SHA256 and keyed wire format (src/shell/udpsh/wire.h), the one
# folded reader (folded_read.c), and the report library (every
# tools/report file but main.c: the folded model, the views, the pprof
# writer and its generated protobuf-c code).  These programs run on the
# build machine in every configuration (the arm64 kernel's UDP shell is
# spoken to from here: make check's QEMU tests, the README), so they are
# built with CC_FOR_BUILD, as kp-symgen is, not as automake's programs;
# bin_SCRIPTS installs and uninstalls them as they are.  Under
# --enable-sanitizers they take the sanitizers too (KP_SAN_FOR_BUILD,
# m4/kp_sanitize.m4).  profile.pb-c.[ch] are generated here, in the build
# folder, from the .proto in the source folder (so a read-only source
# tree, as distcheck makes, is never written).
KP_HOST_LIB = tools/libkphost.a
KPROF_REPORT_PB = tools/report/profile.pb-c.c tools/report/profile.pb-c.h
KP_HOST_REPORT_SRC = %reldir%/report/folded.c %reldir%/report/names.c \
	%reldir%/report/tree.c %reldir%/report/top.c %reldir%/report/svg.c \
	%reldir%/report/pprof.c %reldir%/report/outfile.c %reldir%/report/util.c \
	%reldir%/report/filter.c %reldir%/report/image.c \
	%reldir%/report/annotate.c %reldir%/report/merge.c \
	%reldir%/report/trace.c
KP_HOST_SRC = %reldir%/udpsh_client.c %reldir%/keyfile.c %reldir%/folded_read.c \
	src/lib/sha256.c src/lib/kstring.c src/shell/udpsh/wire.c \
	$(KP_HOST_REPORT_SRC)
KP_HOST_HDRS = %reldir%/udpsh_client.h %reldir%/keyfile.h %reldir%/folded_read.h \
	%reldir%/report/report.h %reldir%/collect/collect.h
# Each object under tools/host/, by its source's path: one pattern rule.
KP_HOST_OBJ = $(patsubst %.c,tools/host/%.o,$(KP_HOST_SRC)) \
	tools/host/profile.pb-c.o
KP_HOST_CFLAGS = $(KP_SYMGEN_WARN) $(CFLAGS_FOR_BUILD) $(KP_SAN_FOR_BUILD) \
	-Itools/report -I$(top_builddir) -I$(top_srcdir)/%reldir% \
	-I$(top_srcdir)/%reldir%/report -I$(top_srcdir)/src \
	-DKPROF_VERSION='"$(PACKAGE_VERSION)"' $(REPORT_FOR_BUILD_CFLAGS)
# A program built on the archive: its own sources, the archive, and what
# the archive needs (protobuf-c, zlib; the collector threads).
KP_HOST_LINK = $(CC_FOR_BUILD) $(KP_HOST_CFLAGS) $(LDFLAGS_FOR_BUILD) -o $@
KP_HOST_LIBS = $(KP_HOST_LIB) $(REPORT_FOR_BUILD_LIBS)
CLEANFILES += $(KP_HOST_LIB) $(KP_HOST_OBJ) $(KPROF_REPORT_PB)
EXTRA_DIST += $(KP_HOST_SRC) $(KP_HOST_HDRS) %reldir%/report/profile.proto

tools/report/profile.pb-c.c: $(top_srcdir)/%reldir%/report/profile.proto
	@$(MKDIR_P) tools/report
	$(AM_V_GEN)$(PROTOC_C) -I$(top_srcdir)/%reldir%/report \
		--c_out=tools/report $(top_srcdir)/%reldir%/report/profile.proto
tools/report/profile.pb-c.h: tools/report/profile.pb-c.c

$(filter-out tools/host/profile.pb-c.o,$(KP_HOST_OBJ)): tools/host/%.o: $(top_srcdir)/%.c \
		$(addprefix $(top_srcdir)/,$(KP_HOST_HDRS)) \
		$(top_srcdir)/src/lib/folded_frame.h $(KPROF_REPORT_PB) config.h
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(CC_FOR_BUILD) $(KP_HOST_CFLAGS) -c -o $@ $<
tools/host/profile.pb-c.o: $(KPROF_REPORT_PB)
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(CC_FOR_BUILD) $(KP_HOST_CFLAGS) -c -o $@ tools/report/profile.pb-c.c
# The build machine's ar (a cross build's $(AR) is the target's).
$(KP_HOST_LIB): $(KP_HOST_OBJ)
	$(AM_V_GEN)rm -f $@ && ar rcs $@ $(KP_HOST_OBJ)

# tools/kshell: the UDP shell's client (README, "The UDP shell"), a host
# program installed with the kernel or the simulator.
KSHELL = %reldir%/kshell
bin_SCRIPTS += $(KSHELL)
CLEANFILES += $(KSHELL)
EXTRA_DIST += %reldir%/kshell.c
$(KSHELL): $(top_srcdir)/%reldir%/kshell.c $(KP_HOST_LIB)
	$(AM_V_CCLD)$(KP_HOST_LINK) $(top_srcdir)/%reldir%/kshell.c $(KP_HOST_LIBS)

# tools/kprof-report: folded stacks to pprof, flame graph SVG, diff and
# top (doc/kprof-report.1): main.c and the build's sanitizer options
# (report_san.c) on the archive.
KPROF_REPORT = tools/kprof-report
KPROF_REPORT_C = $(top_srcdir)/%reldir%/report/main.c $(top_srcdir)/%reldir%/report_san.c
bin_SCRIPTS += $(KPROF_REPORT)
dist_man_MANS += doc/kprof-report.1
CLEANFILES += $(KPROF_REPORT)
EXTRA_DIST += %reldir%/report_san.c %reldir%/report/main.c
$(KPROF_REPORT): $(KPROF_REPORT_C) $(KP_HOST_LIB)
	$(AM_V_CCLD)$(KP_HOST_LINK) $(KPROF_REPORT_C) $(KP_HOST_LIBS)

# tools/kprof-collect: many kernels' sessions, one pprof per target per
# interval (doc/collect.md, doc/kprof-collect.1): its own files on the
# archive (kprof-report's reader and writer, kshell's client).
KPROF_COLLECT = tools/kprof-collect
KPROF_COLLECT_C = $(top_srcdir)/%reldir%/collect/main.c \
	$(top_srcdir)/%reldir%/collect/target.c \
	$(top_srcdir)/%reldir%/collect/store.c \
	$(top_srcdir)/%reldir%/collect/interval.c \
	$(top_srcdir)/%reldir%/collect/images.c
bin_SCRIPTS += $(KPROF_COLLECT)
dist_man_MANS += doc/kprof-collect.1
CLEANFILES += $(KPROF_COLLECT)
EXTRA_DIST += %reldir%/collect/main.c %reldir%/collect/target.c \
	%reldir%/collect/store.c %reldir%/collect/interval.c \
	%reldir%/collect/images.c
$(KPROF_COLLECT): $(KPROF_COLLECT_C) $(KP_HOST_LIB)
	$(AM_V_CCLD)$(KP_HOST_LINK) $(KPROF_COLLECT_C) $(KP_HOST_LIBS) -lpthread

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
