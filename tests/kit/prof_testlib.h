/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared by the profiler's Check suites: a symbol table, CPUs, ticks,
 * golden texts. */
#ifndef KPROF_TESTS_PROF_TESTLIB_H
#define KPROF_TESTS_PROF_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trap_frame;

/* The test image: functions at fixed addresses from PT_BASE.
 *   memcpy          0x1000 + 0x80
 *   (nothing)       0x1080 .. 0x1100
 *   net_frame_copy  0x1100 + 0x100
 *   virtio_net_rx   0x1200 + 0x400
 *   spin_lock       0x1600 + 0x40
 *   udp_input       0x1700 + 0x100
 *   cpu_idle        0x1800 + 0x20
 */
#define PT_BASE 0x400000ul
#define PT_MEMCPY (PT_BASE + 0x1000)
#define PT_GAP (PT_BASE + 0x1080)
#define PT_NET_FRAME_COPY (PT_BASE + 0x1100)
#define PT_VIRTIO_NET_RX (PT_BASE + 0x1200)
#define PT_SPIN_LOCK (PT_BASE + 0x1600)
#define PT_UDP_INPUT (PT_BASE + 0x1700)
#define PT_CPU_IDLE (PT_BASE + 0x1800)

/* Install the test image's symbol table. */
void pt_use_symbols(void);

/* Boot fake CPUs 0..n-1 and clear the fake PMU's log and counters. */
void pt_boot_cpus(unsigned n);

/* Deliver one tick on @cpu interrupting @ip (no stack to walk). */
void pt_tick(unsigned cpu, uintptr_t ip);

/* Deliver one tick on each of CPUs 0..n-1 (@ip each). */
void pt_tick_all(unsigned n, uintptr_t ip);

/* True when @text equals tests/prof/golden/@name byte for byte; when not,
 * the text is written to tests/prof/golden-out/@name under the build folder
 * and the difference is reported on stderr. */
bool pt_golden_equal(const char *name, const char *text);

#endif
