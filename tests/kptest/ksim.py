# SPDX-License-Identifier: BSD-2-Clause
"""ksim as a child process, the wire around it (frames in and out of
its network device) and its counters.  Only 127.0.0.1 is ever used on
the host."""

import os
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time

from kptest.common import Fail, builddir, free_udp_port


class Ksim:
    """ksim as a child: console on pipes, read by a thread; killed on close."""

    def __init__(self, args):
        self.out = b""
        self.lock = threading.Lock()
        # The default key file (ksim --udp or --net without --udp-key)
        # goes to a folder of this run's own, never the user's.
        self.config_home = tempfile.mkdtemp(prefix="kprof-xdg-")
        env = {**os.environ, "XDG_CONFIG_HOME": self.config_home}
        self.proc = subprocess.Popen([os.path.join(builddir(), "ksim")] + args,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=env)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            chunk = self.proc.stdout.read1(65536)
            if not chunk:
                return
            with self.lock:
                self.out += chunk

    def text(self):
        with self.lock:
            return self.out.decode(errors="replace")

    def wait_for(self, needle, timeout=10.0, start=0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            t = self.text()
            i = t.find(needle, start)
            if i >= 0:
                return i
            if self.proc.poll() is not None and needle not in self.text():
                break
            time.sleep(0.02)
        raise Fail(f"ksim did not print {needle!r}; it printed:\n{self.text()[-3000:]}")

    def command(self, line, timeout=10.0):
        """Run @line on the console; the output up to the next prompt."""
        start = len(self.text())
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        i = self.wait_for("> ", timeout, start)
        # the prompt printed after the command ran
        j = self.wait_for("\n> ", timeout, start)
        return self.text()[start:j + 1]

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.config_home, ignore_errors=True)


class Wire:
    """The other end of ksim's --net device: frames in UDP on loopback."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.ksim_port = free_udp_port()
        self.seen = []

    def send(self, frame):
        self.sock.sendto(frame, ("127.0.0.1", self.ksim_port))

    def recv(self, timeout=2.0, want=None):
        """The next frame @want accepts (every frame is kept in seen)."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                return None
            frame = self.sock.recv(65536)
            self.seen.append(frame)
            if want is None or want(frame):
                return frame

    def drain(self, quiet=0.3):
        """Every frame until the wire is quiet for @quiet seconds."""
        got = []
        while True:
            f = self.recv(quiet)
            if f is None:
                return got
            got.append(f)

    def close(self):
        self.sock.close()


def net_counter(text, name):
    """A drop counter's value in `net` output (0 when not listed)."""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == name:
            return int(parts[1])
    return 0


def udpsh_counter(text, name):
    """A 'udp shell:' counter (e.g. 'bad mac', 'stale') in `net` output."""
    for line in text.splitlines():
        # "udp shell: N datagrams, ..." or "udp shell (which): N ..."
        if line.startswith("udp shell") and ": " in line and name in line:
            for part in line.split(": ", 1)[1].split(", "):
                if part.endswith(" " + name) and part.split()[0].isdigit():
                    return int(part.split()[0])
    raise Fail(f"no udp shell counter {name!r} in:\n{text}")
