EXTRA_DIST += %reldir%/hacking.md
EXTRA_DIST += %reldir%/profiler.md
EXTRA_DIST += %reldir%/performance.md
EXTRA_DIST += %reldir%/boot.md
EXTRA_DIST += %reldir%/shell.md
