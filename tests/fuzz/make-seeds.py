#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Write the seed corpus of the fuzz targets (tests/fuzz/corpus/NAME/).

net_rx seeds are runs of frames in fuzz_net_rx.c's format: flags (1 byte),
length (2, big-endian), the frame.  fdt seeds are QEMU's virt trees
(tests/lib/fdt/, made by tests/lib/fdt/make-dtbs) and a small tree with
/memreserve/ entries, NOPs and a v16 header, which QEMU's never have.
Run from anywhere; rewrites the files.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUR_MAC = bytes.fromhex("525400123456")
GW_MAC = bytes.fromhex("52550a000202")
BCAST = b"\xff" * 6
OUR_IP = bytes([10, 0, 2, 15])
GW_IP = bytes([10, 0, 2, 2])


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def eth(dst, typ, payload):
    return dst + GW_MAC + struct.pack("!H", typ) + payload


def ipv4(proto, l4, src=GW_IP, dst=OUR_IP, frag=0):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 1, frag, 64, proto, 0, src, dst)
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return eth(OUR_MAC, 0x0800, h + l4)


def udp(sport, dport, data, src=GW_IP, dst=OUR_IP):
    u = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
    pseudo = src + dst + struct.pack("!BBH", 0, 17, len(u))
    c = csum(pseudo + u) or 0xFFFF
    return ipv4(17, u[:6] + struct.pack("!H", c) + u[8:], src, dst)


def icmp_echo(payload):
    m = struct.pack("!BBHHH", 8, 0, 0, 0x1234, 1) + payload
    return ipv4(1, m[:2] + struct.pack("!H", csum(m)) + m[4:])


def arp(op, tpa):
    a = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, op, GW_MAC, GW_IP, b"\0" * 6, tpa)
    return eth(BCAST, 0x0806, a + b"\0" * 18)


def iperf(seq, size=64):
    d = struct.pack("!iIII", seq, 1000, 500, 0)
    return d + b"\0" * (size - len(d))


def run(*frames, flags=0):
    return b"".join(struct.pack("!BH", flags, len(f)) + f for f in frames)


def write(name, files):
    d = os.path.join(HERE, "corpus", name)
    os.makedirs(d, exist_ok=True)
    for fn, data in files.items():
        with open(os.path.join(d, fn), "wb") as f:
            f.write(data)


net = {
    "arp-request": run(arp(1, OUR_IP)),
    "arp-reply": run(arp(2, OUR_IP)),
    "icmp-echo": run(icmp_echo(b"ping")),
    "udpsh-help": run(udp(4000, 5555, b"help\n"), flags=0x08),
    "udpsh-netload": run(udp(4000, 5555, b"netload send 10.0.2.2 5001 1000 1470 1M"), flags=0x08),
    "udpsh-many": run(*[udp(4000, 5555, b"ps")] * 6, flags=0x08),
    "netload-run": run(udp(4001, 5001, iperf(1)), udp(4001, 5001, iperf(3)),
                       udp(4001, 5001, iperf(2)), udp(4001, 5001, iperf(-4)),
                       udp(4001, 5001, iperf(-5))),
    "netload-report": run(udp(5001, 5002, iperf(-3, 16) + struct.pack("!I", 0x88000000) + b"\0" * 108)),
    "fragment": run(ipv4(17, b"\0" * 16, frag=0x2000)),
    "udp-other-port": run(udp(1, 9, b"discard")),
    "expire": run(arp(1, OUR_IP), udp(4000, 5555, b"uptime"), flags=0x04 | 0x08),
}
write("net_rx", net)

shell = {
    "help": b"help\n",
    "help-profile": b"help profile",
    "profile": b"profile 500 all 3\r\n",
    "netload-send": b"netload send 10.0.2.16 5001 1000 1470 10M\n",
    "netload-recv": b"netload recv 5001 3000",
    "two-lines": b"ps\nuptime\n",
    "serial-only": b"test panic\n",
    "nul": b"ps\0\n",
    "long": b"work start " + b"x" * 300 + b"\n",
    "words": b" ".join([b"w"] * 20) + b"\n",
    "edit": b"pq\x08s\x7f\x7fps\r\n",
    "empty": b"",
    "reply-mark": b"\x1ehelp\n",
}
write("shell", shell)


def fdt_blob(rsv, tokens, strings, version=17):
    """A DTB: header, memreserve entries and terminator, structure, strings."""
    off_rsv = 40
    off_struct = off_rsv + 16 * (len(rsv) + 1)
    off_strings = off_struct + len(tokens)
    total = off_strings + len(strings)
    hdr = struct.pack("!10I", 0xD00DFEED, total, off_struct, off_strings, off_rsv,
                      version, 16, 0, len(strings), len(tokens))
    rmap = b"".join(struct.pack("!QQ", a, s) for a, s in rsv) + b"\0" * 16
    return hdr + rmap + tokens + strings


def fdt_small(version=17):
    strings = b"#address-cells\0#size-cells\0compatible\0reg\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    begin = lambda name: struct.pack("!I", 1) + pad(name.encode() + b"\0")
    prop = lambda off, val: struct.pack("!III", 3, len(val), off) + pad(val)
    cells = lambda *v: struct.pack("!%dI" % len(v), *v)
    nop, end_node, end = (struct.pack("!I", t) for t in (4, 2, 9))
    tokens = (begin("") + prop(0, cells(1)) + nop + prop(15, cells(1)) +
              begin("uart@9000000") + prop(27, b"arm,pl011\0arm,primecell\0") +
              prop(38, cells(0x9000000, 0x1000)) + end_node + nop +
              begin("sub") + begin("leaf") + end_node + end_node + end_node + end)
    return fdt_blob([(0x40000000, 0x100000), (0x48000000, 0x1000)], tokens, strings,
                    version)


fdt = {"small": fdt_small(), "small-v16": fdt_small(16)}
for name in ("gicv2", "gicv3", "el2", "bootargs"):
    with open(os.path.join(HERE, "..", "fdt", "qemu-virt-%s.dtb" % name), "rb") as f:
        fdt["qemu-virt-" + name] = f.read()
write("fdt", fdt)

# cmdline seeds: what doc/boot.md and the tests pass, every key once.
cmdline = {
    "empty": b"",
    "cmd-quoted": b'cmd="work start split; profile 2000 all 3;poweroff" cpus=4',
    "net": b"ip=10.0.2.15/24 gw=10.0.2.2 udpsh=5555 udpsh.allow=10.0.2.0/24,127.0.0.1",
    "key": b"udpsh.key=000102030405060708090a0b0c0d0e0f profile.source=tick",
    "malformed": b'foo=1 =x cmd="unterminated udpsh.key=" cpus= ip=1.2.3.4/33 "x',
}
write("cmdline", cmdline)

# folded seeds: kprof-report's test inputs and the error cases its reader
# names, the address view's, and replies as kshell -o reads them.  The
# first byte chooses strip_pid (bit 0) and the address view's header in
# front of the rest (bit 1); the rest is the file.
REPORT = os.path.join(HERE, "..", "report")
folded = {}
for fn in sorted(os.listdir(REPORT)):
    if fn.endswith(".folded"):
        with open(os.path.join(REPORT, fn), "rb") as f:
            folded[fn[:-len(".folded")]] = b"\x01" + f.read()
folded.update({
    "block": b"\x00# kprof folded begin\n# source=pmu/signal perf cycles hz=1000\n"
             b"# window_ms: 2000\n# cpus 4\n1-init;main;work 3\n2-sh;loop 1\n"
             b"# kprof folded end lines=2 samples=4\n",
    "bad-end": b"\x00# kprof folded begin\na;b 1\n# kprof folded end lines=2 samples=1\n",
    "bad-header": b"\x00# kprof folded begin\n# hz=fast\na 1\n# kprof folded end lines=1 samples=1\n",
    "bad-line": b"\x01a;;b 1\nc d\n",
    "nul": b"\x00a;b 1\nc\x00;d 2\n",
    # The header with the body: values at and past each key's range, keys
    # the reader does not know, and counts as flamegraph.pl writes them.
    "hz-huge": b"\x00# kprof folded begin\n# hz=1000000000000\na;b 3\n"
               b"# kprof folded end lines=1 samples=3\n",
    "hz-zero": b"\x00# kprof folded begin\n# source=tick hz=0 cpus=0\na 1\n"
               b"# kprof folded end lines=1 samples=1\n",
    "hz-max": b"\x00# kprof folded begin\n# hz: 1000000000\n# window_ms 9223372036854\n"
              b"# cpus=1 samples=9223372036854775807 dropped=0 depth=8 other=0\n"
              b"1-init;main 9223372036854775807\n"
              b"# kprof folded end lines=1 samples=9223372036854775807\n",
    "unknown-keys": b"\x00# kprof folded begin\n# future=x hz=100 pid=3\n"
                    b"# newkey: -1\n3-sh;loop;[truncated];f 2\n"
                    b"# kprof folded end lines=1 samples=2\n",
    "eco-counts": b"\x01a;b\t3\na;c 0.5\na;c  1.25 \nd 10000000000000000\n"
                  b"e 3.\nf 0.0000001\n",
    "fraction-block": b"\x00# kprof folded begin\n# hz=99\na 1.5\nb 2\n"
                      b"# kprof folded end lines=2 samples=3.5\n",
})
# The address view, after its header (bit 1): frames, weights, CPUs.
folded.update({
    "addr-view": b"\x02# build_id=0123abcd\n# busy_ns=2000000\n"
                 b"5-split/1;0x41c4c2;0x41c34b;0x41c27b 3 2988835\n"
                 b"5-split/1;[truncated];0x40b80a;[host] 1 1099937\n"
                 b"other 2 2000000\n# kprof folded end lines=3 samples=6\n",
    "addr-cpus": b"\x02# root=cpu\n# build_id=0123abcd\n# busy_ns=2000000\n"
                 b"# cpu_busy_ns=0:1500000 3:500000\n"
                 b"cpu0;5-split/1;0x41c4c2;0x41c34b;0x41c27b 3 2988835\n"
                 b"cpu3;5-split/1;0x41c4c2;0x41c34b;0x41c27b 1 1099937\n"
                 b"cpu3;other 2 2000000\n# kprof folded end lines=3 samples=6\n",
    "addr-small": b"\x02# hz=1000\n1-a;0x10 1 5\n# kprof folded end lines=1 samples=1\n",
    "addr-no-weight": b"\x02# window_ms=2\n1-a;0x10 1\n"
                      b"# kprof folded end lines=1 samples=1\n",
    "addr-bad-frame": b"\x02# window_ms=2\n1-a;zzz 1 5\n"
                      b"# kprof folded end lines=1 samples=1\n",
})
# Replies as kshell -o reads them: shell text around the block, a
# `profile rotate` interval's keys, a reply whose first datagram was
# lost, one whose lost datagram joined two lines.
folded.update({
    "reply-rotate": b"\x00profile: interval 3\n# kprof folded begin\n# seq=3\n"
                    b"# start_ns=1000\n# end_ns=2001000\n# build_id=00ff\n"
                    b"# source=tick\n# hz=1000\n3-split/0;main;leaf 7\n"
                    b"# kprof folded end lines=1 samples=7\n$ ",
    "reply-no-begin": b"\x00a;b 3\n# kprof folded end lines=2 samples=4\n",
    "reply-joined": b"\x00# kprof folded begin\n1-a;b;c 1ne;z 7\n"
                    b"# kprof folded end lines=1 samples=7\n",
})
write("folded", folded)


# udpsh_client: deliveries as fuzz_udpsh_client.c reads them: delay (16 ms
# steps), how (0 part, 1 last, 2 stale, 3 gone; 4 boot B, 8 the request
# before, 0x10 MAC broken, 0x20-0x60 status, 0x80 garbage), the number, the
# payload's length and the payload.  Each starts with the stale answer that
# hands out the ticket.
def dg(how, num=0, payload=b"", delay=0):
    return struct.pack("!BBHB", delay, how, num, len(payload)) + payload


TICKET = dg(2)
udpsh_client = {
    "whole": TICKET + dg(0, 0, b"a\n") + dg(0, 1, b"b\n") + dg(1, 2, b"> "),
    "hole": TICKET + dg(0, 5, b"f") + dg(1, 1, b"b"),
    "above-last": TICKET + dg(1, 1, b"b") + dg(0, 3, b"d") + dg(0, 0, b"a"),
    "two-lasts": TICKET + dg(1, 2, b"c") + dg(0, 0, b"a") + dg(1, 1, b"b"),
    "stale-midway": TICKET + dg(0, 0, b"A0") + dg(2 | 4, delay=30) + dg(4, 0, b"B0") +
    dg(1 | 4, 1, b"B1"),
    "drip": TICKET + b"".join(dg(0, i, b"x", delay=56) for i in range(12)),
    "mixed": TICKET + dg(0, 1, b"b") + dg(8, 0, b"old") + dg(0x10, 0, b"forged") +
    dg(0x80, 0, b"short") + dg(0, 0, b"a") + dg(0, 0, b"a") + dg(1, 2, b"c"),
    "gone": TICKET + dg(0, 0, b"a") + dg(3),
    "busy": TICKET + dg(1 | 0x40, 0),
    "failed": TICKET + dg(1 | 0x20, 0, b"bad\n> "),
    "two-boots": TICKET + dg(0, 0, b"a") + dg(1 | 4, 1, b"b"),
    "silent-after-ticket": TICKET,
}
write("udpsh_client", udpsh_client)
