# SPDX-License-Identifier: BSD-2-Clause
# The x86_64 kernel image (--target=x86_64-kernel).
#
# The arch objects are a plain archive; the image is linked by an explicit
# rule (libtool's program support would get in the way of -nostdlib, -T and
# a freestanding link).  `make run` boots it under QEMU.
if PLATFORM_X86_64
X86_KERNEL = %reldir%/kprof.elf
X86_COMPILE_FLAGS = $(AM_CFLAGS) $(KP_SRC_CFLAGS) -fasynchronous-unwind-tables

noinst_LIBRARIES = %reldir%/libx86.a
%canon_reldir%_libx86_a_CFLAGS = $(X86_COMPILE_FLAGS)
%canon_reldir%_libx86_a_SOURCES = \
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
	%reldir%/pmu_hw.c \
	%reldir%/pmu_hw.h \
	%reldir%/power.c \
	%reldir%/pvh.c \
	%reldir%/random.c \
	%reldir%/smp.c \
	%reldir%/timer.c \
	%reldir%/trap.c \
	%reldir%/tsc_cpuid.c

# The framebuffer console's font, generated from the packaged PCF font
# (xfonts-base: X11 misc-fixed, public domain; %reldir%/font-LICENSE).
# X86_FONT names another fixed-width PCF font, at most 8 pixels wide.
X86_FONT = /usr/share/fonts/X11/misc/8x13-ISO8859-1.pcf.gz
nodist_%canon_reldir%_libx86_a_SOURCES = %reldir%/font.c
CLEANFILES += %reldir%/font.c
%reldir%/font.c: $(srcdir)/%reldir%/fontgen
	@$(MKDIR_P) %reldir%
	$(AM_V_GEN)python3 $(srcdir)/%reldir%/fontgen $(X86_FONT) $@

X86_LDSCRIPT = $(srcdir)/%reldir%/kernel.ld
X86_LINK_FLAGS = -nostdlib -static -no-pie -Wl,-T,$(X86_LDSCRIPT) \
	-Wl,-z,max-page-size=4096 -Wl,-z,noexecstack -Wl,--build-id=none
# libkprof.la is a libtool convenience library: its archive is in .libs.
X86_LINK_INPUTS = -Wl,--whole-archive %reldir%/libx86.a -Wl,--no-whole-archive \
	src/.libs/libkprof.a -lgcc

# The three-pass link (tools/kp-link3) appends the image's own symbol
# table, compiled with the kernel's flags, to the link command.
X86_SYMTAB_CC = $(CC) $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
	$(X86_COMPILE_FLAGS) $(CFLAGS)
X86_LINK3 = $(SHELL) $(top_srcdir)/tools/kp-link3 --symgen $(KP_SYMGEN) \
	--cc '$(X86_SYMTAB_CC)' --out $@ --

$(X86_KERNEL): %reldir%/libx86.a src/libkprof.la $(X86_LDSCRIPT) $(KP_LINK3_DEPS)
	$(AM_V_CCLD)$(X86_LINK3) $(CC) $(X86_LINK_FLAGS) -o $@ $(X86_LINK_INPUTS)

# The same image on a hybrid BIOS/UEFI CD image: GRUB 2 boots it
# through its Multiboot2 header (arch/x86_64/mkiso says what the menu
# holds).  make iso [ISO_KEYS='cpus=2 ...'] [ISO_TIMEOUT=S]: the boot
# keys both menu entries pass (never udpsh.key=) and how long the menu
# waits.  Built with the image, so that make install can put it beside
# the image; it needs grub-pc-bin, grub-efi-amd64-bin, xorriso, mtools.
X86_ISO = %reldir%/kprof.iso
ISO_KEYS =
ISO_TIMEOUT = 3
$(X86_ISO): $(X86_KERNEL) $(srcdir)/%reldir%/mkiso
	$(AM_V_GEN)TIMEOUT='$(ISO_TIMEOUT)' $(SHELL) $(srcdir)/%reldir%/mkiso $@ \
		$(X86_KERNEL) '$(ISO_KEYS)'
# Always made anew: the keys or the timeout may differ from the last.
iso: $(X86_KERNEL)
	$(AM_V_GEN)TIMEOUT='$(ISO_TIMEOUT)' $(SHELL) $(srcdir)/%reldir%/mkiso $(X86_ISO) \
		$(X86_KERNEL) '$(ISO_KEYS)'

noinst_DATA = $(X86_KERNEL) $(X86_ISO)
CLEANFILES += $(X86_KERNEL) $(X86_KERNEL).symtab.* $(X86_ISO)

# make run CMDLINE='cmd="help;poweroff"' [SMP=N] [NETPORT=P] [KEY=FILE]
# [FORWARD='udp:5001 ...']: boot under QEMU with N vCPUs (default 4),
# serial on this terminal (Ctrl-A X quits), the UDP shell forwarded to
# 127.0.0.1:P (default 5555), and each FORWARD word
# ([udp:|tcp:]HOSTPORT[:GUESTPORT]) too: netload's port, for one.
# The UDP shell's key goes in through fw_cfg: FILE (checked by kshell
# --check-key: a regular file of mode 600, not one byte repeated), else
# the default key file kshell, ksim and kprof-qemu use
# ($XDG_CONFIG_HOME/kprof/udpsh.key, made once by kshell --init-key);
# KEY=none boots the plain, unauthenticated shell (udpsh.key=none).
# qemu-run exits with the status poweroff gave, or 250-252 when it or
# QEMU fails (kprof-qemu(1)); make then exits 2.
run: $(X86_KERNEL) tools/kshell$(EXEEXT)
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
	SMP='$(SMP)' NETPORT='$(NETPORT)' FORWARD='$(FORWARD)' KEYFILE="$$key" \
		$(SHELL) $(srcdir)/%reldir%/qemu-run $(X86_KERNEL) "$$cmdline"
else
iso:
	@echo "make iso: only an x86_64 kernel configuration (--target=x86_64-kernel) has an ISO image" >&2; exit 1
endif
.PHONY: run iso
EXTRA_DIST += %reldir%/kernel.ld %reldir%/qemu-run %reldir%/mkiso \
	%reldir%/fontgen %reldir%/font-LICENSE
