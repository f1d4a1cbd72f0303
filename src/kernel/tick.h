/* SPDX-License-Identifier: BSD-2-Clause */
/* The tick's rate, chosen once at boot for every platform: tick.hz=
 * (TICK_HZ_MIN-TICK_HZ_MAX), else the platform's default (100 on a
 * kernel, ksim's --hz).  The platform (hal/timer.h) only makes its
 * hardware deliver it. */
#ifndef KPROF_KERNEL_TICK_H
#define KPROF_KERNEL_TICK_H

#include <stdint.h>

#define TICK_HZ_MIN 100
#define TICK_HZ_MAX 1000

/* Boot CPU, once, after the command line and before the other CPUs
 * start: settle the rate and start the tick at it (hal_timer_start). */
void tick_start(void);

/* Ticks per second per CPU: what the tick samples at when it is the
 * profiler's source.  Any context. */
unsigned tick_hz(void);

/* The tick as a sample source, naming what delivers it and its rate
 * ("tick 100hz", "tick/sigprof 1000hz"), for the report header and
 * lscpu.  Any context; the string lives forever. */
const char *tick_source(void);

/* How long a CPU may take to answer a request made through its tick
 * before the asker gives up on it: the platform's bound, in time, so a
 * faster tick does not shorten it.  Any context. */
uint64_t tick_answer_ns(void);

#endif
