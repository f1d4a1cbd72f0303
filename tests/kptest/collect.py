# SPDX-License-Identifier: BSD-2-Clause
"""tools/kprof-collect driven from a test, and what its files must say:
shared by tests/test_collect (ksim) and tests/qemu/test_collect (the x86
kernel under QEMU).  check() raises kptest.common.Fail."""

import gzip
import os
import re
import signal
import socket
import subprocess
import threading
import time

from kptest.common import builddir, check
from kptest.gocheck import GO, pprof
from kptest.pbcheck import fields, ints, signed
from kptest.udpsh import F_LAST, F_STALE, reply_frame, request_fields

COLLECT = os.path.join(builddir(), "tools", "kprof-collect")
# The boot nonce of a target played by FakeTarget.
FAKE_NONCE = 0x0badc0de5eed0001


def collect(d, target, interval, seconds, during=None):
    """kprof-collect on one target for @seconds, then SIGTERM; @during()
    runs meanwhile.  Returns its stdout."""
    with open(os.path.join(d, "targets"), "w") as f:
        f.write("# one target\n%s\n" % target)
    p = subprocess.Popen([COLLECT, "--targets", os.path.join(d, "targets"),
                          "--out", os.path.join(d, "out"), "--interval", interval,
                          "--timeout", "5"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        if during:
            during()
        else:
            time.sleep(seconds)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    check(p.returncode == 0, "kprof-collect exits 0 after SIGTERM (got %d: %s)" %
          (p.returncode, err.decode(errors="replace")[-800:]))
    return out.decode()



def read_index(d, name="box"):
    rows = []
    with open(os.path.join(d, "out", name, "index")) as f:
        for line in f:
            kind, rest = line.split(" ", 1)
            rows.append((kind, dict(re.findall(r"(\w+)=(\S+)", rest))))
    return rows



def check_files(d, iv, name="box"):
    """The interval's files: the folded block's counts are its index line's."""
    base = iv["file"][:-len(".pb.gz")]
    folded = open(os.path.join(d, "out", name, base + ".folded")).read()
    check(os.path.getsize(os.path.join(d, "out", name, iv["file"])) > 0, iv["file"])
    seq = re.search(r"^# seq=(\d+)$", folded, re.M)
    samples = re.search(r"^# samples=(\d+)$", folded, re.M)
    end = re.search(r"^# kprof folded end lines=(\d+) samples=(\d+)$", folded, re.M)
    check(seq and seq.group(1) == iv["seq"], "%s: seq %s" % (base, iv["seq"]))
    check(samples and end and samples.group(1) == iv["samples"] == end.group(2),
          "%s: samples %s in its header, end line and index" % (base, iv["samples"]))
    lines = [l for l in folded.splitlines() if l and not l.startswith("#")]
    # The collector asks for the by-name view with its weights: each
    # line's count, then its ns; the pprof's cpu time is the weights.
    weighed = re.search(r"^# weight=ns$", folded, re.M) is not None
    cols = [l.rsplit(" ", 2 if weighed else 1) for l in lines]
    check(sum(int(c[1]) for c in cols) == int(iv["samples"]),
          "%s: its lines hold its samples" % base)
    if weighed:
        with open(os.path.join(d, "out", name, iv["file"]), "rb") as fh:
            p = fields(gzip.decompress(fh.read()))
        cpu = sum(signed(ints(fields(b), 2)[1]) for b in p.get(2, []))
        check(cpu == sum(int(c[2]) for c in cols),
              "%s: its pprof's cpu time is the weights, %d ns" % (base, cpu))
    check(int(iv["duration_nanos"]) > 0 and int(iv["err_ns"]) >= 0, base)



def check_gopprof(d, ivs, name="box"):
    if not GO:
        print("note: go not found (Debian golang-go): the files are not read by go tool pprof")
        return
    for iv in ivs:
        raw = pprof(["-raw", os.path.join(d, "out", name, iv["file"])], d)
        t = int(iv["time_nanos"])
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t // 10**9))
        check("Time: " + stamp in raw, "%s: pprof's time is %s" % (iv["file"], stamp))
        check(re.search(r"^Duration: ", raw, re.M), iv["file"] + ": a duration")
        check("target:[box]" in raw, iv["file"] + ": the target label")
        check(re.search(r"build_id:\[[0-9a-f]+\]", raw), iv["file"] + ": the build_id label")



def one_session(rows):
    ivs = [r for k, r in rows if k == "interval"]
    stops = [r for k, r in rows if k == "stopped"]
    check(len(stops) == 1, "one stopped line (got %d)" % len(stops))
    return ivs, stops[0]


def check_whole_session(d, out, min_intervals):
    """One session collected start to stop without a loss: its intervals
    numbered 1..N, their samples the session's, none dropped, every file
    whole and read by go tool pprof, a status line per round.  Returns
    the intervals' index rows."""
    rows = read_index(d)
    ivs, stop = one_session(rows)
    check(not [r for kind, r in rows if kind == "gap"], "no gap")
    seqs = [int(r["seq"]) for r in ivs]
    check(seqs == list(range(1, len(seqs) + 1)) and len(seqs) >= min_intervals,
          "sequence numbers 1..N without a gap (got %s)" % seqs)
    check(int(stop["last_seq"]) == seqs[-1], "the stop's last interval is the last taken")
    total = sum(int(r["samples"]) for r in ivs)
    check(total == int(stop["samples"]) and total > 0,
          "the intervals' samples add up to the session's (%d, stop said %s)" %
          (total, stop["samples"]))
    check(stop["dropped"] == "0" and all(r["dropped"] == "0" for r in ivs), "dropped 0")
    for iv in ivs:
        check_files(d, iv)
    check_gopprof(d, ivs)
    check(len(re.findall(r"^kprof-collect: .* round \d+", out, re.M)) >= min_intervals,
          "a status line per round")
    print("ok: one session: %d intervals, %d samples" % (len(ivs), total))
    return ivs


# --- a target played here ------------------------------------------------

def body(lines):
    """A folded block's stack lines, @lines (text, count), and the end
    line that sums them: (text, samples)."""
    total = sum(c for _, c in lines)
    text = "".join("%s %d\n" % (t, c) for t, c in lines)
    return (text + "# kprof folded end lines=%d samples=%d\n> " % (len(lines), total)).encode(), total


def block(seq, lines, hz=100, cpus=1, window_ms=1000, made=None):
    """A folded block as `profile rotate` prints it: its header, then
    body(@lines) (or @made, one made before)."""
    start = seq * 10**9
    text, total = made or body(lines)
    head = ["# kprof folded begin", "# seq=%d" % seq, "# start_ns=%d" % start,
            "# end_ns=%d" % (start + window_ms * 10**6), "# source=hostile",
            "# hz=%d" % hz, "# cpus=%d" % cpus, "# window_ms=%d" % window_ms,
            "# samples=%d" % total, "# dropped=0"]
    return ("\n".join(head) + "\n").encode() + text


def cut(payload, size):
    return [payload[i:i + size] for i in range(0, len(payload), size)] or [b""]


class FakeTarget:
    """A keyed UDP shell played by a thread (doc/shell.md, "The keyed
    wire"): the ticket round as the kernel plays it, each request with a
    new ticket answered once by answer(cmd, rid) -- a list of datagrams,
    or "drip" -- and its resends with the same datagrams."""

    def __init__(self, key):
        self.key = key
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.issued, self.kept, self.tried = 0, {}, []
        self.stop = False
        self.drip_s = 0.8
        # The longest wait between two parts of a drip, as sent here.
        self.drip_gap_s = 0.0
        self.lock = threading.Lock()
        self.t = threading.Thread(target=self.loop, daemon=True)
        self.t.start()

    def send(self, d, peer):
        with self.lock:
            self.sock.sendto(d, peer)

    def frame(self, rid, flags, num, payload):
        return reply_frame(self.key, rid, FAKE_NONCE, flags, 0, num, payload)

    def parts(self, rid, payload, size=1400, pieces=None):
        p = pieces or cut(payload, size)
        return [self.frame(rid, F_LAST if i == len(p) - 1 else 0, i, d) for i, d in enumerate(p)]

    def drip(self, rid, peer):
        """One new empty part, never the last, every drip_s until closed."""
        num, sent = 0, None
        while not self.stop and num < 60000:
            self.send(self.frame(rid, 0, num, b""), peer)
            now = time.monotonic()
            if sent is not None:
                self.drip_gap_s = max(self.drip_gap_s, now - sent)
            num, sent = num + 1, now
            time.sleep(self.drip_s)

    def answer(self, cmd, rid):
        raise NotImplementedError

    def keyed(self, data, peer):
        f = request_fields(self.key, data)
        if not f:
            return
        nonce, ticket, rid, cmd = f
        if nonce != FAKE_NONCE or not 0 < ticket <= self.issued:
            self.issued += 1
            self.send(reply_frame(self.key, rid, FAKE_NONCE, F_STALE | F_LAST, 0, 0, b"",
                                  self.issued), peer)
            return
        if ticket not in self.kept:
            self.kept[ticket] = self.answer(cmd, rid)
        out = self.kept[ticket]
        if out == "drip":
            # One drip per request; a resend of it gets nothing more.
            self.kept[ticket] = []
            threading.Thread(target=self.drip, args=(rid, peer), daemon=True).start()
            return
        # Paced, so that the client's socket buffer does not overflow.
        for d in out:
            self.send(d, peer)
            if len(out) > 16:
                time.sleep(0.0005)

    def loop(self):
        while not self.stop:
            try:
                data, peer = self.sock.recvfrom(65536)
            except socket.timeout:
                continue
            self.keyed(data, peer)

    def close(self):
        self.stop = True
        self.t.join()
        self.sock.close()
