# SPDX-License-Identifier: BSD-2-Clause
"""QEMU harness for the kernels' tests (tests/qemu/test_*).

One Kernel object is one QEMU process: TCG, the serial console on QEMU's
stdin/stdout pipes (no ports, no files), and a way out with an exit
status.  KPROF_ARCH (set by tests/qemu.mk) says which kernel: x86_64
(`-machine pc`, qboot, isa-debug-exit) or arm64 (`-machine virt`, the
GIC version a test asks for, semihosting's SYS_EXIT).  Every wait has a
timeout; QEMU is killed when the object is closed, when the test process
dies (PR_SET_PDEATHSIG) and on any failure.  A second QEMU monitor
listens on a unix socket in a private temporary folder: when the guest
stops answering, the failure says where each vCPU is (Kernel.fail()).
"""

import bisect
import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from kpnet import free_udp_port  # noqa: E402,F401  (tests import it from here)

PROMPT = "> "
BOOT_TIMEOUT = 30.0
COMMAND_TIMEOUT = 30.0


class HarnessError(Exception):
    """A step did not happen in time, or the output was not what it must be."""


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
        self._diag_dir = tempfile.mkdtemp(prefix="kpqemu-")
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


# The first byte of every keyless reply datagram (src/shell/udpsh/wire.h).
REPLY_MARK = b"\x1e"


def udp_exchange(port, payload, timeout=COMMAND_TIMEOUT, resend=None):
    """Send one datagram to the UDP shell at 127.0.0.1:@port; returns the
    reply datagrams joined, up to the one ending with the prompt, or None
    when nothing (or no prompt) came within @timeout.

    @resend: for a path that drops most datagrams, as a flooded QEMU does.
    The request is sent again after @resend seconds, then after twice
    that, and so on, until a reply ends.  The shell runs every copy that
    arrives (it queues UDPSH_NET_QUEUE and answers "busy" past that), so
    copies are few and cheap: the cookie is fetched first with `help`,
    whose copies cost nothing, and only then the request goes, whole."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("127.0.0.1", port))
        # Before QEMU binds the forwarded port the kernel may give this
        # socket that very port (connected to itself, it would read its
        # own request back), and QEMU, finding it taken, exits.  Ports
        # from free_udp_port() lie below the range sockets are given, so
        # this is only for a port chosen some other way.
        if s.getsockname() == s.getpeername():
            time.sleep(0.2)
            return None
        deadline = time.monotonic() + timeout
        cookie = help_reply = None
        if resend and not payload.startswith(b"@"):
            help_reply = _exchange_once(s, b"help", deadline, resend)
            if help_reply is None:
                return None
            m = COOKIE_HINT.search(help_reply)
            cookie = m.group(1) if m else None
        for _ in range(3):
            out = _exchange_once(s, _with_cookie(cookie, payload), deadline, resend,
                                 lambda r: payload != b"help" and _stale(r, cookie, help_reply))
            # A reply cut at 3x the request names the cookie that gets it
            # whole, from this address and port (src/shell/udpsh/udpsh.h); a
            # new one when ours went out of date.
            m = COOKIE_HINT.search(out) if out is not None else None
            if not m or payload.startswith(b"@"):
                break
            cookie = m.group(1)
        return out.decode(errors="replace") if out is not None else None


COOKIE_HINT = re.compile(rb"cookie @([0-9a-f]{16}): start the request with it\n> $")


def _with_cookie(cookie, payload):
    return b"@" + cookie + b" " + payload if cookie else payload


def _stale(reply, cookie, help_reply):
    """A reply to an earlier copy, not to the request that sends @cookie:
    `help`'s, or one cut with that very cookie (a cut reply with another
    cookie says ours went out of date)."""
    m = COOKIE_HINT.search(reply)
    return reply == help_reply or bool(cookie and m and m.group(1) == cookie)


def _exchange_once(s, payload, deadline, resend=None, stale=None):
    """@payload's reply.  Resending, a copy's answer may come first: "busy"
    (the queue was full) is skipped, and so is a whole reply @stale says
    is an earlier request's."""
    s.send(payload)
    out = b""
    wait = resend
    again = time.monotonic() + wait if resend else deadline
    while True:
        now = time.monotonic()
        if now >= deadline:
            return None
        if now >= again:
            s.send(payload)
            wait *= 2
            again = now + wait
        s.settimeout(max(min(deadline, again) - now, 0.001))
        try:
            d = s.recv(65536)
        except socket.timeout:
            continue
        except ConnectionRefusedError:
            return None
        # A keyless reply datagram starts with the mark (0x1e).
        check(d[:1] == REPLY_MARK, f"a reply datagram without the mark: {d[:40]!r}")
        if resend and d[1:] == b"busy":
            continue
        out += d[1:]
        if not out.endswith(PROMPT.encode()):
            continue
        if resend and stale and stale(out):
            out = b""
            continue
        return out


def missing_tools():
    """Why the tests cannot run here (no QEMU, no qboot), or None."""
    qemu = qemu_binary()
    bios = os.environ.get("QEMU_BIOS", "/usr/share/qemu/qboot.rom")
    if not shutil.which(qemu):
        return f"{qemu} not found"
    if arch() == "x86_64" and not os.path.isfile(bios):
        return f"no firmware at {bios}"
    return None


def run_tests(tests):
    """Run each test function; print one line per test; exit 0 when all
    passed, 77 (automake's SKIP) when QEMU is not installed.  A test is
    def test_x(): ... raising on failure.  KPROF_TESTS=WORD runs only the
    tests whose names contain WORD (for chasing one failure)."""
    why = missing_tools()
    if why:
        print(f"SKIP: {why}")
        sys.exit(77)
    only = os.environ.get("KPROF_TESTS", "")
    failed = 0
    for t in (t for t in tests if only in t.__name__):
        t0 = time.monotonic()
        try:
            t()
            print(f"PASS {t.__name__} ({time.monotonic() - t0:.1f} s)")
        except Exception as e:          # report every failure, keep going
            failed += 1
            print(f"FAIL {t.__name__}: {e}")
        sys.stdout.flush()
    sys.exit(1 if failed else 0)


def check(cond, why):
    if not cond:
        raise HarnessError(why)


TICK_LINE = re.compile(r"^tick: (\d+) Hz per cpu; ticks by (\d+)\.(\d{3}) s: cpu 0 (\d+)",
                       re.M)


def _tick_reading(k):
    out = k.command("lscpu")
    m = TICK_LINE.search(out)
    check(m, f"lscpu has no tick line: {out!r}")
    return int(m.group(1)), int(m.group(2)) * 1000 + int(m.group(3)), int(m.group(4))


# QEMU options for a kernel whose tick is counted against its own clock:
# under plain TCG a periodic timer that fell due while the host left QEMU
# unscheduled is skipped, not delivered late (QEMU's APIC timer re-arms
# for the next period after "now"), so a loaded host loses ticks (85 of
# 100 a second at a load of 16 on 2 cores).  With -icount and sleep=off
# the guest's time moves only as it runs instructions, and jumps from an
# idle CPU straight to the next timer deadline: every tick is delivered
# at its own virtual time, and the kernel's clock (the TSC, the generic
# counter) is the same virtual time, whatever the host's load.
ICOUNT = ("-icount", "shift=0,sleep=off")


def check_tick_rate(k, hz, window_s=1.0):
    """CPU 0's ticks between two `lscpu` readings, over the kernel's own
    clock between them, within 10% of @hz, which lscpu must state.  Boot
    @k with extra=ICOUNT (above).  Returns the measured rate."""
    said, ms0, t0 = _tick_reading(k)
    check(said == hz, f"lscpu says the tick runs at {said} Hz, want {hz}")
    time.sleep(window_s)
    _, ms1, t1 = _tick_reading(k)
    check(ms1 > ms0, f"the kernel's clock did not move ({ms0} -> {ms1} ms)")
    rate = (t1 - t0) * 1000.0 / (ms1 - ms0)
    print(f"  tick.hz={hz}: {t1 - t0} ticks in {ms1 - ms0} ms of the kernel's "
          f"clock, {rate:.1f}/s")
    check(abs(rate - hz) <= hz * 0.10,
          f"{t1 - t0} ticks in {ms1 - ms0} ms is {rate:.1f}/s, not {hz} within 10%")
    return rate


CPUS_ROW = re.compile(r"^cpu (\d+): (\d+) samples .*, idle (\d+)\.(\d)% of the window$", re.M)


def cpu_time_per_cpu(k, what, seconds=6.0, options="", timeout=60.0):
    """Per CPU, the weights of its samples outside its idle task, from the
    address view by CPU of a session (`profile start all @options`, about
    @seconds of host time, `profile stop`, `profile show folded addr
    cpus`), against its busy time by `profile show cpus`: the window less
    its idle share.  Each within 10% of that CPU's busy time (and never
    closer than two sampling periods).

    A loaded host does not move one side alone: a vCPU the host leaves
    unscheduled is, to the guest, a CPU whose clock ran on while it sat
    in the task it was in -- the counter (QEMU's virtual clock) or the
    late tick puts that time into the next sample's weight, and the
    scheduler's idle time, read from the same clock, calls it busy (or
    idle, in the idle task) too.  Only at the window's edges can the two
    part: the time between a CPU's last sample and the stop is busy but
    in no sample (normally under a period; all of a starvation that ends
    past the stop), and the first sample may count from before the
    window opened.  A session of a few seconds, not the window form's
    2, keeps even a 600 ms starvation at the very end inside 10%.

    Checks that the view's `# cpu_busy_ns=` says what `show cpus` says
    (to 0.2% of the window: the percentage's rounding).  @what names the
    run in the messages.  Returns the view's header."""
    out = k.command(f"profile start all{options}", timeout=timeout)
    check(out.startswith("profile: started"), f"{what}: profile start: {out!r}")
    time.sleep(seconds)
    out = k.command("profile stop", timeout=timeout)
    check(out.startswith("profile: stopped"), f"{what}: profile stop: {out!r}")
    out = k.command("profile show folded addr cpus", timeout=timeout)
    head = dict(re.findall(r"^# ([a-z_]+)=(.*)$", out, re.M))
    check(head.get("root") == "cpu" and head.get("frames") == "addr",
          f"{what}: no address view by cpu: {out[-300:]!r}")
    window = int(head["window_ms"]) * 10**6
    period = 10**9 // int(head.get("throttled_hz", head["hz"]))
    weights, samples, count = {}, {}, 0
    for line in out.splitlines():
        m = re.match(r"^cpu(\d+);(\S+) (\d+) (\d+)$", line)
        if not m:
            continue
        cpu = int(m.group(1))
        weights.setdefault(cpu, 0)
        samples[cpu] = samples.get(cpu, 0) + int(m.group(3))
        if not re.match(r"^\d+-idle/", m.group(2)):
            weights[cpu] += int(m.group(4))
            count += int(m.group(3))
    said = {int(c): int(n) for c, n in
            (kv.split(":") for kv in head.get("cpu_busy_ns", "").split())}
    rows = CPUS_ROW.findall(k.command("profile show cpus"))
    busy = {int(c): window * (1000 - int(i) * 10 - int(f)) // 1000
            for c, _, i, f in rows}
    check(busy and set(busy) == set(said) and set(weights) <= set(busy),
          f"{what}: show cpus names cpus {sorted(busy)}, the view's header "
          f"{sorted(said)}, its lines {sorted(weights)}")
    print(f"  {what}: {head.get('source')}, {window // 10**6} ms"
          + (f", throttled to {head['throttled_hz']} Hz" if "throttled_hz" in head else "")
          + "; " + "; ".join(
              f"cpu {c} weights {weights.get(c, 0) // 10**6} ms of {samples.get(c, 0)} "
              f"samples, busy {busy[c] // 10**6} ms" for c in sorted(busy))
          + f"; in all weights {sum(weights.values()) // 10**6} ms, busy "
          f"{sum(busy.values()) // 10**6} ms, count x 10^9/hz "
          f"{count * 10**9 // int(head['hz']) // 10**6} ms", flush=True)
    # A stop the host delays is a starvation at the window's end: QEMU's
    # main loop resumed, a CPU took its pending overflow after the stop
    # (late: dropped, weight and all) and its busy time to the stop is in
    # no sample.  The window's length past the host's own wait bounds
    # that stretch (a 6 s wait made a 7.5 s window at a load of 30, and
    # three CPUs were 0.3-1.4 s short), so a CPU may fall short by it too.
    late_end = max(0, window - int(seconds * 10**9))
    for c in sorted(busy):
        check(abs(said[c] - busy[c]) <= window // 500,
              f"{what}: cpu {c}'s cpu_busy_ns {said[c]} vs show cpus {busy[c]}")
        slack = max(busy[c] // 10, 2 * period)
        check(-(slack + late_end) <= weights.get(c, 0) - busy[c] <= slack,
              f"{what}: cpu {c}: non-idle weights {weights.get(c, 0)} ns vs "
              f"busy {busy[c]} ns (window {window} ns for a {seconds} s wait)")
    return head
