# SPDX-License-Identifier: BSD-2-Clause
# The arm64 kernel image (--target=aarch64-kernel), for QEMU's virt
# machine.  As on x86: the arch objects are a plain archive, the image is
# linked by an explicit rule through the three-pass link, and `make run`
# boots it under QEMU.
if PLATFORM_ARM64
ARM64_KERNEL = %reldir%/kprof.elf
ARM64_COMPILE_FLAGS = $(AM_CFLAGS) $(KP_SRC_CFLAGS) -fasynchronous-unwind-tables

noinst_LIBRARIES = %reldir%/libarm64.a
%canon_reldir%_libarm64_a_CFLAGS = $(ARM64_COMPILE_FLAGS)
%canon_reldir%_libarm64_a_CCASFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/%reldir%
%canon_reldir%_libarm64_a_SOURCES = \
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
	%reldir%/psci.c \
	%reldir%/random.c \
	%reldir%/smp.c \
	%reldir%/timer.c \
	%reldir%/trap.c

ARM64_LDSCRIPT = $(srcdir)/%reldir%/kernel.ld
ARM64_LINK_FLAGS = -nostdlib -static -no-pie -Wl,-T,$(ARM64_LDSCRIPT) \
	-Wl,-z,max-page-size=4096 -Wl,-z,noexecstack -Wl,--build-id=sha1
# libkprof.la is a libtool convenience library: its archive is in .libs.
ARM64_LINK_INPUTS = -Wl,--whole-archive %reldir%/libarm64.a -Wl,--no-whole-archive \
	src/.libs/libkprof.a -lgcc

ARM64_SYMTAB_CC = $(CC) $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
	$(ARM64_COMPILE_FLAGS) $(CFLAGS)
ARM64_LINK3 = $(SHELL) $(top_srcdir)/tools/kp-link3 --symgen $(KP_SYMGEN) \
	--cc '$(ARM64_SYMTAB_CC)' --out $@ --

$(ARM64_KERNEL): %reldir%/libarm64.a src/libkprof.la $(ARM64_LDSCRIPT) $(KP_LINK3_DEPS)
	$(AM_V_CCLD)$(ARM64_LINK3) $(CC) $(ARM64_LINK_FLAGS) -o $@ $(ARM64_LINK_INPUTS)

noinst_DATA = $(ARM64_KERNEL)
CLEANFILES += $(ARM64_KERNEL) $(ARM64_KERNEL).symtab.*

# make run CMDLINE='cmd="help;poweroff"' [SMP=N] [GIC=2|3] [EL2=1]
# [NETPORT=P] [MMIO=1|2] [KEY=FILE]: boot under QEMU's virt machine,
# serial on this terminal (Ctrl-A X quits), virtio-net on virtio-mmio
# version MMIO (default 1) with the UDP shell forwarded to 127.0.0.1:P
# (default 5555).  The key as on x86 (arch/x86_64/local.mk): through
# fw_cfg, FILE, else the default key file kshell uses; KEY=none boots
# the plain shell (udpsh.key=none).  qemu-run exits with the status
# poweroff gave, or 250-252 when it or QEMU fails (kprof-qemu(1)); make
# then exits 2.
run: $(ARM64_KERNEL) tools/kshell
	@key='$(KEY)'; cmdline='$(CMDLINE)'; np='$(NETPORT)'; \
	if [ "$$key" = none ]; then \
		key=; cmdline="udpsh.key=none $$cmdline"; \
		echo "KEY=none: the UDP shell speaks the plain protocol, unauthenticated"; \
	elif [ -z "$$key" ]; then \
		key=$$(tools/kshell --init-key) || exit 250; \
		echo "UDP shell key $$key: tools/kshell 127.0.0.1:$${np:-5555} help"; \
	else \
		tools/kshell --check-key "$$key" || exit 250; \
	fi; \
	SMP='$(SMP)' GIC='$(GIC)' EL2='$(EL2)' NETPORT='$(NETPORT)' MMIO='$(MMIO)' \
	KEYFILE="$$key" \
		$(SHELL) $(srcdir)/%reldir%/qemu-run $(ARM64_KERNEL) "$$cmdline"
endif
EXTRA_DIST += %reldir%/kernel.ld %reldir%/qemu-run
