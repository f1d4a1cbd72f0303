# SPDX-License-Identifier: BSD-2-Clause
"""A protobuf decoder for pprof's profile.proto (gzip, varints,
length-delimited and packed fields), and the checks of a decoded
profile against its folded input; shared by test_report_pprof and
test_report_ksim."""

import gzip

import os

from kptest.report import check, run


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def fields(b):
    """{field number: [values]}: ints for varints, bytes otherwise."""
    out, i = {}, 0
    while i < len(b):
        key, i = varint(b, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wire == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif wire == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        else:
            raise ValueError("wire type %d" % wire)
        out.setdefault(num, []).append(v)
    return out


def ints(f, num):
    """A repeated integer field, packed (bytes) or not."""
    vals = []
    for v in f.get(num, []):
        if isinstance(v, bytes):
            i = 0
            while i < len(v):
                x, i = varint(v, i)
                vals.append(x)
        else:
            vals.append(v)
    return vals


def one(f, num, default=0):
    v = f.get(num, [default])
    return v[-1]


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def decode(path):
    with open(path, "rb") as fh:
        raw = fh.read()
    check(raw[:2] == b"\x1f\x8b", "%s is gzip" % path)
    p = fields(gzip.decompress(raw))
    st = [s.decode() for s in p.get(6, [])]
    vt = lambda b: (st[one(fields(b), 1)], st[one(fields(b), 2)])  # noqa
    prof = {
        "strings": st,
        "sample_type": [vt(b) for b in p.get(1, [])],
        "period_type": vt(p[11][0]) if 11 in p else None,
        "period": one(p, 12),
        "duration": one(p, 10),
        "comments": [st[i] for i in ints(p, 13)],
    }
    maps = {one(fields(b), 1): fields(b) for b in p.get(3, [])}
    funcs = {}
    for b in p.get(5, []):
        f = fields(b)
        funcs[one(f, 1)] = st[one(f, 2)]
    locs = {}
    for b in p.get(4, []):
        f = fields(b)
        lines = [fields(x) for x in f.get(4, [])]
        if not (len(lines) == 1 and one(lines[0], 1) in funcs and
                one(f, 2) in maps):
            check(False, "location %d: one line, a known function and "
                  "mapping" % one(f, 1))
        locs[one(f, 1)] = funcs[one(lines[0], 1)]
    ids = list(maps) + list(funcs) + list(locs)
    check(0 not in ids and len(set(funcs)) == len(p.get(5, [])) and
          len(set(locs)) == len(p.get(4, [])) and
          len(set(maps)) == len(p.get(3, [])),
          "%s: every mapping, function and location id non-zero and unique"
          % path)
    check(all(one(m, 7) == 1 for m in maps.values()),
          "%s: the mapping says its functions are resolved" % path)
    samples = []
    for b in p.get(2, []):
        f = fields(b)
        labels = {}
        for lb in f.get(3, []):
            lf = fields(lb)
            key = st[one(lf, 1)]
            labels[key] = st[one(lf, 2)] if one(lf, 2) else \
                signed(one(lf, 3))
        samples.append(([locs[i] for i in ints(f, 1)],
                        [signed(v) for v in ints(f, 2)], labels))
    prof["samples"] = samples
    return prof


def convert(src, d, extra=()):
    out = os.path.join(d, os.path.basename(src) + ".pb.gz")
    r = run(["pprof", src, "-o", out] + list(extra))
    # A profile by name exports as it always did, with one line on
    # stderr: pprof's lines need the address view.
    err = r.stderr.decode(errors="replace").splitlines()
    check(r.returncode == 0 and r.stdout == b"" and len(err) == 1 and
          err[0].startswith("kprof-report: note: ") and
          "address view" in err[0],
          "pprof %s: exit 0, the one note that lines need the address view"
          % os.path.basename(src))
    return decode(out)


def is_task(frame):
    """A folded root frame that is a task: PID-NAME."""
    pid, _, task = frame.partition("-")
    return pid.isdigit() and task != ""


def against(prof, folded, hz, window_ms, name):
    period = 10**9 // hz
    check(prof["strings"][0] == "", name + ": string_table[0] is \"\"")
    check(prof["sample_type"] == [("samples", "count"),
                                  ("cpu", "nanoseconds")],
          name + ": sample_type samples/count, cpu/nanoseconds")
    check(prof["period_type"] == ("cpu", "nanoseconds") and
          prof["period"] == period,
          name + ": period_type cpu/nanoseconds, period %d ns" % period)
    check(prof["duration"] == (window_ms or 0) * 10**6,
          name + ": duration_nanos %d" % prof["duration"])
    got = {}
    for locs, values, labels in prof["samples"]:
        stack = tuple(reversed(locs))       # location_id[0] is the leaf
        if not (len(values) == 2 and values[1] == values[0] * period):
            check(False, name + ": a sample's values are count, "
                  "count x period (%r)" % values)
        # The task is a label, never a frame: pprof's UI would shorten a
        # root frame `8-split/0` to `0`, which reads as a CPU.
        if any(is_task(f) for f in stack):
            check(False, "%s: a task as a frame in %r" % (name, stack))
        task = labels.get("task")
        if task is not None:
            want = {"task": task, "pid": int(task.split("-", 1)[0])}
            if not is_task(task) or labels != want:
                check(False, "%s: sample of %s labelled %r" %
                      (name, ";".join(stack), labels))
            stack = (task,) + stack
        elif labels:
            check(False, "%s: no task labels on %s" % (name, stack[0]))
        got[stack] = got.get(stack, 0) + values[0]
    check(got == folded.stacks,
          name + ": samples are the input's stacks, leaf first, counts "
          "equal, the root's task a label only")
    leaf = {}
    for locs, values, _ in prof["samples"]:
        leaf[locs[0]] = leaf.get(locs[0], 0) + values[1]
    total = sum(leaf.values())
    top = sorted(leaf, key=lambda f: (-leaf[f], f))[0]
    want_top, want_share = folded.top()
    check(top == want_top and
          abs(100.0 * leaf[top] / total - want_share) < 1e-9,
          name + ": top function %s at %.2f%% of cpu, as in the input" %
          (top, want_share))


