# SPDX-License-Identifier: BSD-2-Clause
"""Wire helpers for the scripts that play the network around ksim and the
UDP shell: Ethernet/ARP/IPv4/UDP frames, the UDP shell's authenticated
framing (src/shell/udpsh/wire.h), ksim as a child process.

Only 127.0.0.1 is ever used on the host; the addresses inside frames are
the simulated network's (10.0.2.0/24 by default) and never leave ksim's
loopback device."""

import hashlib
import hmac
import os
import random
import select
import socket
import struct
import subprocess
import shutil
import tempfile
import threading
import time

KSIM_IP = "10.0.2.15"
GW_IP = "10.0.2.2"
GW_MAC = bytes.fromhex("525500000202")
ATTACKER_MAC = bytes.fromhex("02badbadbad1")
BCAST = b"\xff" * 6
SHELL_PORT = 5555

# The keyed wire (src/shell/udpsh/wire.h, doc/shell.md "The keyed wire").
MAGIC = b"KPA2"
HDR, MAC = 48, 32
KIND_REQUEST, KIND_REPLY = 1, 2
F_LAST, F_STALE, F_GONE = 1, 2, 4
S_OK, S_FAILED, S_BUSY = 0, 1, 2


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def builddir():
    return os.environ.get("KPROF_BUILDDIR", ".")


# Ports this process has handed out: two children started side by side
# must not be given the same one.
_given_ports = set()


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_udp_port():
    """A UDP port on 127.0.0.1 free right now, for a child (ksim, QEMU's
    hostfwd) to bind.  It is taken below the host's ephemeral range: a port
    from that range can go to any process's unbound socket (another test's
    exchange sends from one) between this check and the child's bind, and
    the child then fails to start.  Picked at random so that suites run
    side by side rarely try the same one; the bind proves it free."""
    low = _ephemeral_low()
    first = max(1024, low - 12000)
    for _ in range(200):
        port = random.randrange(first, low) if low > first else 0
        if port in _given_ports:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            port = s.getsockname()[1]
        _given_ports.add(port)
        return port
    raise Fail(f"no free UDP port on 127.0.0.1 in {first}..{low - 1}")


def ip4(s):
    return socket.inet_aton(s)


def csum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def eth(dst, src, etype, payload):
    frame = dst + src + struct.pack("!H", etype) + payload
    return frame + b"\0" * max(0, 60 - len(frame))


def arp(op, sha, spa, tha, tpa, dst=BCAST):
    body = struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + sha + ip4(spa) + tha + ip4(tpa)
    return eth(dst, sha, 0x0806, body)


def ipv4(src, dst, proto, payload, ident=1, flags_frag=0x4000, total=None):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total or 20 + len(payload), ident,
                      flags_frag, 64, proto, 0, ip4(src), ip4(dst))
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + payload


def udp(src, dst, sport, dport, data, size=None):
    """A UDP datagram (header and @data); @size: the length field claims
    that many payload bytes (a first fragment), checksum 0 then."""
    ulen = 8 + (len(data) if size is None else size)
    if size is not None:
        return struct.pack("!HHHH", sport, dport, ulen, 0) + data
    pseudo = ip4(src) + ip4(dst) + struct.pack("!BBH", 0, 17, ulen)
    hdr = struct.pack("!HHHH", sport, dport, ulen, 0)
    c = csum(pseudo + hdr + data) or 0xffff
    return struct.pack("!HHHH", sport, dport, ulen, c) + data


def udp_frame(dst_mac, src_mac, src, dst, sport, dport, data):
    return eth(dst_mac, src_mac, 0x0800, ipv4(src, dst, 17, udp(src, dst, sport, dport, data)))


def parse_udp(frame):
    """(src ip, dst ip, sport, dport, payload) of an IPv4/UDP frame, or None."""
    if len(frame) < 42 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return None
    total = struct.unpack("!H", frame[16:18])[0]
    sport, dport, ulen = struct.unpack("!HHH", frame[34:40])
    return (socket.inet_ntoa(frame[26:30]), socket.inet_ntoa(frame[30:34]), sport, dport,
            frame[42:14 + total])


# --- the authenticated framing --------------------------------------------

def auth_request(key, nonce, ticket, cmd, rid=None):
    """A request spending @ticket of boot @nonce under request id @rid
    (random when not given)."""
    rid = rid if rid is not None else os.urandom(16)
    d = MAGIC + bytes([KIND_REQUEST, 0, 0, 0]) + struct.pack("!QQ", nonce, ticket) + rid + \
        struct.pack("!H", 0) + bytes(6) + cmd
    return d + hmac.new(key, d, hashlib.sha256).digest()


def auth_reply(key, data):
    """A reply's fields as a dict, or None when it does not verify."""
    if len(data) < HDR + MAC or data[:4] != MAGIC:
        return None
    body, mac = data[:-MAC], data[-MAC:]
    if not hmac.compare_digest(hmac.new(key, body, hashlib.sha256).digest(), mac):
        return None
    kind, flags, status = data[4], data[5], data[6]
    nonce, ticket = struct.unpack("!QQ", data[8:24])
    if kind != KIND_REPLY:
        return None
    return {"nonce": nonce, "ticket": ticket, "flags": flags, "status": status,
            "rid": data[24:40], "num": struct.unpack("!H", data[40:42])[0],
            "payload": body[HDR:]}


def reply_frame(key, rid, nonce, flags, status, num, payload, ticket=0):
    """A reply datagram as the shell frames it (for tests playing one)."""
    d = MAGIC + bytes([KIND_REPLY, flags, status, 0]) + struct.pack("!QQ", nonce, ticket) + \
        rid + struct.pack("!H", num) + bytes(6) + payload
    return d + hmac.new(key, d, hashlib.sha256).digest()


def request_fields(key, data):
    """A request's (nonce, ticket, rid, command), or None when it does
    not verify."""
    if len(data) < HDR + MAC or data[:4] != MAGIC or data[4] != KIND_REQUEST:
        return None
    body, mac = data[:-MAC], data[-MAC:]
    if not hmac.compare_digest(hmac.new(key, body, hashlib.sha256).digest(), mac):
        return None
    nonce, ticket = struct.unpack("!QQ", data[8:24])
    return nonce, ticket, data[24:40], body[HDR:]


def write_key(path, key):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key.hex() + "\n")


# --- ksim ----------------------------------------------------------------

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
