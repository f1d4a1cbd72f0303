# SPDX-License-Identifier: BSD-2-Clause
# The documents the man pages point to, installed in $(docdir) (e.g.
# /usr/local/share/doc/kprof) with README.md and LICENSE (Makefile.am):
# an installed kprof carries them, not only the source tree.
# tests/check-install-docs checks make install lays every one.
KP_DOCS = %reldir%/hacking.md %reldir%/profiler.md %reldir%/performance.md \
	%reldir%/boot.md %reldir%/shell.md %reldir%/iperf.md %reldir%/hardware.md \
	%reldir%/collect.md %reldir%/internals.md
dist_doc_DATA += $(KP_DOCS) README.md
# Each platform's notes, in $(docdir)/arch as in the source tree, so the
# map's doc/arch/NAME.md names stay true once installed.
archdocdir = $(docdir)/arch
KP_ARCH_DOCS = %reldir%/arch/x86_64.md %reldir%/arch/arm64.md %reldir%/arch/sim.md
dist_archdoc_DATA = $(KP_ARCH_DOCS)

# make installcheck: every document is where make install put it.
installcheck-local:
	@for f in $(KP_DOCS) README.md; do \
		b=$$(basename $$f); \
		test -r '$(DESTDIR)$(docdir)'/$$b || { \
			echo "installcheck: $(DESTDIR)$(docdir)/$$b is missing" >&2; exit 1; }; \
		cmp -s $(srcdir)/$$f '$(DESTDIR)$(docdir)'/$$b || { \
			echo "installcheck: $(DESTDIR)$(docdir)/$$b differs from $$f" >&2; exit 1; }; \
	done; \
	for f in $(KP_ARCH_DOCS); do \
		b=arch/$$(basename $$f); \
		cmp -s $(srcdir)/$$f '$(DESTDIR)$(docdir)'/$$b || { \
			echo "installcheck: $(DESTDIR)$(docdir)/$$b is missing or differs from $$f" >&2; exit 1; }; \
	done; echo "installcheck: the documents are in $(DESTDIR)$(docdir)"

# Man pages, installed by make install: kshell(1) wherever kshell is
# built (every configuration), ksim(1) with ksim.
EXTRA_DIST += %reldir%/ksim.1 %reldir%/kshell.1
man_MANS += %reldir%/kshell.1
if PLATFORM_SIM
man_MANS += %reldir%/ksim.1
endif
