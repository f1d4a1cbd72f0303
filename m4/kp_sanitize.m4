dnl SPDX-License-Identifier: BSD-2-Clause
# KP_SANITIZERS
# -------------
# --enable-sanitizers: build everything (the portable code, the simulator,
# the tests) with AddressSanitizer and UndefinedBehaviorSanitizer, and
# make any report fatal so that a Check test fails on it.  The simulator
# tells the sanitizer about its stack switches (sim/context.c).  Only for
# the simulator configuration: a kernel image has no sanitizer runtime.
# The host tools built with CC_FOR_BUILD outside automake's programs
# (kprof-report, kprof-collect: tools/local.mk) take the same flags
# through KP_SAN_FOR_BUILD (issue 51: they needed CFLAGS_FOR_BUILD by
# hand); kp-symgen does not, as it runs inside the build itself.
AC_DEFUN([KP_SANITIZERS], [
AC_ARG_ENABLE([sanitizers],
  [AS_HELP_STRING([--enable-sanitizers],
    [build with AddressSanitizer and UndefinedBehaviorSanitizer (simulator only) @<:@default=no@:>@])],
  [kp_sanitizers=$enableval], [kp_sanitizers=no])
KP_SAN_FOR_BUILD=
AS_IF([test "x$kp_sanitizers" = xyes], [
  AS_IF([test "x$kp_platform" != xsim],
    [AC_MSG_ERROR([--enable-sanitizers needs the simulator (--enable-sim)])])
  kp_san_flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  AC_CACHE_CHECK([whether $CC links with $kp_san_flags], [kp_cv_sanitizers], [
    kp_save_CFLAGS=$CFLAGS
    kp_save_LDFLAGS=$LDFLAGS
    CFLAGS="$CFLAGS $kp_san_flags"
    LDFLAGS="$LDFLAGS $kp_san_flags"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <sanitizer/common_interface_defs.h>]],
        [[void *f; __sanitizer_start_switch_fiber(&f, 0, 0);]])],
      [kp_cv_sanitizers=yes], [kp_cv_sanitizers=no])
    CFLAGS=$kp_save_CFLAGS
    LDFLAGS=$kp_save_LDFLAGS])
  AS_IF([test "x$kp_cv_sanitizers" != xyes],
    [AC_MSG_ERROR([$CC cannot build with $kp_san_flags (libasan, libubsan)])])
  CFLAGS="$CFLAGS $kp_san_flags"
  LDFLAGS="$LDFLAGS $kp_san_flags"
  KP_SAN_FOR_BUILD=$kp_san_flags
])
AC_SUBST([KP_SAN_FOR_BUILD])
AM_CONDITIONAL([KP_SANITIZERS], [test "x$kp_sanitizers" = xyes])
])
