/* SPDX-License-Identifier: BSD-2-Clause */
/* The tasks' entry points that only tests and benchmarks call. */
#ifndef KPROF_KERNEL_TASK_TEST_H
#define KPROF_KERNEL_TASK_TEST_H

#include "kernel/task.h"

/* Look a task up by pid; NULL when none.  The result is only a snapshot:
 * the task may exit once the list's lock is dropped, so read its pid and
 * name at once (task_for_each() walks live tasks under the lock). */
struct task *task_find(int pid);

#endif
