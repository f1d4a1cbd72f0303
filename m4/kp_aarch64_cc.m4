dnl SPDX-License-Identifier: BSD-2-Clause
# KP_AARCH64_CC_CHECK
# -------------------
# An aarch64 cross compiler, optional: tests/kernel/check_stacktrace_a64
# assembles and links its fixture (tests/kit/stack_fixture_a64.S) with it and
# walks aarch64 stacks against the table tools/kp-symgen makes of it.
# KP_AARCH64_CC names it (aarch64-linux-gnu-gcc by default; empty when
# none links a freestanding image), HAVE_AARCH64_CC says whether it is
# there.  Without one that test is skipped and says why.
AC_DEFUN([KP_AARCH64_CC_CHECK], [
AC_ARG_VAR([KP_AARCH64_CC],
  [aarch64 cross compiler for the aarch64 stack-walk test (optional)
   @<:@default: aarch64-linux-gnu-gcc when it links, else the test is
   skipped@:>@])
AC_CHECK_PROGS([KP_AARCH64_CC], [aarch64-linux-gnu-gcc])
AS_IF([test -n "$KP_AARCH64_CC"], [
  AC_MSG_CHECKING([whether $KP_AARCH64_CC links a freestanding aarch64 image])
  cat > conftest-a64.S <<_KP_EOF
	.globl	_start
	.type	_start, %function
_start:
	.cfi_startproc
	mov	x29, sp
	ret
	.cfi_endproc
_KP_EOF
  AS_IF([$KP_AARCH64_CC -nostdlib -static -no-pie -Wl,-Ttext=0x40200000 \
	-o conftest-a64 conftest-a64.S >&AS_MESSAGE_LOG_FD 2>&1],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_WARN([$KP_AARCH64_CC cannot link an aarch64 image: tests/kernel/check_stacktrace_a64 will be skipped])
     KP_AARCH64_CC=])
  rm -f conftest-a64 conftest-a64.S
])
AM_CONDITIONAL([HAVE_AARCH64_CC], [test -n "$KP_AARCH64_CC"])
])
