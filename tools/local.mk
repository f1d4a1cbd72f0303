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
