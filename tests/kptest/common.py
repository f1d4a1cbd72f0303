# SPDX-License-Identifier: BSD-2-Clause
"""What every test script shares: a failed check (Fail; HarnessError in
the QEMU tests), the build folder (KPROF_BUILDDIR), and free UDP ports
on 127.0.0.1 for children."""

import os
import random
import socket


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


class HarnessError(Exception):
    """A step did not happen in time, or the output was not what it must be."""
