/* SPDX-License-Identifier: BSD-2-Clause */
/* A point where an NMI, an interrupt or another CPU may act: between two
 * accesses of the counter path, or at a store the NMI path reads.  Tests
 * that play every interleaving in turn (tests/kit/x86_model.c, the
 * profiler's race tests) build the code under test with
 * KPROF_RACE_POINTS and act at each point; every other build -- the
 * kernels, ksim, the library the other tests link -- compiles the
 * points to nothing. */
#ifndef KPROF_LIB_RACE_POINT_H
#define KPROF_LIB_RACE_POINT_H

#ifdef KPROF_RACE_POINTS
/* @site names the point for a test that acts at one place only. */
void race_point(const char *site);
#else
#define race_point(site) ((void)0)
#endif

#endif
