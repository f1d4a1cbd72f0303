dnl SPDX-License-Identifier: BSD-2-Clause
# KP_SELECT_PLATFORM
# ------------------
# Chooses exactly one platform: the Linux-hosted simulator (--enable-sim,
# also the default) or a kernel image (--target=x86_64-kernel).  Sets
# kp_platform to sim, x86_64 or arm64.  --target=aarch64-kernel is a cross
# build: CC defaults to aarch64-linux-gnu-gcc (CC= overrides it), the
# binutils are found with the same prefix, and a missing compiler is one
# line naming the Debian package.
AC_DEFUN([KP_SELECT_PLATFORM], [
dnl --target is read by configure's own option parser, which lists it only
dnl when AC_CANONICAL_TARGET is used; say here what it takes.
m4_divert_once([HELP_CANON], [[
Platform (one per build folder):
  --target=TARGET         the kernel image to build: x86_64-kernel (booted
                          by qemu-system-x86_64) or aarch64-kernel (cross-
                          built, booted by qemu-system-aarch64 -M virt)
                          [default: none, build the simulator]]])
AC_ARG_ENABLE([sim],
  [AS_HELP_STRING([--enable-sim],
    [build ksim, the Linux-hosted simulator, and the Check suites
     @<:@default=yes without --target, excluded by it@:>@])],
  [kp_enable_sim=$enableval], [kp_enable_sim=default])

dnl configure's own option parser stores --target=NAME in target_alias.
AC_MSG_CHECKING([which platform to build])
AS_CASE(["x$target_alias"],
  [x], [kp_platform=sim],
  [xx86_64-kernel], [kp_platform=x86_64],
  [xaarch64-kernel], [kp_platform=arm64],
  [AC_MSG_RESULT([?])
   AC_MSG_ERROR([unknown --target=$target_alias: use --target=x86_64-kernel or --target=aarch64-kernel, or --enable-sim for the simulator])])
AS_IF([test "x$kp_platform" != xsim && test "x$kp_enable_sim" = xyes],
  [AC_MSG_ERROR([--enable-sim and --target=$target_alias exclude each other: configure one platform per build folder])])
AS_IF([test "x$kp_platform" = xsim && test "x$kp_enable_sim" = xno],
  [AC_MSG_ERROR([--disable-sim needs a kernel target: --target=x86_64-kernel])])
AC_MSG_RESULT([$kp_platform])
AS_IF([test "x$kp_platform" = xarm64], [KP_CROSS_AARCH64])
])

# KP_CROSS_AARCH64
# ----------------
# The arm64 kernel is built by a cross compiler: aarch64-linux-gnu-gcc
# unless CC names another, with the aarch64-linux-gnu- binutils (ar,
# ranlib: the host's cannot index foreign objects).  Its programs never
# run here, so configure is told it cross compiles.
AC_DEFUN([KP_CROSS_AARCH64], [
AS_IF([test -z "$CC"], [
  AC_CHECK_PROG([CC], [aarch64-linux-gnu-gcc], [aarch64-linux-gnu-gcc])
  AS_IF([test -z "$CC"],
    [AC_MSG_ERROR([aarch64-linux-gnu-gcc not found: install the Debian package gcc-aarch64-linux-gnu (or give CC=)])])])
AS_IF([test -z "$host_alias"], [host_alias=aarch64-linux-gnu])
ac_tool_prefix=aarch64-linux-gnu-
cross_compiling=yes
])
# AX_PTHREAD_KP
# -------------
# The simulator's CPUs are POSIX threads; timer_create lives in librt on
# older glibc.
AC_DEFUN([AX_PTHREAD_KP], [
AC_SEARCH_LIBS([pthread_create], [pthread], [],
  [AC_MSG_ERROR([the simulator needs POSIX threads])])
AC_SEARCH_LIBS([timer_create], [rt], [],
  [AC_MSG_ERROR([the simulator needs timer_create (POSIX timers)])])
])
