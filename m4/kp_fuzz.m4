dnl SPDX-License-Identifier: BSD-2-Clause
# KP_FUZZ
# -------
# --enable-fuzz: build the libFuzzer targets of tests/fuzz/ (`make fuzz`
# runs them).  Needs clang and the simulator configuration, in a build
# folder of its own:
#   CC=clang ../configure --enable-sim --enable-fuzz
# Everything in that folder is built with AddressSanitizer and
# UndefinedBehaviorSanitizer and libFuzzer's coverage hooks, so the
# portable code is what the fuzzer measures and what the sanitizers
# watch.  Sets ENABLE_FUZZ and KP_FUZZ_LDFLAGS, and adds the sanitizers
# to LDFLAGS.
AC_DEFUN([KP_FUZZ], [
AC_ARG_ENABLE([fuzz],
  [AS_HELP_STRING([--enable-fuzz],
    [build libFuzzer targets (clang, --enable-sim; see `make fuzz')
     @<:@default=no@:>@])],
  [kp_fuzz=$enableval], [kp_fuzz=no])
KP_FUZZ_LDFLAGS=
AS_IF([test "x$kp_fuzz" = xyes], [
  AS_IF([test "x$kp_platform" != xsim],
    [AC_MSG_ERROR([--enable-fuzz needs the simulator configuration (--enable-sim)])])
  kp_fuzz_san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
  AC_MSG_CHECKING([whether $CC links libFuzzer targets])
  kp_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -fsanitize=fuzzer $kp_fuzz_san"
  AC_LINK_IFELSE([AC_LANG_SOURCE([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
]])], [kp_fuzz_ok=yes], [kp_fuzz_ok=no])
  CFLAGS=$kp_save_CFLAGS
  AC_MSG_RESULT([$kp_fuzz_ok])
  AS_IF([test "x$kp_fuzz_ok" != xyes],
    [AC_MSG_ERROR([--enable-fuzz needs clang with libFuzzer (CC=clang; Debian: clang, libclang-rt-dev)])])
  KP_CFLAGS="$KP_CFLAGS -g -fsanitize=fuzzer-no-link $kp_fuzz_san"
  KP_FUZZ_LDFLAGS="-fsanitize=fuzzer $kp_fuzz_san"
  # Everything else in the folder (ksim, the Check suite, the benches)
  # is compiled with the sanitizers too, so it links their runtimes;
  # links through tools/kp-link3 see CFLAGS and LDFLAGS, not KP_CFLAGS.
  LDFLAGS="$LDFLAGS $kp_fuzz_san"
])
AM_CONDITIONAL([ENABLE_FUZZ], [test "x$kp_fuzz" = xyes])
AC_SUBST([KP_FUZZ_LDFLAGS])
])
