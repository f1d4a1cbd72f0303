# SPDX-License-Identifier: BSD-2-Clause
# The arm64 kernel image (--target=aarch64-kernel), for QEMU's virt
# machine: its objects.  The link and `make run` are every kernel's
# (arch/kernel.mk).
if PLATFORM_ARM64
ARM64_KERNEL = %reldir%/kprof.elf
KP_KERNEL = $(ARM64_KERNEL)
KP_ARCH_LIB = %reldir%/libarm64.a
KP_LDSCRIPT = $(srcdir)/%reldir%/kernel.ld
KP_QEMU_RUN = $(srcdir)/%reldir%/qemu-run
# make run [SMP=N] [GIC=2|3] [EL2=1] [NETPORT=P] [MMIO=1|2]: the GIC
# version, entry at EL2, virtio-net on virtio-mmio version MMIO (default
# 1).
KP_RUN_VARS = SMP='$(SMP)' GIC='$(GIC)' EL2='$(EL2)' NETPORT='$(NETPORT)' MMIO='$(MMIO)'

noinst_LIBRARIES = %reldir%/libarm64.a
%canon_reldir%_libarm64_a_CFLAGS = $(KP_KERNEL_CFLAGS)
%canon_reldir%_libarm64_a_CCASFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/%reldir%
%canon_reldir%_libarm64_a_SOURCES = $(KP_KERNEL_COMMON_SOURCES) \
	%reldir%/a64.h \
	%reldir%/irqflags.h \
	%reldir%/boot.S \
	%reldir%/entry.S \
	%reldir%/console.c \
	%reldir%/context.c \
	%reldir%/cpu.c \
	%reldir%/dt.c \
	%reldir%/firmware.c \
	%reldir%/image.c \
	%reldir%/gic.c \
	%reldir%/libc.c \
	%reldir%/mem.c \
	%reldir%/netdev.c \
	%reldir%/platform.c \
	%reldir%/pmu.c \
	%reldir%/power.c \
	%reldir%/probe.c \
	%reldir%/psci.c \
	%reldir%/random.c \
	%reldir%/smp.c \
	%reldir%/timer.c \
	%reldir%/trap.c

noinst_DATA = $(ARM64_KERNEL)
endif
EXTRA_DIST += %reldir%/kernel.ld %reldir%/qemu-run
