# QEMU boot tests (kernel configurations).  Each test script boots the
# image it finds at KPROF_KERNEL under QEMU (TCG, qboot), talks to the
# serial shell over pipes, and kills QEMU however it ends
# (tests/qemu/kpqemu.py).  python3 and qemu-system-x86_64 are needed.
if PLATFORM_X86_64
QEMU_TESTS = \
	%reldir%/qemu/test_shell \
	%reldir%/qemu/test_panic \
	%reldir%/qemu/test_profile \
	%reldir%/qemu/test_smp \
	%reldir%/qemu/test_net
TESTS += $(QEMU_TESTS)
AM_TESTS_ENVIRONMENT = KPROF_KERNEL=$(abs_builddir)/$(X86_KERNEL); export KPROF_KERNEL; \
	KPROF_BUILDDIR=$(abs_builddir); export KPROF_BUILDDIR;
endif
EXTRA_DIST += \
	%reldir%/qemu/kpqemu.py \
	%reldir%/qemu/boot-time \
	%reldir%/qemu/test_shell \
	%reldir%/qemu/test_panic \
	%reldir%/qemu/test_profile \
	%reldir%/qemu/test_smp \
	%reldir%/qemu/test_net
