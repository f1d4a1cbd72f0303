# SPDX-License-Identifier: BSD-2-Clause
"""go tool pprof (Debian golang-go) reading kprof-report's output:
its -top and -traces against the folded input; shared by
test_report_gopprof and test_report_ksim."""

import os
import re
import shutil
import subprocess

from kptest.report import check

GO = shutil.which("go")


def pprof(args, d):
    """Runs go tool pprof; @d holds its state."""
    # pprof keeps state under $HOME; nothing here may touch the network
    # (-symbolize=none: the names are already in the profile).
    env = dict(os.environ, HOME=d, PPROF_TMPDIR=d)
    r = subprocess.run([GO, "tool", "pprof", "-symbolize=none"] + args,
                       capture_output=True, env=env, timeout=300)
    check(r.returncode == 0, "go tool pprof %s: exit 0 (%s)" %
          (" ".join(args[:1]), r.stderr.decode(errors="replace").strip()))
    return r.stdout.decode()


def duration_ns(s):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s|mins|hrs)", s)
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "mins": 60e9,
             "hrs": 3600e9}[m.group(2)]
    return round(float(m.group(1)) * scale)


def duration_half_unit_ns(s):
    """Half the last printed digit of pprof's duration @s: what its
    rounding may hide ("1.67s" stands for 1.665-1.675 s)."""
    m = re.fullmatch(r"[0-9]+(?:\.([0-9]+))?(ns|us|ms|s|mins|hrs)", s)
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "mins": 60e9,
             "hrs": 3600e9}[m.group(2)]
    return round(0.5 * scale / 10 ** len(m.group(1) or ""))


def top(out, folded, name):
    rows = [line.split() for line in out.splitlines()]
    head = next(i for i, r in enumerate(rows) if r[:2] == ["flat", "flat%"])
    first = rows[head + 1]
    want, share = folded.top()
    # Functions tied for the most self samples may come in either order
    # (a short or starved session ties more often); pprof prints the
    # share rounded to two places.
    tied = folded.tied_top()
    check(first[5] in tied and abs(float(first[1].rstrip("%")) - share)
          <= 0.005 + 1e-9, "%s: pprof -top's first row is %s at %.2f%% (%s)" %
          (name, " or ".join(sorted(tied)), share, " ".join(first)))


def traces(out, folded, period, name):
    got = {}
    for block in out.split("-----------+")[1:]:
        lines = [line for line in block.splitlines()[1:] if line.strip()]
        labels, frames, value = {}, [], None
        for line in lines:
            m = re.match(r"^\s+(\w+):\s+(.*)$", line)
            if m and value is None:
                labels[m.group(1)] = m.group(2).strip()
                continue
            parts = line.split()
            if value is None:
                value, parts = duration_ns(parts[0]), parts[1:]
            frames += parts
        stack = tuple(reversed(frames))
        if stack:
            # The task is the sample's label, not its root frame.
            task = labels.get("task")
            if task is None or task in stack:
                check(False, "%s: the trace of %s has task label %r" %
                      (name, ";".join(stack), labels))
            got[(task,) + stack] = got.get((task,) + stack, 0) + value
    check(got == {s: n * period for s, n in folded.stacks.items()},
          "%s: pprof -traces shows every stack, leaf first, its task "
          "label and its cpu time" % name)
