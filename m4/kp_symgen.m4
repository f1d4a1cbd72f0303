dnl SPDX-License-Identifier: BSD-2-Clause
# KP_SYMGEN_CHECKS
# ----------------
# What tools/ needs on the build machine: a C compiler for programs run
# during the build (CC_FOR_BUILD: $CC unless cross compiling) and
# elfutils' libdw and libelf for it, found with pkg-config
# (PKG_CONFIG_FOR_BUILD).  The symbol-table generator (tools/kp-symgen)
# reads every image that takes the three-pass link, so every platform
# needs it.
AC_DEFUN([KP_SYMGEN_CHECKS], [
AC_ARG_VAR([CC_FOR_BUILD], [C compiler for the build machine's tools (tools/) @<:@default: $CC,
   or cc when cross compiling@:>@])
AC_ARG_VAR([CFLAGS_FOR_BUILD], [C compiler flags for CC_FOR_BUILD @<:@default: -g -O2@:>@])
AC_ARG_VAR([LDFLAGS_FOR_BUILD], [linker flags for CC_FOR_BUILD @<:@default: none@:>@])
AC_ARG_VAR([PKG_CONFIG_FOR_BUILD], [pkg-config for the build machine @<:@default: $PKG_CONFIG, or
   pkg-config when cross compiling@:>@])
AS_IF([test -z "$CC_FOR_BUILD"], [
  AS_IF([test "x$cross_compiling" = xyes], [CC_FOR_BUILD=cc], [CC_FOR_BUILD=$CC])])
AS_IF([test -z "${CFLAGS_FOR_BUILD+set}"], [CFLAGS_FOR_BUILD="-g -O2"])
AS_IF([test -z "$PKG_CONFIG_FOR_BUILD"], [
  AS_IF([test "x$cross_compiling" != xyes && test -n "$PKG_CONFIG"],
    [PKG_CONFIG_FOR_BUILD=$PKG_CONFIG], [PKG_CONFIG_FOR_BUILD=pkg-config])])

AC_MSG_CHECKING([for elfutils libdw for the build machine])
AS_IF([$PKG_CONFIG_FOR_BUILD --exists libdw libelf 2>&AS_MESSAGE_LOG_FD], [
  LIBDW_FOR_BUILD_CFLAGS=`$PKG_CONFIG_FOR_BUILD --cflags libdw libelf`
  LIBDW_FOR_BUILD_LIBS=`$PKG_CONFIG_FOR_BUILD --libs libdw libelf`
  AC_MSG_RESULT([yes])
], [
  AC_MSG_RESULT([no])
  AC_MSG_ERROR([the symbol-table generator (tools/kp-symgen) needs elfutils' libdw and libelf on the build machine, found with pkg-config (Debian: apt-get install libdw-dev)])
])

dnl AC_LINK_IFELSE would use $CC, which is the wrong compiler when
dnl cross compiling: try CC_FOR_BUILD by hand.
AC_MSG_CHECKING([whether $CC_FOR_BUILD links against libdw])
cat > conftest-symgen.c <<_KP_EOF
#include <elfutils/libdw.h>
#include <gelf.h>
int main(void)
{
	Dwarf_Frame *f;
	elf_version(EV_CURRENT);
	return dwarf_cfi_addrframe(0, 0, &f);
}
_KP_EOF
AS_IF([$CC_FOR_BUILD $CFLAGS_FOR_BUILD $LIBDW_FOR_BUILD_CFLAGS conftest-symgen.c \
      -o conftest-symgen $LDFLAGS_FOR_BUILD $LIBDW_FOR_BUILD_LIBS >&AS_MESSAGE_LOG_FD 2>&1],
  [AC_MSG_RESULT([yes])],
  [AC_MSG_RESULT([no])
   rm -f conftest-symgen.c conftest-symgen
   AC_MSG_ERROR([$CC_FOR_BUILD cannot build a program with libdw ($LIBDW_FOR_BUILD_LIBS): see config.log])])
rm -f conftest-symgen.c conftest-symgen
AC_SUBST([LIBDW_FOR_BUILD_CFLAGS])
AC_SUBST([LIBDW_FOR_BUILD_LIBS])
])
