dnl SPDX-License-Identifier: BSD-2-Clause
# KP_X86_IMAGE_CHECKS
# -------------------
# What the x86_64 kernel configuration builds from beside the compiler:
# the framebuffer console's font (arch/x86_64/fontgen reads it into the
# image, so without it no kernel builds: configure stops, naming the
# Debian package) and the CD image's tools (arch/x86_64/mkiso: GRUB's
# grub-mkrescue with its BIOS and UEFI modules, xorriso, mtools' mformat).
# Without those the kernel ELF still builds: configure says in one line
# what is missing and which packages bring it, the build leaves the ISO
# out (AM_CONDITIONAL X86_ISO), and `make iso` fails with that same line
# (KP_ISO_MISSING).  GRUB_MKRESCUE and XORRISO name other programs (a
# name that is no program counts as missing); mformat is found on PATH,
# where grub-mkrescue itself looks for it.
AC_DEFUN([KP_X86_IMAGE_CHECKS], [
AC_ARG_VAR([X86_FONT], [the x86_64 framebuffer console's font, a fixed-width PCF
            font at most 8 pixels wide
            @<:@default: /usr/share/fonts/X11/misc/8x13-ISO8859-1.pcf.gz,
            from xfonts-base@:>@])
AC_ARG_VAR([GRUB_MKRESCUE], [GRUB's image maker for the x86_64 CD image (make iso)
            @<:@default: grub-mkrescue from PATH@:>@])
AC_ARG_VAR([XORRISO], [the ISO 9660 writer grub-mkrescue runs
            @<:@default: xorriso from PATH@:>@])
kp_iso_missing=
AS_IF([test "x$kp_platform" = xx86_64], [
  : "${X86_FONT=/usr/share/fonts/X11/misc/8x13-ISO8859-1.pcf.gz}"
  AC_MSG_CHECKING([for the framebuffer console's font])
  AS_IF([test -r "$X86_FONT"], [AC_MSG_RESULT([$X86_FONT])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([no font $X86_FONT for the framebuffer console: install the Debian package xfonts-base (or give X86_FONT=)])])

  kp_iso_tools=
  kp_iso_pkgs=
  AC_PATH_PROG([GRUB_MKRESCUE], [grub-mkrescue])
  AS_IF([test -z "$GRUB_MKRESCUE" || ! command -v "$GRUB_MKRESCUE" >/dev/null 2>&1],
    [kp_iso_tools="$kp_iso_tools grub-mkrescue"; kp_iso_pkgs="$kp_iso_pkgs grub-common"])
  AC_PATH_PROG([XORRISO], [xorriso])
  AS_IF([test -z "$XORRISO" || ! command -v "$XORRISO" >/dev/null 2>&1],
    [kp_iso_tools="$kp_iso_tools xorriso"; kp_iso_pkgs="$kp_iso_pkgs xorriso"])
  AC_CHECK_PROG([kp_have_mformat], [mformat], [yes], [no])
  AS_IF([test "x$kp_have_mformat" != xyes],
    [kp_iso_tools="$kp_iso_tools mformat"; kp_iso_pkgs="$kp_iso_pkgs mtools"])
  AC_MSG_CHECKING([for GRUB's BIOS and UEFI modules])
  AS_IF([test -d /usr/lib/grub/i386-pc], [],
    [kp_iso_tools="$kp_iso_tools /usr/lib/grub/i386-pc"; kp_iso_pkgs="$kp_iso_pkgs grub-pc-bin"])
  AS_IF([test -d /usr/lib/grub/x86_64-efi], [],
    [kp_iso_tools="$kp_iso_tools /usr/lib/grub/x86_64-efi"; kp_iso_pkgs="$kp_iso_pkgs grub-efi-amd64-bin"])
  AS_IF([test -d /usr/lib/grub/i386-pc && test -d /usr/lib/grub/x86_64-efi],
    [AC_MSG_RESULT([yes])], [AC_MSG_RESULT([no])])
  AS_IF([test -n "$kp_iso_tools"], [
    kp_iso_missing="make iso: no CD image in this build folder, for want of$kp_iso_tools (apt-get install$kp_iso_pkgs, then configure again); the kernel ELF builds without it"
    AC_MSG_WARN([$kp_iso_missing])])
])
AM_CONDITIONAL([X86_ISO], [test "x$kp_platform" = xx86_64 && test -z "$kp_iso_missing"])
AC_SUBST([KP_ISO_MISSING], [$kp_iso_missing])
])
