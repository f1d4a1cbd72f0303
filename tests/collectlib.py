# SPDX-License-Identifier: BSD-2-Clause
"""tools/kprof-collect driven from a test, and what its files must say:
shared by tests/test_collect (ksim) and tests/qemu/test_collect (the x86
kernel under QEMU).  check() raises kpnet.Fail."""

import os
import re
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "report"))
from kpnet import builddir, check  # noqa: E402
from gocheck import GO, pprof  # noqa: E402

COLLECT = os.path.join(builddir(), "tools", "kprof-collect")


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
    check(sum(int(l.rsplit(" ", 1)[1]) for l in lines) == int(iv["samples"]),
          "%s: its lines hold its samples" % base)
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
