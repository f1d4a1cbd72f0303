# SPDX-License-Identifier: BSD-2-Clause
"""QEMU's command lines for the kernels' tests (tests/qemu/test_*):
KPROF_ARCH (set by tests/qemu/local.mk) says which kernel, x86_64
(`-machine pc`, qboot, isa-debug-exit) or arm64 (`-machine virt`, the
GIC version a test asks for, semihosting's SYS_EXIT); TCG, the serial
console on stdin/stdout, user networking with the UDP shell forwarded.
And what a host lacks to run them (missing_tools)."""

import os
import shutil

from kptest.common import HarnessError


def arch():
    """The kernel under test: "x86_64" or "arm64"."""
    return os.environ.get("KPROF_ARCH", "x86_64")


def qemu_binary():
    default = "qemu-system-aarch64" if arch() == "arm64" else "qemu-system-x86_64"
    return os.environ.get("QEMU", default)


def kernel_path():
    path = os.environ.get("KPROF_KERNEL", f"arch/{arch()}/kprof.elf")
    if not os.path.isfile(path):
        raise HarnessError(f"no kernel image at {path} (set KPROF_KERNEL)")
    return path


def user_net_rules(net_port, fwd):
    """QEMU user networking: the UDP shell's port 5555 forwarded to
    127.0.0.1:net_port, each (host, guest) pair of @fwd likewise, and
    nothing else."""
    rules = "".join(f",hostfwd=udp:127.0.0.1:{h}-:{g}"
                    for h, g in [(net_port, 5555)] + list(fwd))
    return f"user,id=n0{rules}"


def qemu_command_arm64(kernel, cmdline, monitor, smp, gic, el2,
                       net_port=None, fwd=(), mmio=1):
    """QEMU's virt machine: the GIC version @gic, entered at EL2 when @el2
    (virtualization=on, PSCI through smc); semihosting gives `poweroff N`
    its exit status.  With @net_port, virtio-net on a virtio-mmio slot
    (the highest, 0x0a003e00), version @mmio: 1 is QEMU's default (the
    legacy interface), 2 takes -global virtio-mmio.force-legacy=false.
    QEMU_EXTRA (words split on spaces) is appended, as QEMU_CPU replaces
    the -cpu model: `-icount shift=0` for a test that needs it."""
    machine = f"virt,gic-version={gic}" + (",virtualization=on" if el2 else "")
    net = []
    if net_port:
        net = ["-netdev", user_net_rules(net_port, fwd),
               "-device", "virtio-net-device,netdev=n0"]
        if mmio == 2:
            net += ["-global", "virtio-mmio.force-legacy=false"]
    return [
        qemu_binary(),
        "-accel", "tcg",
        "-machine", machine, "-cpu", os.environ.get("QEMU_CPU", "cortex-a57"),
        "-smp", str(smp), "-m", "256M",
        "-nodefaults", "-no-reboot", "-display", "none",
        "-serial", "mon:stdio" if monitor else "stdio",
        "-semihosting",
        "-kernel", kernel, "-append", cmdline,
    ] + net + os.environ.get("QEMU_EXTRA", "").split()


def ovmf_path():
    """Debian's OVMF (package ovmf), one image holding code and variables."""
    return os.environ.get("KPROF_OVMF", "/usr/share/ovmf/OVMF.fd")


def x86_boot_args(kernel, cmdline, pc):
    """How the x86 image is booted: PVH from qboot (-kernel, the default),
    or with pc["iso"] a CD image through SeaBIOS (QEMU's own firmware) or
    OVMF (pc["firmware"]), GRUB and Multiboot2."""
    iso = pc.get("iso")
    if not iso:
        return ["-bios", os.environ.get("QEMU_BIOS", "/usr/share/qemu/qboot.rom"),
                "-kernel", kernel, "-append", cmdline]
    fw = pc.get("firmware", "seabios")
    bios = ["-bios", ovmf_path()] if fw == "ovmf" else []
    return bios + ["-cdrom", iso]


def qemu_command(kernel, cmdline, monitor, smp, net_port=None, fwd=(), fw_cfg=(),
                 gic=3, el2=False, mmio=1, host_seed=True, extra=(), pc=None,
                 diag=None):
    # Firmware files (name, host file): the UDP shell's key goes in as
    # opt/kprof/udpsh.key, never on the command line.  As qemu-run does,
    # 32 fresh bytes as opt/kprof/random.seed unless @host_seed is False;
    # @extra: more QEMU options (-seed N).
    fw = []
    for name, path in fw_cfg:
        fw += ["-fw_cfg", f"name={name},file={path}"]
    if host_seed:
        fw += ["-fw_cfg", f"name=opt/kprof/random.seed,string={os.urandom(32).hex()}"]
    fw += list(extra)
    # @diag: a second monitor on a unix socket, for Kernel.fail() to ask
    # where each vCPU is when the guest stopped answering.
    if diag:
        fw += ["-monitor", f"unix:{diag},server=on,wait=off"]
    if arch() == "arm64":
        return qemu_command_arm64(kernel, cmdline, monitor, smp, gic, el2,
                                  net_port, fwd, mmio) + fw
    pc = pc or {}
    net = []
    if net_port:
        # pc["nic"]: the NIC model, virtio-net-pci unless named (e1000e,
        # the Intel 82574L).
        net = ["-netdev", user_net_rules(net_port, fwd),
               "-device", pc.get("nic", "virtio-net-pci") + ",netdev=n0"]
    # COM1 on our pipes; with the monitor multiplexed in, Ctrl-A c
    # switches between the two (Kernel.monitor()).  pc["serial"]=False:
    # no COM1 at all, the monitor alone on the pipes.
    serial = ["-serial", "mon:stdio" if monitor else "stdio"]
    if pc.get("serial", True) is False:
        serial = ["-monitor", "stdio"] if monitor else []
    # pc["vga"]: a display device (-nodefaults removes QEMU's), for the
    # framebuffer console and the monitor's screendump.
    vga = ["-vga", pc["vga"]] if pc.get("vga") else []
    return [
        qemu_binary(),
        "-accel", "tcg",            # never KVM: nested KVM is slower here
        "-machine", pc.get("machine", "pc"), "-cpu", "max", "-smp", str(smp),
        "-m", "256M",
        "-nodefaults", "-no-reboot", "-display", "none",
    ] + serial + vga + [
        "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
    ] + x86_boot_args(kernel, cmdline, pc) + net + fw


def missing_tools():
    """Why the tests cannot run here (no QEMU, no qboot), or None."""
    qemu = qemu_binary()
    bios = os.environ.get("QEMU_BIOS", "/usr/share/qemu/qboot.rom")
    if not shutil.which(qemu):
        return f"{qemu} not found"
    if arch() == "x86_64" and not os.path.isfile(bios):
        return f"no firmware at {bios}"
    return None
