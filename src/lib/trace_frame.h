/* SPDX-License-Identifier: BSD-2-Clause */
/* The framing of `trace show raw` (src/prof/trace_views.c), which
 * kshell -o saves and kprof-report trace reads: the block opens with
 * TRACE_BLOCK_BEGIN on a line of its own and ends with TRACE_BLOCK_END
 * " lines=N", N the lines between.  Inside: "# t0_ns=A t1_ns=B",
 * "# cpu N lost=L" per CPU traced, "# task PID NAME" per task named,
 * then "TS_NS CPU PID EVENT F0 F1 FLAGS" per event, in time order. */
#ifndef KPROF_LIB_TRACE_FRAME_H
#define KPROF_LIB_TRACE_FRAME_H

#define TRACE_BLOCK_BEGIN "# kprof trace begin"
#define TRACE_BLOCK_END "# kprof trace end"

#endif
