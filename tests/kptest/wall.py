# SPDX-License-Identifier: BSD-2-Clause
"""Wall-clock profiles (`profile ... wall`) on a QEMU kernel, for the
x86 and arm64 suites: the folded view's lines, and `sleepy`'s paths
against the truth its `work stop` prints.

The session encloses the workload's whole life (profile start, work
start, work stop, profile stop), so the truth (every call of each path,
from start to stop) and the profile (every nanosecond of the sleepy
tasks, from their birth to their exit) measure the same time: nothing a
loaded host does to the guest between commands can move one and not the
other.  The wall profile is exact from the scheduler; only the tasks'
running time is split over chains by samples, and nearly all of it is
sleepy_compute's."""

import re
import time

from kptest.runner import check

FOLDED = re.compile(r"^(\d+)-(\S+?);\[(cpu|runnable|blocked)\];(.*) (\d+)$", re.M)
SLEEPY_PATHS = ("sleepy_compute", "sleepy_nap_a", "sleepy_nap_b", "sleepy_wait_peer")
SLEEPY_TRUTH = re.compile(r"^sleepy truth: " +
                          " ".join(rf"{p} (\d+\.\d)%" for p in SLEEPY_PATHS) +
                          r" of (\d+) ms$", re.M)
PIDS = re.compile(r"\bpids? ((?:\d+ ?)+)")
TOLERANCE = 3.0


def folded_lines(out):
    """(pid, task, state, frames, us) of each line of a wall folded view."""
    return [(int(m.group(1)), m.group(2), m.group(3), m.group(4).split(";"),
             int(m.group(5))) for m in FOLDED.finditer(out)]


def folded_window_ms(out):
    m = re.search(r"^# window_ms=(\d+)$", out, re.M)
    check(m, f"no window in the folded view:\n{out}")
    return int(m.group(1))


def sleepy_shares(k, tasks, seconds):
    """`work start sleepy @tasks` inside a wall session for @seconds of
    the host's time; returns (profile shares, truth shares, truth ms), each
    share a percent of the four paths' time."""
    out = k.command("profile start all wall")
    check(out.startswith("profile: started"), f"profile start all wall: {out!r}")
    out = k.command(f"work start sleepy {tasks}")
    m = PIDS.search(out)
    check(m, f"work start sleepy named no pids: {out!r}")
    pids = {int(p) for p in m.group(1).split()}
    check(len(pids) == tasks, f"work start sleepy {tasks}: {out!r}")
    time.sleep(seconds)
    stop = k.command("work stop", timeout=120)
    m = SLEEPY_TRUTH.search(stop)
    check(m, f"work stop printed no sleepy truth: {stop!r}")
    truth = [float(m.group(i + 1)) for i in range(len(SLEEPY_PATHS))]
    truth_ms = int(m.group(len(SLEEPY_PATHS) + 1))
    out = k.command("profile stop", timeout=120)
    check("profile: stopped" in out, f"profile stop: {out!r}")
    folded = k.command("profile show folded", timeout=120)
    check("# unit=us" in folded, f"not a wall folded view:\n{folded}")
    got = [0] * len(SLEEPY_PATHS)
    for pid, _, _, frames, us in folded_lines(folded):
        if pid not in pids:
            continue
        for i, path in enumerate(SLEEPY_PATHS):
            if path in frames:
                got[i] += us
    total = sum(got)
    check(total > 0, f"no time of the sleepy tasks {sorted(pids)}:\n{folded}")
    return [100.0 * g / total for g in got], truth, truth_ms


def check_sleepy_matches_truth(k, tasks=2, seconds=6.0):
    got, truth, truth_ms = sleepy_shares(k, tasks, seconds)
    for path, g, t in zip(SLEEPY_PATHS, got, truth):
        print(f"  {path}: profile {g:.1f}%, truth {t:.1f}% (of {truth_ms} ms)")
    for path, g, t in zip(SLEEPY_PATHS, got, truth):
        check(abs(g - t) <= TOLERANCE,
              f"{path}: profile {g:.1f}%, truth {t:.1f}% (tolerance {TOLERANCE} points)")
