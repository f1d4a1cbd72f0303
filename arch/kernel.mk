# SPDX-License-Identifier: BSD-2-Clause
# What every kernel configuration builds the same way: the image's
# three-pass link and `make run`.  Each arch/*/local.mk sets only its own
# variables:
#   KP_KERNEL     the image (ARCH/kprof.elf)
#   KP_ARCH_LIB   the arch objects, a plain archive linked whole
#   KP_LDSCRIPT   its linker script
#   KP_QEMU_RUN   its qemu-run script (kprof-qemu(1))
#   KP_RUN_VARS   the make variables its qemu-run reads, as VAR='$(VAR)'
# The arch objects are compiled with KP_KERNEL_CFLAGS, with
# KP_KERNEL_COMMON_SOURCES among them.  The image is
# linked by an explicit rule (libtool's program support would get in the
# way of -nostdlib, -T and a freestanding link).
KP_KERNEL_CFLAGS = $(AM_CFLAGS) $(KP_SRC_CFLAGS) -fasynchronous-unwind-tables
# What every kernel's archive compiles besides its own files: the HAL
# functions that are the same on every kernel (each file says why they
# are not in src/).
KP_KERNEL_COMMON_SOURCES = \
	%reldir%/common/cycle_cpu_time.c \
	%reldir%/common/kernel_trap.c \
	%reldir%/common/netdev_hal.c %reldir%/common/netdev_hal.h

if !PLATFORM_SIM
KP_KERNEL_LINK_FLAGS = -nostdlib -static -no-pie -Wl,-T,$(KP_LDSCRIPT) \
	-Wl,-z,max-page-size=4096 -Wl,-z,noexecstack -Wl,--build-id=sha1
# libkprof.la is a libtool convenience library: its archive is in .libs.
KP_KERNEL_LINK_INPUTS = -Wl,--whole-archive $(KP_ARCH_LIB) -Wl,--no-whole-archive \
	src/.libs/libkprof.a -lgcc

# The three-pass link (tools/kp-link3) appends the image's own symbol
# table, compiled with the kernel's flags, to the link command.
KP_KERNEL_SYMTAB_CC = $(CC) $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
	$(KP_KERNEL_CFLAGS) $(CFLAGS)
KP_KERNEL_LINK3 = $(SHELL) $(top_srcdir)/tools/kp-link3 --symgen $(KP_SYMGEN) \
	--cc '$(KP_KERNEL_SYMTAB_CC)' --out $@ --

$(KP_KERNEL): $(KP_ARCH_LIB) src/libkprof.la $(KP_LDSCRIPT) $(KP_LINK3_DEPS)
	$(AM_V_CCLD)$(KP_KERNEL_LINK3) $(CC) $(KP_KERNEL_LINK_FLAGS) -o $@ $(KP_KERNEL_LINK_INPUTS)

CLEANFILES += $(KP_KERNEL) $(KP_KERNEL).symtab.*

# make run CMDLINE='cmd="help;poweroff"' [KEY=FILE] and the arch's own
# variables (arch/*/local.mk): boot under QEMU, serial on this terminal
# (Ctrl-A X quits), the UDP shell forwarded to 127.0.0.1:NETPORT (default
# 5555).  The UDP shell's key goes in through fw_cfg: FILE (checked by
# kshell --check-key: a regular file of mode 600, not one byte repeated),
# else the default key file kshell, ksim and kprof-qemu use
# ($XDG_CONFIG_HOME/kprof/udpsh.key, made once by kshell --init-key);
# KEY=none boots the plain, unauthenticated shell (udpsh.key=none).
# The gateway of QEMU's user network, which qemu-run sets up, is pinned
# (net.gw_mac=52:55:0a:00:02:02, doc/boot.md "ARP"); a net.gw_mac= in
# CMDLINE comes later and wins.
# qemu-run exits with the status poweroff gave, or 250-252 when it or
# QEMU fails (kprof-qemu(1)); make then exits 2.
run: $(KP_KERNEL) tools/kshell$(EXEEXT)
	@key='$(KEY)'; cmdline='$(CMDLINE)'; np='$(NETPORT)'; \
	cmdline="net.gw_mac=52:55:0a:00:02:02 $$cmdline"; \
	if [ "$$key" = none ]; then \
		key=; cmdline="udpsh.key=none $$cmdline"; \
		echo "KEY=none: the UDP shell speaks the plain protocol, unauthenticated"; \
	elif [ -z "$$key" ]; then \
		key=$$(tools/kshell --init-key) || exit 250; \
		echo "UDP shell key $$key: tools/kshell 127.0.0.1:$${np:-5555} help"; \
	else \
		tools/kshell --check-key "$$key" || exit 250; \
	fi; \
	$(KP_RUN_VARS) KEYFILE="$$key" \
		$(SHELL) $(KP_QEMU_RUN) $(KP_KERNEL) "$$cmdline"
endif
.PHONY: run
