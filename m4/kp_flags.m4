dnl SPDX-License-Identifier: BSD-2-Clause
# KP_CHECK_CFLAG(FLAG, VARIABLE, [ACTION-IF-REJECTED])
# ---------------------------------------------------
# Appends FLAG to VARIABLE when the C compiler accepts it without warnings.
AC_DEFUN([KP_CHECK_CFLAG], [
AS_VAR_PUSHDEF([kp_cv], [kp_cv_cflag_$1])
AC_CACHE_CHECK([whether $CC accepts $1], [kp_cv], [
  kp_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -Werror $1"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
    [AS_VAR_SET([kp_cv], [yes])], [AS_VAR_SET([kp_cv], [no])])
  CFLAGS=$kp_save_CFLAGS])
AS_VAR_IF([kp_cv], [yes], [$2="$$2 $1"], [$3])
AS_VAR_POPDEF([kp_cv])
])

# KP_REQUIRE_CFLAG(FLAG, VARIABLE)
# --------------------------------
# As KP_CHECK_CFLAG, but a compiler without FLAG cannot build the project.
AC_DEFUN([KP_REQUIRE_CFLAG], [
KP_CHECK_CFLAG([$1], [$2],
  [AC_MSG_ERROR([$CC does not accept $1, which this project needs])])
])

# KP_COMPILER_FLAGS
# -----------------
# KP_CFLAGS: every C file in the tree.  Frame pointers everywhere, because
# the stack walk follows them; no sibling calls, because a function that
# ends in a tail call leaves no frame and would vanish from every chain
# through its callee (net_rx -> ipv4_input), and the walk promises chains
# complete at every instruction (doc/internals.md, "The walk").  KP_SRC_CFLAGS: the portable code in src/,
# which must stay integer-only in every configuration, so a stray float
# fails in the simulator build and not first in the kernel build.
AC_DEFUN([KP_COMPILER_FLAGS], [
AC_ARG_ENABLE([werror],
  [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors @<:@default=no@:>@])],
  [kp_werror=$enableval], [kp_werror=no])
KP_CFLAGS=
KP_REQUIRE_CFLAG([-fno-omit-frame-pointer], [KP_CFLAGS])
KP_REQUIRE_CFLAG([-fno-optimize-sibling-calls], [KP_CFLAGS])
KP_CHECK_CFLAG([-Wall], [KP_CFLAGS])
KP_CHECK_CFLAG([-Wextra], [KP_CFLAGS])
KP_CHECK_CFLAG([-Wno-unused-parameter], [KP_CFLAGS])
KP_CHECK_CFLAG([-std=gnu11], [KP_CFLAGS])
# The simulator calls libc through the GOT, not through .plt stubs: a
# sample in a stub has no symbol and no call-frame rule, and its caller
# would be lost (-z now does not remove the stubs).
AS_IF([test "x$kp_platform" = xsim], [
  KP_REQUIRE_CFLAG([-fno-plt], [KP_CFLAGS])
])
AS_IF([test "x$kp_werror" = xyes], [KP_CFLAGS="$KP_CFLAGS -Werror"])
KP_SRC_CFLAGS=
KP_REQUIRE_CFLAG([-mgeneral-regs-only], [KP_SRC_CFLAGS])
AS_IF([test "x$kp_platform" != xsim], [
  KP_REQUIRE_CFLAG([-ffreestanding], [KP_SRC_CFLAGS])
  KP_REQUIRE_CFLAG([-fno-pie], [KP_SRC_CFLAGS])
])
AS_IF([test "x$kp_platform" = xx86_64], [
  KP_REQUIRE_CFLAG([-mno-red-zone], [KP_SRC_CFLAGS])
])
# arm64: atomics inline (LL/SC or LSE by -march), never libgcc's
# outline helpers, whose LSE test reads a variable a hosted C library's
# constructor sets.
AS_IF([test "x$kp_platform" = xarm64], [
  KP_REQUIRE_CFLAG([-mno-outline-atomics], [KP_SRC_CFLAGS])
])
# KP_PROBE_CFLAGS, src/libkprof.la's alone (issue 59): every function of
# src/ starts with a patchable entry, listed in the
# __patchable_function_entries section, that `probe add` patches into a
# call of the platform's trampoline; the platform's own code (sim/,
# arch/) has none, so the handler's calls there never recurse.  gcc
# emits five one-byte NOPs, which the platform rewrites into one 5-byte
# NOP before a second CPU runs (sim/probe.c, arch/x86_64/probe.c); clang
# emits the 5-byte NOP.  -mfentry's one NOP is refused with -fPIC, which
# the simulator's code is (tests/kernel/check_symbols.c is PIE on
# purpose).  ksim on an x86_64 host and the x86_64 kernel; not arm64 yet.
KP_PROBE_CFLAGS=
AS_IF([test "x$kp_platform" = xsim && test "x$host_cpu" = xx86_64], [
  KP_CHECK_CFLAG([-fpatchable-function-entry=5], [KP_PROBE_CFLAGS])
])
AS_IF([test "x$kp_platform" = xx86_64], [
  KP_REQUIRE_CFLAG([-fpatchable-function-entry=5], [KP_PROBE_CFLAGS])
])
AC_SUBST([KP_CFLAGS])
AC_SUBST([KP_SRC_CFLAGS])
AC_SUBST([KP_PROBE_CFLAGS])
])
