dnl SPDX-License-Identifier: BSD-2-Clause
# KP_REPORT_CHECKS
# ----------------
# What tools/kprof-report needs on the build machine, in every
# configuration (it is built with CC_FOR_BUILD, like tools/kp-symgen, so
# KP_SYMGEN_CHECKS runs first): protobuf-c's compiler for
# tools/report/profile.proto, and libprotobuf-c and zlib for
# CC_FOR_BUILD, found with PKG_CONFIG_FOR_BUILD.  Each missing piece is
# one line naming its Debian package.
AC_DEFUN([KP_REPORT_CHECKS], [
AC_REQUIRE([KP_SYMGEN_CHECKS])
AC_ARG_VAR([PROTOC_C], [protobuf-c's compiler, for tools/report/profile.proto @<:@default: protoc-c from PATH@:>@])
AC_PATH_PROG([PROTOC_C], [protoc-c])
AS_IF([test -z "$PROTOC_C"],
  [AC_MSG_ERROR([kprof-report needs protoc-c (tools/report/profile.proto): install the Debian package protobuf-c-compiler])])

AC_MSG_CHECKING([for libprotobuf-c for the build machine])
AS_IF([$PKG_CONFIG_FOR_BUILD --exists libprotobuf-c 2>&AS_MESSAGE_LOG_FD],
  [AC_MSG_RESULT([yes])],
  [AC_MSG_RESULT([no])
   AC_MSG_ERROR([kprof-report needs libprotobuf-c, found with pkg-config: install the Debian package libprotobuf-c-dev])])
AC_MSG_CHECKING([for zlib for the build machine])
AS_IF([$PKG_CONFIG_FOR_BUILD --exists zlib 2>&AS_MESSAGE_LOG_FD],
  [AC_MSG_RESULT([yes])],
  [AC_MSG_RESULT([no])
   AC_MSG_ERROR([kprof-report needs zlib, found with pkg-config: install the Debian package zlib1g-dev])])
dnl An address view is resolved with libdw (elfutils): functions, lines
dnl and inline frames (tools/report/image.c).
AC_MSG_CHECKING([for libdw for kprof-report])
AS_IF([$PKG_CONFIG_FOR_BUILD --exists libdw 2>&AS_MESSAGE_LOG_FD],
  [AC_MSG_RESULT([yes])],
  [AC_MSG_RESULT([no])
   AC_MSG_ERROR([kprof-report needs libdw, found with pkg-config: install the Debian packages libdw-dev and libelf-dev])])
REPORT_FOR_BUILD_CFLAGS=`$PKG_CONFIG_FOR_BUILD --cflags libprotobuf-c zlib libdw libelf`
REPORT_FOR_BUILD_LIBS="`$PKG_CONFIG_FOR_BUILD --libs libprotobuf-c zlib libdw libelf` -lm"

dnl As for libdw: CC_FOR_BUILD by hand, not AC_LINK_IFELSE's $CC.
AC_MSG_CHECKING([whether $CC_FOR_BUILD links against libprotobuf-c, zlib and libdw])
cat > conftest-report.c <<_KP_EOF
#include <elfutils/libdwfl.h>
#include <protobuf-c/protobuf-c.h>
#include <zlib.h>
int main(void)
{
	return protobuf_c_version()[[0]] == 0 || zlibVersion()[[0]] == 0 ||
	       dwfl_version(0) == 0;
}
_KP_EOF
AS_IF([$CC_FOR_BUILD $CFLAGS_FOR_BUILD $REPORT_FOR_BUILD_CFLAGS conftest-report.c \
      -o conftest-report $LDFLAGS_FOR_BUILD $REPORT_FOR_BUILD_LIBS >&AS_MESSAGE_LOG_FD 2>&1],
  [AC_MSG_RESULT([yes])],
  [AC_MSG_RESULT([no])
   rm -f conftest-report.c conftest-report
   AC_MSG_ERROR([$CC_FOR_BUILD cannot build a program with libprotobuf-c, zlib and libdw ($REPORT_FOR_BUILD_LIBS): see config.log])])
rm -f conftest-report.c conftest-report
AC_SUBST([REPORT_FOR_BUILD_CFLAGS])
AC_SUBST([REPORT_FOR_BUILD_LIBS])
])
