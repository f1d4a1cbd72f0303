# SPDX-License-Identifier: BSD-2-Clause
# The x86_64 kernel image (--target=x86_64-kernel): its objects and
# what only it has (the font, the CD image).  The link and `make run` are
# every kernel's (arch/kernel.mk).
if PLATFORM_X86_64
X86_KERNEL = %reldir%/kprof.elf
KP_KERNEL = $(X86_KERNEL)
KP_ARCH_LIB = %reldir%/libx86.a
KP_LDSCRIPT = $(srcdir)/%reldir%/kernel.ld
KP_QEMU_RUN = $(srcdir)/%reldir%/qemu-run
# make run [SMP=N] [NETPORT=P] [FORWARD='udp:5001 ...']: N vCPUs (default
# 4), and each FORWARD word ([udp:|tcp:]HOSTPORT[:GUESTPORT]) forwarded
# too: netload's port, for one.
KP_RUN_VARS = SMP='$(SMP)' NETPORT='$(NETPORT)' FORWARD='$(FORWARD)'

noinst_LIBRARIES = %reldir%/libx86.a
%canon_reldir%_libx86_a_CFLAGS = $(KP_KERNEL_CFLAGS)
%canon_reldir%_libx86_a_SOURCES = $(KP_KERNEL_COMMON_SOURCES) \
	%reldir%/x86.h \
	%reldir%/boot.S \
	%reldir%/entry.S \
	%reldir%/trampoline.S \
	%reldir%/acpi.c \
	%reldir%/bootinfo.c \
	%reldir%/bootinfo.h \
	%reldir%/console.c \
	%reldir%/context.c \
	%reldir%/fbcon.c \
	%reldir%/cpu.c \
	%reldir%/e1000e.c \
	%reldir%/firmware.c \
	%reldir%/image.c \
	%reldir%/gdt.c \
	%reldir%/ioapic.c \
	%reldir%/lapic.c \
	%reldir%/libc.c \
	%reldir%/mem.c \
	%reldir%/msi.c \
	%reldir%/multiboot2.c \
	%reldir%/netdev.c \
	%reldir%/pci.c \
	%reldir%/platform.c \
	%reldir%/pmu.c \
	%reldir%/pmu_amd.c \
	%reldir%/pmu_hw.c \
	%reldir%/pmu_hw.h \
	%reldir%/pmu_intel.c \
	%reldir%/pmu_nmi.c \
	%reldir%/pmu_priv.h \
	%reldir%/power.c \
	%reldir%/probe.c \
	%reldir%/probe_entry.S \
	%reldir%/pvh.c \
	%reldir%/random.c \
	%reldir%/smp.c \
	%reldir%/timer.c \
	%reldir%/trap.c \
	%reldir%/tsc_cpuid.c

# The framebuffer console's font, generated from the packaged PCF font
# (xfonts-base: X11 misc-fixed, public domain; %reldir%/font-LICENSE).
# configure's X86_FONT (m4/kp_x86_image.m4), found there or refused,
# names another fixed-width PCF font, at most 8 pixels wide.
nodist_%canon_reldir%_libx86_a_SOURCES = %reldir%/font.c
CLEANFILES += %reldir%/font.c
%reldir%/font.c: $(srcdir)/%reldir%/fontgen
	@$(MKDIR_P) %reldir%
	$(AM_V_GEN)python3 $(srcdir)/%reldir%/fontgen $(X86_FONT) $@

# The same image on a hybrid BIOS/UEFI CD image: GRUB 2 boots it
# through its Multiboot2 header (arch/x86_64/mkiso says what the menu
# holds).  make iso [ISO_KEYS='cpus=2 ...'] [ISO_TIMEOUT=S]: the boot
# keys both menu entries pass (never udpsh.key=) and how long the menu
# waits.  Built with the image, so that make install can put it beside
# the image, when configure found grub-pc-bin, grub-efi-amd64-bin,
# xorriso and mtools; without them the build leaves it out and make iso
# fails with configure's line saying which are missing.
ISO_KEYS =
ISO_TIMEOUT = 3
MKISO = TIMEOUT='$(ISO_TIMEOUT)' GRUB_MKRESCUE='$(GRUB_MKRESCUE)' XORRISO='$(XORRISO)' \
	$(SHELL) $(srcdir)/%reldir%/mkiso
if X86_ISO
X86_ISO = %reldir%/kprof.iso
$(X86_ISO): $(X86_KERNEL) $(srcdir)/%reldir%/mkiso
	$(AM_V_GEN)$(MKISO) $@ $(X86_KERNEL) '$(ISO_KEYS)'
# Always made anew: the keys or the timeout may differ from the last.
iso: $(X86_KERNEL)
	$(AM_V_GEN)$(MKISO) $(X86_ISO) $(X86_KERNEL) '$(ISO_KEYS)'
CLEANFILES += $(X86_ISO)
else
X86_ISO =
iso:
	@echo "$(KP_ISO_MISSING)" >&2; exit 1
endif

noinst_DATA = $(X86_KERNEL) $(X86_ISO)
else
iso:
	@echo "make iso: only an x86_64 kernel configuration (--target=x86_64-kernel) has an ISO image" >&2; exit 1
endif
.PHONY: iso
EXTRA_DIST += %reldir%/kernel.ld %reldir%/qemu-run %reldir%/mkiso \
	%reldir%/fontgen %reldir%/font-LICENSE
