/* SPDX-License-Identifier: BSD-2-Clause */
/* The symbol table's entry points that only tests call. */
#ifndef KPROF_KERNEL_SYMBOLS_TEST_H
#define KPROF_KERNEL_SYMBOLS_TEST_H

#include "kernel/symbols.h"

/* The table sym_resolve() uses.  Defaults to the image's own; a test may
 * install another (NULL goes back to the image's).  Not while a report is
 * being printed or a sample taken. */
void sym_use_table(const struct sym_table *t);

#endif
