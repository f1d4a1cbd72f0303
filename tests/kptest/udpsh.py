# SPDX-License-Identifier: BSD-2-Clause
"""The UDP shell's protocol from the host's side: the keyed wire
(src/shell/udpsh/wire.h, doc/shell.md "The keyed wire") and an exchange
with a kernel's shell over 127.0.0.1 (the unkeyed one, with its cookie)."""

import hashlib
import hmac
import os
import re
import socket
import struct
import time

from kptest.kernel import COMMAND_TIMEOUT, PROMPT
from kptest.runner import check


SHELL_PORT = 5555


# The keyed wire (src/shell/udpsh/wire.h, doc/shell.md "The keyed wire").
MAGIC = b"KPA2"


HDR, MAC = 48, 32


KIND_REQUEST, KIND_REPLY = 1, 2


F_LAST, F_STALE, F_GONE = 1, 2, 4


S_OK, S_FAILED, S_BUSY = 0, 1, 2


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
