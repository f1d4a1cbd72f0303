# SPDX-License-Identifier: BSD-2-Clause
# Portable drivers: below net, above kernel (tests/check-layers).  No
# hardware addresses and no #ifdef: the platform finds a device and
# hands the driver its register window (drivers/virtio/virtio.h,
# drivers/fw_cfg/fw_cfg.h, drivers/e1000e/e1000e.h).
src_libkprof_la_SOURCES += \
	%reldir%/e1000e/e1000e.c %reldir%/e1000e/e1000e.h \
	%reldir%/e1000e/e1000e_netdev.c %reldir%/e1000e/e1000e_netdev.h \
	%reldir%/fw_cfg/fw_cfg.c %reldir%/fw_cfg/fw_cfg.h \
	%reldir%/netdev.h \
	%reldir%/virtio/mmio.c \
	%reldir%/virtio/pci_legacy.c \
	%reldir%/virtio/transport.c \
	%reldir%/virtio/virtio.h \
	%reldir%/virtio/virtio_net.c %reldir%/virtio/virtio_net.h \
	%reldir%/virtio/virtio_netdev.c %reldir%/virtio/virtio_netdev.h \
	%reldir%/virtio/virtqueue.c %reldir%/virtio/virtqueue.h
