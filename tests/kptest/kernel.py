# SPDX-License-Identifier: BSD-2-Clause
"""One kernel under QEMU as a process: the serial console on QEMU's
stdin/stdout pipes, commands and their replies, a way out with an exit
status, and where each vCPU is when the guest stops answering (a second
QEMU monitor on a unix socket in a private folder).  Every wait has a
timeout; QEMU is killed when the object is closed, when the test process
dies (PR_SET_PDEATHSIG) and on any failure.  The command line is
kptest.qemu's."""

import bisect
import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from kptest.common import HarnessError, free_udp_port
from kptest.qemu import kernel_path, qemu_command


PROMPT = "> "


BOOT_TIMEOUT = 30.0


COMMAND_TIMEOUT = 30.0


def _symbols(elf):
    """[(address, name)] of @elf's functions, sorted; [] without nm."""
    try:
        out = subprocess.run(["nm", "-n", elf], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW" and not f[2].startswith("$"):
            syms.append((int(f[0], 16), f[2]))
    return syms


def _symbolize(syms, pc):
    i = bisect.bisect_right(syms, (pc, "\U0010ffff")) - 1
    if i < 0:
        return f"{pc:#x}"
    addr, sym = syms[i]
    return f"{sym}+{pc - addr:#x} ({pc:#x})"


def _die_with_parent():
    """In the child: SIGKILL QEMU if the test process dies first."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except OSError:
        pass


class Kernel:
    """smp: vCPUs (-smp).  The uniprocessor tests keep 1; tests/qemu/test_smp
    boots 4.  pc (x86 only): how the PC is put together and booted, a
    dict of machine (default "pc"), iso and firmware (x86_boot_args()),
    vga, serial and nic (qemu_command()).  net=True adds virtio-net with the UDP shell forwarded to
    127.0.0.1:self.net_port; each guest UDP port in @fwd_ports is also
    forwarded, from 127.0.0.1:self.fwd[guest_port].  On arm64 the device
    is on virtio-mmio, version @mmio (1 or 2; KPROF_VIRTIO_MMIO sets the
    default, else 1)."""

    def __init__(self, cmdline="", kernel=None, monitor=False, smp=1,
                 net=False, fwd_ports=(), fw_cfg=(), gic=3, el2=False, mmio=None,
                 host_seed=True, extra=(), pc=None):
        if mmio is None:
            mmio = int(os.environ.get("KPROF_VIRTIO_MMIO", "1"))
        self.net_port = free_udp_port() if net else None
        self.fwd = {g: free_udp_port() for g in fwd_ports} if net else {}
        self.start = time.monotonic()
        self.first_byte_at = None
        self.prompt_at = None       # when the first prompt byte arrived
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._eof = False
        self.kernel = kernel or kernel_path()
        self._diag_dir = tempfile.mkdtemp(prefix="kptest-qemu-")
        self._diag = os.path.join(self._diag_dir, "monitor")
        self.proc = subprocess.Popen(
            qemu_command(self.kernel, cmdline, monitor, smp,
                         self.net_port,
                         [(h, g) for g, h in self.fwd.items()], fw_cfg,
                         gic, el2, mmio, host_seed, extra, pc, self._diag),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, preexec_fn=_die_with_parent)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._errs = []
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # -- plumbing ---------------------------------------------------------
    def _read(self):
        fd = self.proc.stdout.fileno()
        while True:
            chunk = os.read(fd, 4096)
            with self._cond:
                if not chunk:
                    self._eof = True
                    self._cond.notify_all()
                    return
                if self.first_byte_at is None:
                    self.first_byte_at = time.monotonic()
                self._buf += chunk
                if self.prompt_at is None and PROMPT.encode() in self._buf:
                    self.prompt_at = time.monotonic()
                self._cond.notify_all()

    def _read_stderr(self):
        for line in self.proc.stderr:
            self._errs.append(line.decode(errors="replace"))

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        shutil.rmtree(self._diag_dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def text(self, since=0):
        """Console output from byte @since on, CR dropped."""
        with self._cond:
            data = bytes(self._buf[since:])
        return data.decode(errors="replace").replace("\r", "")

    def mark(self):
        with self._cond:
            return len(self._buf)

    def fail(self, why):
        rc = self.proc.poll()
        state = "still running" if rc is None else f"exited with status {rc}"
        vcpus = f"--- vcpus ---\n{self.vcpu_report()}\n" if rc is None else ""
        raise HarnessError(f"{why}\n--- console ---\n{self.text()}\n{vcpus}"
                           f"--- qemu ({state}) stderr ---\n{''.join(self._errs)}")

    def _diag_monitor(self, line, timeout=5.0):
        """@line on the diagnostic monitor; what it printed, or None."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(timeout)
                s.connect(self._diag)
                out = b""
                for cmd in (None, line):
                    if cmd:
                        s.sendall(cmd.encode() + b"\n")
                    while not out.endswith(b"(qemu) "):
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        out += chunk
                    if cmd is None:
                        out = b""
                return out.decode(errors="replace")
        except OSError:
            return None

    def vcpu_report(self):
        """Each vCPU's program counter, by symbol, twice a second apart
        (a guest that stopped answering: spinning, halted or stuck in one
        interrupt), and the first vCPU's registers in full."""
        syms = _symbols(self.kernel)
        lines, full = [], None
        for take in range(2):
            out = self._diag_monitor("info registers -a")
            if out is None:
                return "(the diagnostic monitor did not answer)"
            full = full or out
            pcs = re.findall(r"\b(?:PC|RIP)=([0-9a-fA-F]+)", out)
            lines.append(f"take {take}: " + ", ".join(
                f"cpu {i} {_symbolize(syms, int(pc, 16))}" for i, pc in enumerate(pcs)))
            time.sleep(1.0)
        # The monitor echoes the command with line-editing escapes; the
        # registers start at "CPU#0".  Of x86's, the general ones.
        first = full[full.find("CPU#0"):].split("\nCPU#1")[0].split("\nES =")[0]
        return "\n".join(lines) + "\n" + first.rstrip()

    # -- waiting ----------------------------------------------------------
    def wait_for(self, predicate, timeout, what, since=0):
        """Wait until predicate(output from byte @since on) is true;
        returns its value."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = predicate(self.text(since))
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0 or self._eof:
                    break
                self._cond.wait(min(left, 0.5))
        self.fail(f"timed out after {timeout:.0f} s waiting for {what}")

    def expect(self, regex, timeout=COMMAND_TIMEOUT, since=0):
        pat = re.compile(regex, re.M)
        return self.wait_for(pat.search, timeout, repr(regex), since)

    def wait_prompt(self, timeout=BOOT_TIMEOUT):
        self.expect(r"^> ", timeout)

    def wait_exit(self, timeout=COMMAND_TIMEOUT):
        """The N of the kernel's `poweroff N`, from QEMU's exit status
        (0 for 0, 2N + 1 otherwise, on both architectures, as
        arch/*/qemu-run decodes it); QEMU's own failure fails the test."""
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.fail(f"QEMU did not exit within {timeout:.0f} s")
        # Everything QEMU wrote before it exited is in the pipe: read it
        # all (to EOF) before a test looks at text(), or a loaded host
        # leaves its last lines unread.
        self._reader.join(timeout=10)
        self.qemu_status = rc
        if rc == 0:
            return 0
        if rc >= 3 and rc % 2 == 1:
            return (rc - 1) // 2
        self.fail(f"QEMU failed by itself (exit status {rc}), not the kernel's poweroff")

    # -- the shell --------------------------------------------------------
    def send(self, data):
        self.proc.stdin.write(data.encode())
        self.proc.stdin.flush()

    def monitor(self, line, wait=True):
        """Run one QEMU monitor command (needs Kernel(monitor=True)), then
        switch the terminal back to the serial console.  Returns what the
        monitor printed after the command's echo, up to its next prompt.

        wait=False sends the command and the switch back in one write and
        returns None: the monitor prints a line end when it loses the
        terminal, which would land inside whatever the guest prints in
        reply to the command (`nmi`: the panic); QEMU handles one write's
        bytes in one go, before the guest can print anything."""
        start = self.mark()
        self.send("\x01c")
        self.expect(r"\(qemu\) ", since=start)
        if not wait:
            self.send(line + "\r\x01c")
            return None
        start = self.mark()
        self.send(line + "\r")
        self.expect(r"\(qemu\) ", since=start)
        out = self.text(start)
        self.send("\x01c")
        out = out[out.find("\n") + 1:]     # the echoed, redrawn command line
        return out[:out.rfind("(qemu) ")]

    def command(self, line, timeout=COMMAND_TIMEOUT):
        """Type @line at the prompt; returns its output, without the echo
        and the next prompt."""
        start = self.mark()
        self.send(line + "\r")

        def done(t):
            return t if "\n" in t and t.endswith("\n" + PROMPT) else None

        out = self.wait_for(done, timeout, f"the prompt after {line!r}", start)
        out = out[out.index("\n") + 1:]     # drop the echoed line
        return out[:-len(PROMPT)]
