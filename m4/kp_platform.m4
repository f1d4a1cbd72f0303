# KP_SELECT_PLATFORM
# ------------------
# Chooses exactly one platform: the Linux-hosted simulator (--enable-sim,
# also the default) or a kernel image (--target=x86_64-kernel).  Sets
# kp_platform to sim or x86_64.  --target=aarch64-kernel is refused by name
# until arch/arm64 exists: accepting it built src/ with the host compiler
# and no image.
AC_DEFUN([KP_SELECT_PLATFORM], [
AC_ARG_ENABLE([sim],
  [AS_HELP_STRING([--enable-sim],
    [build ksim, the Linux-hosted simulator, and the Check suites
     (the default when no kernel --target is given)])],
  [kp_enable_sim=$enableval], [kp_enable_sim=default])

dnl configure's own option parser stores --target=NAME in target_alias.
AC_MSG_CHECKING([which platform to build])
AS_CASE(["x$target_alias"],
  [x], [kp_platform=sim],
  [xx86_64-kernel], [kp_platform=x86_64],
  [xaarch64-kernel],
  [AC_MSG_RESULT([?])
   AC_MSG_ERROR([--target=aarch64-kernel: the arm64 kernel is not written yet; use --target=x86_64-kernel, or --enable-sim for the simulator])],
  [AC_MSG_RESULT([?])
   AC_MSG_ERROR([unknown --target=$target_alias: use --target=x86_64-kernel, or --enable-sim for the simulator])])
AS_IF([test "x$kp_platform" != xsim && test "x$kp_enable_sim" = xyes],
  [AC_MSG_ERROR([--enable-sim and --target=$target_alias exclude each other: configure one platform per build folder])])
AS_IF([test "x$kp_platform" = xsim && test "x$kp_enable_sim" = xno],
  [AC_MSG_ERROR([--disable-sim needs a kernel target: --target=x86_64-kernel])])
AC_MSG_RESULT([$kp_platform])
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
