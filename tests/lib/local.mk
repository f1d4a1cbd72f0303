# SPDX-License-Identifier: BSD-2-Clause
# lib suites: the portable library's helpers (check_lib), and the device
# tree reader on QEMU's virt trees (%reldir%/fdt/) and built ones
# (check_fdt).
if PLATFORM_SIM
check_PROGRAMS += %reldir%/check_lib %reldir%/check_fdt
TESTS += %reldir%/check_lib %reldir%/check_fdt
%canon_reldir%_check_lib_SOURCES = %reldir%/check_lib.c $(FAKE_HAL_SOURCES)
%canon_reldir%_check_lib_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_lib_LDADD = $(TEST_LDADD)

%canon_reldir%_check_fdt_SOURCES = %reldir%/check_fdt.c tests/kit/fdt_walk.c \
	tests/kit/fdt_walk.h $(FAKE_HAL_SOURCES)
%canon_reldir%_check_fdt_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_fdt_LDADD = $(TEST_LDADD)
endif
EXTRA_DIST += %reldir%/fdt/make-dtbs %reldir%/fdt/qemu-virt-gicv2.dtb \
	%reldir%/fdt/qemu-virt-gicv3.dtb %reldir%/fdt/qemu-virt-el2.dtb \
	%reldir%/fdt/qemu-virt-bootargs.dtb
