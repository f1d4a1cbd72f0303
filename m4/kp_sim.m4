dnl SPDX-License-Identifier: BSD-2-Clause
# KP_SIM_CHECKS
# -------------
# What the simulator platform needs beyond threads and timers: the perf
# ABI header (the counter behind the profiler) and the thread-directed
# signal and timer interfaces of Linux.
AC_DEFUN([KP_SIM_CHECKS], [
AS_IF([test "x$kp_platform" = xsim], [
  AC_CHECK_HEADERS([linux/perf_event.h], [],
    [AC_MSG_ERROR([the simulator needs linux/perf_event.h (linux-libc-dev)])])
  AC_CHECK_DECLS([SIGEV_THREAD_ID, F_SETOWN_EX, F_SETSIG], [],
    [AC_MSG_ERROR([the simulator needs Linux's SIGEV_THREAD_ID, F_SETOWN_EX and F_SETSIG])],
    [[#define _GNU_SOURCE
#include <signal.h>
#include <fcntl.h>]])
])
])
