# SPDX-License-Identifier: BSD-2-Clause
EXTRA_DIST += %reldir%/hacking.md
EXTRA_DIST += %reldir%/profiler.md
EXTRA_DIST += %reldir%/performance.md
EXTRA_DIST += %reldir%/boot.md
EXTRA_DIST += %reldir%/shell.md
EXTRA_DIST += %reldir%/iperf.md

# Man pages, installed by make install: kshell(1) wherever kshell is
# built (every configuration), ksim(1) with ksim.
EXTRA_DIST += %reldir%/ksim.1 %reldir%/kshell.1
man_MANS += %reldir%/kshell.1
if PLATFORM_SIM
man_MANS += %reldir%/ksim.1
endif
