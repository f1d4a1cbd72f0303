# SPDX-License-Identifier: BSD-2-Clause
# libFuzzer targets (configure --enable-fuzz with CC=clang, in a build
# folder of their own).  `make fuzz` runs each for FUZZ_SECONDS from the
# seed corpus in tests/fuzz/corpus/NAME; what it finds goes to
# tests/fuzz/work-NAME in the build folder (crashes to crash-* there).
FUZZ_SECONDS = 60
FUZZ_NAMES = net_rx shell fdt cmdline folded udpsh_client collect
FUZZ_RUNS = 10000000
FUZZ_RUN_TARGETS = $(FUZZ_NAMES:%=fuzz-run-%)
EXTRA_DIST += %reldir%/corpus %reldir%/make-seeds.py %reldir%/fuzz-long

if ENABLE_FUZZ
FUZZ_PROGS = %reldir%/fuzz_net_rx %reldir%/fuzz_shell %reldir%/fuzz_fdt \
	%reldir%/fuzz_cmdline %reldir%/fuzz_folded %reldir%/fuzz_udpsh_client \
	%reldir%/fuzz_collect
EXTRA_PROGRAMS += $(FUZZ_PROGS)
CLEANFILES += $(FUZZ_PROGS)

%canon_reldir%_fuzz_net_rx_SOURCES = %reldir%/fuzz_net_rx.c \
	%reldir%/fuzz_commands.c $(FAKE_HAL_SOURCES)
%canon_reldir%_fuzz_net_rx_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/kit
%canon_reldir%_fuzz_net_rx_LDFLAGS = $(KP_FUZZ_LDFLAGS)
%canon_reldir%_fuzz_net_rx_LDADD = tests/libfakehal.la

%canon_reldir%_fuzz_shell_SOURCES = %reldir%/fuzz_shell.c \
	%reldir%/fuzz_commands.c $(FAKE_HAL_SOURCES)
%canon_reldir%_fuzz_shell_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/kit
%canon_reldir%_fuzz_shell_LDFLAGS = $(KP_FUZZ_LDFLAGS)
%canon_reldir%_fuzz_shell_LDADD = tests/libfakehal.la

%canon_reldir%_fuzz_fdt_SOURCES = %reldir%/fuzz_fdt.c tests/kit/fdt_walk.c \
	tests/kit/fdt_walk.h $(FAKE_HAL_SOURCES)
%canon_reldir%_fuzz_fdt_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/kit
%canon_reldir%_fuzz_fdt_LDFLAGS = $(KP_FUZZ_LDFLAGS)
%canon_reldir%_fuzz_fdt_LDADD = tests/libfakehal.la

%canon_reldir%_fuzz_cmdline_SOURCES = %reldir%/fuzz_cmdline.c $(FAKE_HAL_SOURCES)
%canon_reldir%_fuzz_cmdline_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/kit
%canon_reldir%_fuzz_cmdline_LDFLAGS = $(KP_FUZZ_LDFLAGS)
%canon_reldir%_fuzz_cmdline_LDADD = tests/libfakehal.la

# The folded reader (tools/folded_read.c) under both its users, kprof-report's
# side and kshell -o's: the tools are built with CC_FOR_BUILD outside
# automake's programs (tools/local.mk), so the target compiles the
# sources itself.
%canon_reldir%_fuzz_folded_SOURCES = %reldir%/fuzz_folded.c \
	tools/folded_read.c tools/report/folded.c tools/report/names.c \
	tools/report/util.c tools/report/tree.c tools/report/top.c \
	tools/report/svg.c
%canon_reldir%_fuzz_folded_LDADD = -lm
%canon_reldir%_fuzz_folded_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools \
	-I$(top_srcdir)/tools/report
%canon_reldir%_fuzz_folded_LDFLAGS = $(KP_FUZZ_LDFLAGS)

# The UDP shell's client (tools/udpsh_client.c), kshell's and
# kprof-collect's exchange, against a fake keyed shell through its seam
# for the socket and the clock; the wire and HMAC from libkprof.
%canon_reldir%_fuzz_udpsh_client_SOURCES = %reldir%/fuzz_udpsh_client.c \
	tools/udpsh_client.c tools/udpsh_client.h $(FAKE_HAL_SOURCES)
%canon_reldir%_fuzz_udpsh_client_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools \
	-I$(top_srcdir)/tests/kit
%canon_reldir%_fuzz_udpsh_client_LDFLAGS = $(KP_FUZZ_LDFLAGS)
%canon_reldir%_fuzz_udpsh_client_LDADD = tests/libfakehal.la

# kprof-collect's interval path (tools/collect/interval.c): a rotate's
# reply through the size check, the header, the capped reader and the
# pprof writer, with the report library it links.
%canon_reldir%_fuzz_collect_SOURCES = %reldir%/fuzz_collect.c \
	tools/collect/interval.c tools/folded_read.c tools/report/folded.c \
	tools/report/names.c tools/report/util.c tools/report/pprof.c \
	tools/report/image.c
nodist_%canon_reldir%_fuzz_collect_SOURCES = tools/report/profile.pb-c.c
%canon_reldir%_fuzz_collect_LDADD = $(REPORT_FOR_BUILD_LIBS)
%canon_reldir%_fuzz_collect_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools \
	-I$(top_srcdir)/tools/report -Itools/report $(REPORT_FOR_BUILD_CFLAGS)
%canon_reldir%_fuzz_collect_LDFLAGS = $(KP_FUZZ_LDFLAGS)
# The generated header is in no source list automake orders compiles by,
# and `make fuzz` is not a target BUILT_SOURCES covers: name it, or a
# fresh build folder compiles pprof.c before protoc-c has written it.
$(%canon_reldir%_fuzz_collect_OBJECTS): tools/report/profile.pb-c.h

# One make target per fuzzer, so that `make -jN fuzz` runs N at once, each
# on a core of its own for the whole FUZZ_SECONDS (.ci/run: -j2).  Each
# prints its output when it ends, so that two runs' lines do not mix.
fuzz: $(FUZZ_RUN_TARGETS)
$(FUZZ_RUN_TARGETS): fuzz-run-%: %reldir%/fuzz_%
	@mkdir -p %reldir%/work-$*
	@echo "fuzz: $* for $(FUZZ_SECONDS) s"
	@./%reldir%/fuzz_$* -max_total_time=$(FUZZ_SECONDS) \
		-print_final_stats=1 -artifact_prefix=%reldir%/work-$*/ \
		%reldir%/work-$* $(srcdir)/%reldir%/corpus/$* \
		>%reldir%/work-$*.out 2>&1; \
	rc=$$?; cat %reldir%/work-$*.out; \
	echo "fuzz: $* exit $$rc"; exit $$rc

# Each target until FUZZ_RUNS executions (10M by default), with a summary of
# executions, coverage and crashes.  Long: the shell target alone takes
# about 40 minutes; .ci/run keeps to `make fuzz`.
fuzz-long: $(FUZZ_PROGS)
	$(srcdir)/%reldir%/fuzz-long $(FUZZ_RUNS) $(FUZZ_NAMES)
else
fuzz fuzz-long:
	@echo "$@: configure with CC=clang --enable-sim --enable-fuzz (in a build folder of its own)"; exit 1
endif
.PHONY: fuzz fuzz-long $(FUZZ_RUN_TARGETS)
