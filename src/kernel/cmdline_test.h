/* SPDX-License-Identifier: BSD-2-Clause */
/* The command line's entry points that only tests call. */
#ifndef KPROF_KERNEL_CMDLINE_TEST_H
#define KPROF_KERNEL_CMDLINE_TEST_H

#include <stddef.h>
#include "kernel/cmdline.h"

/* The key named by the @len bytes at @name, or NULL. */
const struct cmdline_key *cmdline_key_find(const char *name, size_t len);

#endif
