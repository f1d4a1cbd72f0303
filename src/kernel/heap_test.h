/* SPDX-License-Identifier: BSD-2-Clause */
/* The heap's entry points that only tests call. */
#ifndef KPROF_KERNEL_HEAP_TEST_H
#define KPROF_KERNEL_HEAP_TEST_H

#include <stddef.h>
#include "kernel/heap.h"

/* Pages held by the heap and bytes handed out. */
void heap_stats(size_t *pages, size_t *bytes_in_use);

#endif
