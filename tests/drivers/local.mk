# SPDX-License-Identifier: BSD-2-Clause
# drivers suites: each driver of src/drivers/ against a modelled device
# (tests/kit/*_model.c).
if PLATFORM_SIM
# The fw_cfg driver (src/drivers/fw_cfg) against a modelled device.
check_PROGRAMS += %reldir%/check_fw_cfg
TESTS += %reldir%/check_fw_cfg
%canon_reldir%_check_fw_cfg_SOURCES = %reldir%/check_fw_cfg.c $(FAKE_HAL_SOURCES)
%canon_reldir%_check_fw_cfg_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_fw_cfg_LDADD = $(TEST_LDADD)

# The virtio family (src/drivers/virtio) against a modelled device on
# each transport.  --wrap lets a test act at the moment the driver turns
# its receive interrupt back on (the race of the poll contract).
check_PROGRAMS += %reldir%/check_virtio
TESTS += %reldir%/check_virtio
%canon_reldir%_check_virtio_SOURCES = %reldir%/check_virtio.c \
	tests/kit/virtio_model.c tests/kit/virtio_model.h $(FAKE_HAL_SOURCES)
%canon_reldir%_check_virtio_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_virtio_LDFLAGS = -Wl,--wrap=virtq_enable_irq
%canon_reldir%_check_virtio_LDADD = $(TEST_LDADD)

# The 82574L driver (src/drivers/e1000e) against a modelled part: the
# driver needs only its register window, so the suite links nothing else
# of the kernel (tests/kit/e1000e_model.h).
E1000E_CHECK_SOURCES = %reldir%/check_e1000e.c tests/kit/e1000e_model.c \
	tests/kit/e1000e_model.h src/drivers/e1000e/e1000e.c src/lib/kstring.c
check_PROGRAMS += %reldir%/check_e1000e
TESTS += %reldir%/check_e1000e
%canon_reldir%_check_e1000e_SOURCES = $(E1000E_CHECK_SOURCES)
%canon_reldir%_check_e1000e_CFLAGS = $(TEST_CFLAGS)
%canon_reldir%_check_e1000e_LDADD = $(CHECK_LIBS)
endif
# The same suite in the x86_64 kernel configuration, whose compiler
# builds the kernel: built for this machine with CC_FOR_BUILD, as
# the host tools are (the model tests pass in the x86
# configuration's make check).
if PLATFORM_X86_64
E1000E_HOST_CHECK = %reldir%/check-e1000e-model
check_SCRIPTS = $(E1000E_HOST_CHECK)
TESTS += $(E1000E_HOST_CHECK)
CLEANFILES += $(E1000E_HOST_CHECK)
E1000E_HOST_SRC = $(top_srcdir)/%reldir%/check_e1000e.c \
	$(top_srcdir)/tests/kit/e1000e_model.c \
	$(top_srcdir)/src/drivers/e1000e/e1000e.c $(top_srcdir)/src/lib/kstring.c
$(E1000E_HOST_CHECK): $(E1000E_HOST_SRC) $(top_srcdir)/tests/kit/e1000e_model.h \
		$(top_srcdir)/src/drivers/e1000e/e1000e.h
	@$(MKDIR_P) %reldir%
	$(AM_V_GEN)$(CC_FOR_BUILD) -Wall -Wextra $(CFLAGS_FOR_BUILD) $(CHECK_CFLAGS) \
		-I$(top_builddir) -I$(top_srcdir)/src -I$(top_srcdir)/tests/kit \
		$(LDFLAGS_FOR_BUILD) -o $@ $(E1000E_HOST_SRC) $(CHECK_LIBS)
endif
EXTRA_DIST += %reldir%/check_e1000e.c tests/kit/e1000e_model.c \
	tests/kit/e1000e_model.h
