/* SPDX-License-Identifier: BSD-2-Clause */
/* The framing of a folded profile block, one definition for the kernel
 * that writes it (lib/folded_write.c, from a struct folded_head) and the
 * host tools' one reader of it (tools/folded_read.c, for kshell -o,
 * kprof-report and kprof-collect):
 *
 *   # kprof folded begin
 *   # KEY=VALUE             header lines, the keys below
 *   frame;frame;... COUNT   data lines
 *   # kprof folded end lines=N samples=M
 *
 * Only string constants: nothing here is linked. */
#ifndef KPROF_LIB_FOLDED_FRAME_H
#define KPROF_LIB_FOLDED_FRAME_H

#define FOLDED_BEGIN_LINE "# kprof folded begin"
/* The end line's first words, then " lines=N samples=M". */
#define FOLDED_END_WORDS "# kprof folded end"
#define FOLDED_END_FORMAT FOLDED_END_WORDS " lines=%llu samples=%llu"

/* Header keys: `# KEY=VALUE`. */
#define FOLDED_KEY_SOURCE "source"
#define FOLDED_KEY_HZ "hz"
#define FOLDED_KEY_WINDOW_MS "window_ms"
#define FOLDED_KEY_CPUS "cpus"
#define FOLDED_KEY_SAMPLES "samples"
#define FOLDED_KEY_DROPPED "dropped"
#define FOLDED_KEY_OTHER "other"
#define FOLDED_KEY_DEPTH "depth"
#define FOLDED_KEY_PID "pid"
/* The address view's: every frame an address, a weight after the count. */
#define FOLDED_KEY_FRAMES "frames"
#define FOLDED_FRAMES_ADDR "addr"
#define FOLDED_KEY_WEIGHT "weight"
#define FOLDED_WEIGHT_NS "ns"
#define FOLDED_KEY_BUILD_ID "build_id"
#define FOLDED_KEY_BUSY_NS "busy_ns"
#define FOLDED_KEY_THROTTLED_HZ "throttled_hz"
/* A view by CPU's: each line's root frame is its CPU ("cpuN;"), and the
 * address view gives each CPU's busy time ("0:NS 1:NS ..."). */
#define FOLDED_KEY_ROOT "root"
#define FOLDED_ROOT_CPU "cpu"
#define FOLDED_KEY_CPU_BUSY_NS "cpu_busy_ns"
/* A wall profile's: its weights are microseconds of wall time, its
 * window start_ns to stop_ns on the kernel's clock. */
#define FOLDED_KEY_WALL "wall"
#define FOLDED_KEY_UNIT "unit"
#define FOLDED_UNIT_US "us"
#define FOLDED_KEY_STOP_NS "stop_ns"
/* A wall view's time of kprof's service tasks, left out of its lines
 * (`profile show folded services` shows them). */
#define FOLDED_KEY_HIDDEN_NS "hidden_ns"
/* `profile rotate`'s: which interval, its span on the kernel's clock. */
#define FOLDED_KEY_SEQ "seq"
#define FOLDED_KEY_START_NS "start_ns"
#define FOLDED_KEY_END_NS "end_ns"
/* The host's: when the reply that carried the block came, in ns since
 * the epoch (`kshell -o` adds it after the begin line; pprof's
 * time_nanos).  No kernel writes it: its clock is not the host's. */
#define FOLDED_KEY_TIME_NANOS "time_nanos"

/* The most CPUs a header names (cpu_busy_ns), and the longest build-id,
 * in hex digits. */
#define FOLDED_CPUS_MAX 32
#define FOLDED_BUILD_ID_HEX_MAX 128

#endif
