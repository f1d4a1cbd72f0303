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
# carries its own symbol table (doc/hacking.md, "The image's symbol
# table").  KP_LINK3 goes in front of a link command that writes $@;
# KP_LINK3_LIBTOOL is libtool's C link command with it in front, for a
# prog_LINK:
#
#   prog_LINK = $(KP_LINK3_LIBTOOL) $(prog_CFLAGS) $(CFLAGS) \
#	$(prog_LDFLAGS) $(LDFLAGS) -o $@
#   EXTRA_prog_DEPENDENCIES = $(KP_LINK3_DEPS)
#   CLEANFILES += prog.symtab.*
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

# tools/kshell: the UDP shell's client (README, "The UDP shell"), a host
# program installed with the kernel or the simulator.
bin_PROGRAMS += %reldir%/kshell
# HMAC-SHA256 for the authenticated protocol: the kernel's own code.
%canon_reldir%_kshell_SOURCES = %reldir%/kshell.c src/lib/sha256.c src/lib/kstring.c
%canon_reldir%_kshell_CFLAGS = -Wall -Wextra

# An installed kernel (kernel configurations): make install puts the
# image in $(pkglibdir) as kprof-ARCH.elf with the QEMU line `make run`
# uses (arch/*/qemu-run) as qemu-run-ARCH, and tools/kprof-qemu, which
# boots it from there (kprof-qemu(1)): no source tree needed.
if PLATFORM_SIM
KP_INSTALL_IMAGE =
endif
if PLATFORM_X86_64
KP_INSTALL_IMAGE = $(X86_KERNEL)
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

uninstall-local:
	@if test -n '$(KP_INSTALL_IMAGE)'; then \
		rm -f '$(DESTDIR)$(pkglibdir)/kprof-$(KP_INSTALL_ARCH).elf' \
			'$(DESTDIR)$(pkglibdir)/qemu-run-$(KP_INSTALL_ARCH)'; \
	fi
