/* SPDX-License-Identifier: BSD-2-Clause */
/* The tasks' entry points that only tests and benchmarks call. */
#ifndef KPROF_KERNEL_TASK_TEST_H
#define KPROF_KERNEL_TASK_TEST_H

#include "kernel/task.h"

/* Look a task up by pid; NULL when none.  The result is only a snapshot:
 * use it under task_list_lock() or for its pid and name. */
struct task *task_find(int pid);

#endif
