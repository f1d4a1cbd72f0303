# SPDX-License-Identifier: BSD-2-Clause
"""Shared by the kprof-report tests: where the program and the fixtures
are, how to run it, and a reference reader of folded files written
independently of tools/report/folded.c, so the tests compare the
program's output with what the input says, not with itself."""

import itertools
import os
import random
import re
import subprocess
import sys

# The fixtures are data beside the report tests, not in the package.
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "report")


def kprof_report():
    path = os.path.join(os.path.abspath(os.environ.get("KPROF_BUILDDIR", ".")), "tools",
                        "kprof-report")
    if not os.access(path, os.X_OK):
        sys.exit("FAIL: %s not built" % path)
    return path


# The line kprof-report writes on stderr for a sampled profile without
# weights (# weight=ns): its times are nominal, count x period.
NOMINAL = b"times are nominal, count x period"


def run(args, cwd=None, stdin=None, timeout=60, raw=False):
    """kprof-report @args.  Unless @raw, the one nominal-times line is
    taken off stderr into r.nominal (how many there were), so the checks
    of what else it said stay as they were; test_report_weights checks
    that line itself."""
    r = subprocess.run([kprof_report()] + args, cwd=cwd, input=stdin,
                       capture_output=True, timeout=timeout)
    if not raw:
        lines = r.stderr.splitlines(keepends=True)
        kept = [ln for ln in lines if NOMINAL not in ln]
        r.nominal = len(lines) - len(kept)
        r.stderr = b"".join(kept)
    return r


def check(cond, what):
    """One line per check, so a failing test says which."""
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)
    print("ok: " + what)


class Folded:
    """stacks: {(frame, ...): count} root first; meta: header keys."""

    def __init__(self, stacks, meta):
        self.stacks = stacks
        self.meta = meta
        self.total = sum(stacks.values())
        self._paths = {}

    def self_counts(self):
        c = {}
        for st, n in self.stacks.items():
            c[st[-1]] = c.get(st[-1], 0) + n
        return c

    def total_counts(self):
        c = {}
        for st, n in self.stacks.items():
            for f in set(st):
                c[f] = c.get(f, 0) + n
        return c

    def paths(self, root="all"):
        """{(root, frame, ...): samples} for every prefix: the flame graph.
        Built once per root (50,000 deep stacks take seconds) and shared:
        callers read it, never change it."""
        if root in self._paths:
            return self._paths[root]
        p = {}
        for st, n in self.stacks.items():
            for i in range(len(st) + 1):
                key = (root,) + st[:i]
                p[key] = p.get(key, 0) + n
        self._paths[root] = p
        return p

    def top(self):
        """The hottest function by self samples and its share in %."""
        sc = self.self_counts()
        name = sorted(sc, key=lambda f: (-sc[f], f))[0]
        return name, 100.0 * sc[name] / self.total

    def tied_top(self):
        """Every function with the most self samples."""
        sc = self.self_counts()
        most = max(sc.values())
        return {f for f, n in sc.items() if n == most}


HEADER = re.compile(r"^#\s*([a-z_]+)(?::\s*|=|\s+)(.*)$")


def read_folded(path, strip_pid=False):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if "# kprof folded begin" in lines:
        b = lines.index("# kprof folded begin")
        e = next(i for i in range(b, len(lines))
                 if lines[i].startswith("# kprof folded end"))
        lines = lines[b + 1:e]
    stacks, meta = {}, {}
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("#"):
            # One key per line in the fixtures, or key=value pairs.
            pairs = re.findall(r"([a-z_]+)=(\S+(?: [^=\s]+(?= |$))*)", line)
            m = HEADER.match(line)
            if pairs and "=" in line.split()[1]:
                meta.update(pairs)
            elif m:
                meta[m.group(1)] = m.group(2).strip()
            continue
        stack, count = line.rsplit(" ", 1)
        frames = stack.split(";")
        if strip_pid:
            frames[0] = re.sub(r"^[0-9]+-(?=.)", "", frames[0])
        key = tuple(frames)
        if int(count):
            stacks[key] = stacks.get(key, 0) + int(count)
    return Folded(stacks, meta)


def zipf_folded(path, nstacks, seed):
    """@nstacks distinct stacks, seeded, as sampling a program makes them:
    each function calls a few others (2-12, fixed once drawn); a stack
    walks that call graph from one of 8 tasks, choosing each callee
    Zipf-weighted (the k-th with weight 1/k^1.2), to a depth of 1-48
    (mixed).  A stack's count is what 10^7 samples would give it, its
    probability under that walk, at least 1: hot paths share their
    callers, and most deep stacks are a long tail of ones, not equal
    weights.  Writes bare folded lines; returns the Folded."""
    rnd = random.Random(seed)
    names = ["fn_%04d" % i for i in range(3000)]
    callees = {}
    weights = [1.0 / (k + 1) ** 1.2 for k in range(12)]
    # Per number of callees, the running sums random.choices() would
    # make of the weights at every call (the same draws, made once).
    cum = {n: list(itertools.accumulate(weights[:n])) for n in range(2, 13)}
    wsum = {n: sum(weights[:n]) for n in range(2, 13)}
    tasks = ["%d-task%d" % (i + 1, i) for i in range(8)]
    stacks = {}
    while len(stacks) < nstacks:
        f = rnd.choice(tasks)
        st, prob = [f], 1.0 / len(tasks) / 48
        for _ in range(rnd.randint(1, 48)):
            if f not in callees:
                callees[f] = rnd.sample(names, rnd.randint(2, 12))
            kids = callees[f]
            k = rnd.choices(range(len(kids)), cum_weights=cum[len(kids)])[0]
            prob *= weights[k] / wsum[len(kids)]
            f = kids[k]
            st.append(f)
        stacks[tuple(st)] = max(1, int(1e7 * prob))
    with open(path, "w") as f:
        for st, n in stacks.items():
            f.write("%s %d\n" % (";".join(st), n))
    return Folded(stacks, {})
