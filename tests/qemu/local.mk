# SPDX-License-Identifier: BSD-2-Clause
# QEMU boot tests (kernel configurations).  Each test script boots the
# image it finds at KPROF_KERNEL under QEMU (TCG, qboot), talks to the
# serial shell over pipes, and kills QEMU however it ends
# (tests/kptest/kernel.py).  python3 and qemu-system-x86_64 are needed.
qemu_log = %reldir%/test_
if PLATFORM_X86_64
QEMU_TESTS = \
	%reldir%/test_shell \
	%reldir%/test_panic \
	%reldir%/test_profile \
	%reldir%/test_smp \
	%reldir%/test_net \
	%reldir%/test_udpsh_auth \
	%reldir%/test_install \
	%reldir%/test_pcboot \
	%reldir%/test_e1000e \
	%reldir%/test_hw_kits \
	%reldir%/test_collect \
	%reldir%/test_trace
# Probes (issue 59): patched entries on the kernel.
QEMU_TESTS += %reldir%/test_probe
TESTS += $(QEMU_TESTS)
AM_TESTS_ENVIRONMENT = KPROF_KERNEL=$(abs_builddir)/$(X86_KERNEL); export KPROF_KERNEL; \
	KPROF_BUILDDIR=$(abs_builddir); export KPROF_BUILDDIR; \
	PYTHONPATH=$(abs_top_srcdir)/tests; export PYTHONPATH; \
	PYTHONDONTWRITEBYTECODE=1; export PYTHONDONTWRITEBYTECODE; \
	XDG_CONFIG_HOME=$(abs_builddir)/tests/config-home; export XDG_CONFIG_HOME; \
	$(LAYERS_TESTS_ENVIRONMENT)
# The layer check (tests/local.mk) reads the arch objects as the backend.
TESTS += tests/check-layers
LAYERS_BACKEND_OBJECTS = $(arch_x86_64_libx86_a_OBJECTS)
# One QEMU at a time, even under make -j: beside another TCG guest (test_smp
# spins 4 vCPUs) on a 2-core machine, QEMU hands the guest its frames and
# its tick in the same late bursts, and test_net's profile of the receive
# task sees only the idle task (doc/arch/x86_64.md, "QEMU facts").
# (Named through qemu_log: a rule automake sees for a .log it generates
# would replace automake's own.)
$(qemu_log)panic.log: $(qemu_log)shell.log
$(qemu_log)profile.log: $(qemu_log)panic.log
$(qemu_log)smp.log: $(qemu_log)profile.log
$(qemu_log)net.log: $(qemu_log)smp.log
$(qemu_log)udpsh_auth.log: $(qemu_log)net.log
# make install from inside make check needs everything it installs built.
$(qemu_log)install.log: $(qemu_log)udpsh_auth.log tools/kprof-qemu tools/kshell$(EXEEXT)
# The CD image (GRUB under SeaBIOS and OVMF) after the rest.
$(qemu_log)pcboot.log: $(qemu_log)install.log $(X86_ISO)
# The 82574L, PVH and the CD image (SeaBIOS): one boot each.
$(qemu_log)e1000e.log: $(qemu_log)pcboot.log $(X86_ISO) tools/kshell$(EXEEXT)
# The hardware kit's skips and dry runs (tests/hw/).
$(qemu_log)hw_kits.log: $(qemu_log)e1000e.log tools/kshell$(EXEEXT)
# kprof-collect on the kernel: a minute at 2 s intervals.
$(qemu_log)collect.log: $(qemu_log)hw_kits.log tools/kprof-collect
# trace: ping-pong switches, the tick's irqs (issue 58).
$(qemu_log)trace.log: $(qemu_log)collect.log
$(qemu_log)probe.log: $(qemu_log)trace.log
endif
# The arm64 kernel's QEMU tests (QEMU's virt machine): its own script,
# and x86's network tests run against it (virtio-net on virtio-mmio, the
# key through fw_cfg on MMIO); the
# same harness with KPROF_ARCH=arm64, one QEMU at a time as on x86.
if PLATFORM_ARM64
TESTS += %reldir%/test_arm64 %reldir%/test_arm64_pmu \
	%reldir%/test_net %reldir%/test_udpsh_auth
TESTS += %reldir%/test_arm64_events
TESTS += %reldir%/test_trace
AM_TESTS_ENVIRONMENT = KPROF_KERNEL=$(abs_builddir)/$(ARM64_KERNEL); export KPROF_KERNEL; \
	KPROF_ARCH=arm64; export KPROF_ARCH; \
	KPROF_BUILDDIR=$(abs_builddir); export KPROF_BUILDDIR; \
	PYTHONPATH=$(abs_top_srcdir)/tests; export PYTHONPATH; \
	PYTHONDONTWRITEBYTECODE=1; export PYTHONDONTWRITEBYTECODE; \
	XDG_CONFIG_HOME=$(abs_builddir)/tests/config-home; export XDG_CONFIG_HOME; \
	$(LAYERS_TESTS_ENVIRONMENT)
TESTS += tests/check-layers
LAYERS_BACKEND_OBJECTS = $(arch_arm64_libarm64_a_OBJECTS)
# One QEMU at a time, as above: four TCG vCPUs sampling at 1 kHz beside
# another guest lose most of their overflows to QEMU's starved main loop.
qemu_a64_log = %reldir%/test_
$(qemu_a64_log)arm64_pmu.log: $(qemu_a64_log)arm64.log
$(qemu_a64_log)net.log: $(qemu_a64_log)arm64_pmu.log
$(qemu_a64_log)udpsh_auth.log: $(qemu_a64_log)net.log
$(qemu_a64_log)arm64_events.log: $(qemu_a64_log)udpsh_auth.log
$(qemu_a64_log)trace.log: $(qemu_a64_log)arm64_events.log
endif
EXTRA_DIST += \
	%reldir%/test_arm64 \
	%reldir%/test_arm64_pmu \
	%reldir%/test_arm64_events \
	%reldir%/boot-time \
	%reldir%/net-figures \
	%reldir%/pmu-figures \
	%reldir%/test_shell \
	%reldir%/test_panic \
	%reldir%/test_profile \
	%reldir%/test_smp \
	%reldir%/test_net \
	%reldir%/test_udpsh_auth \
	%reldir%/test_install \
	%reldir%/test_pcboot \
	%reldir%/test_e1000e \
	%reldir%/test_hw_kits \
	%reldir%/test_collect \
	%reldir%/test_trace \
	%reldir%/test_probe \
	tests/hw/kvm-pmu \
	tests/hw/pc-pmu
