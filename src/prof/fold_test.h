/* SPDX-License-Identifier: BSD-2-Clause */
/* The fold's entry points that only tests call. */
#ifndef KPROF_PROF_FOLD_TEST_H
#define KPROF_PROF_FOLD_TEST_H

#include "prof/fold.h"

/* fold_add_cpu() for a record of cpu 0. */
int fold_add(struct fold *f, const struct prof_record *r);

#endif
