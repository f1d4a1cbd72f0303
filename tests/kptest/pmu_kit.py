# SPDX-License-Identifier: BSD-2-Clause
"""What the hardware kit scripts (tests/hw/kvm-pmu, tests/hw/pc-pmu)
read from the kernel's shell, and what each check decides.  Parsers
return None for text that is not what the kernel prints, so a dry run
against a QEMU-booted kernel (no counter under TCG) still proves every
parser finds its fields; the verdicts then say what real hardware would
have to show."""

import re

LSCPU_CLAIMS = re.compile(r"^pmu claims: (.+)$", re.M)
LSCPU_COUNTS = re.compile(r"^pmu counts: (yes|no)(?: \((.+)\))?$", re.M)
LSCPU_SOURCE = re.compile(r"^profile source: (\S+(?: [^,\n]+)?)(?:, (\d+) samples/s per cpu)?$", re.M)
LSCPU_CPU = re.compile(r"^cpu (\d+): (.+)$", re.M)
LSCPU_NMIS = re.compile(r"^nmis: (\d+) unknown", re.M)
LSCPU_CPUS = re.compile(r"^cpus: (\d+)$", re.M)
HEADER = re.compile(r"^(\d+) samples on (\d+) cpus?, (\d+) dropped(?: \(all tasks\))?, "
                    r"source (.+)$", re.M)
SHOW_CPU = re.compile(r"^cpu (\d+): (\d+) samples ", re.M)
STAT_ROW = re.compile(r"^(\d+|all)\s+(not counted|\d+)\s+(not counted|\d+)\s+(?:\d+\s+)?"
                      r"(-|[\d.]+)\s+([\d.]+)%$", re.M)
STARTED = re.compile(r"^profile: started ", re.M)
STOPPED = re.compile(r"^profile: stopped after (\d+) ms, (\d+) samples, (\d+) dropped", re.M)
FOLDED_LINE = re.compile(r"^(\S.*) (\d+)$")

# A plausible IPC for kernel code on a real core: below 0.05 or above
# 8 something counts the wrong event, or one counter stopped.
IPC_MIN, IPC_MAX = 0.05, 8.0
IRQSOFF_SHARE_MIN = 0.60


def lscpu(text):
    """{claims, counts, why, source, rate, cpus: {n: verdict}, unknown_nmis}
    or None when the text is not lscpu's."""
    claims, counts, source = (LSCPU_CLAIMS.search(text), LSCPU_COUNTS.search(text),
                              LSCPU_SOURCE.search(text))
    ncpu = LSCPU_CPUS.search(text)
    if not (claims and counts and source and ncpu):
        return None
    nmis = LSCPU_NMIS.search(text)
    return {"claims": claims.group(1), "counts": counts.group(1) == "yes",
            "why": counts.group(2), "source": source.group(1),
            "rate": int(source.group(2)) if source.group(2) else None,
            "ncpus": int(ncpu.group(1)),
            "cpus": {int(m.group(1)): m.group(2) for m in LSCPU_CPU.finditer(text)},
            "unknown_nmis": int(nmis.group(1)) if nmis else None}


def lscpu_verdict(ls):
    """None when lscpu claims and proves the counter on every CPU, else why not."""
    if not ls["counts"]:
        return f"pmu counts: no ({ls['why']})"
    if not ls["source"].startswith("pmu/nmi "):
        return f"profile source is {ls['source']}, not pmu/nmi"
    bad = [n for n in range(ls["ncpus"]) if "claimed, proven" not in ls["cpus"].get(n, "")]
    if bad:
        return "counter not claimed and proven on cpu " + ", ".join(map(str, bad))
    return None


def header(text):
    """(samples, cpus, dropped, source) of a report, or None."""
    m = HEADER.search(text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)) if m else None


def show_cpus(text):
    """{cpu: samples} of `profile show cpus`, or None."""
    h = header(text)
    rows = {int(m.group(1)): int(m.group(2)) for m in SHOW_CPU.finditer(text)}
    return rows if h and rows else None


def folded_count(text, symbol):
    """(samples whose stack holds @symbol, all samples) of a folded
    profile, or None when it holds no folded block."""
    if "# kprof folded begin" not in text:
        return None
    hit = total = 0
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = FOLDED_LINE.match(line)
        if not m:
            continue
        n = int(m.group(2))
        total += n
        if symbol in m.group(1):
            hit += n
    return hit, total


def stat(text):
    """{row: (cycles, instructions, ipc)} of `stat`, counts None where
    `not counted`, or None when there is no `all` row."""
    rows = {}
    for m in STAT_ROW.finditer(text):
        num = [None if v == "not counted" else int(v) for v in (m.group(2), m.group(3))]
        rows[m.group(1)] = (num[0], num[1], None if m.group(4) == "-" else float(m.group(4)))
    return rows if "all" in rows else None


def stat_verdict(rows):
    cyc, ins, ipc = rows["all"]
    if cyc is None or ins is None:
        return "cycles or instructions not counted"
    if ipc is None or not IPC_MIN <= ipc <= IPC_MAX:
        return f"IPC {ipc} is not plausible ({IPC_MIN}-{IPC_MAX})"
    return None


def stopped(text):
    """(ms, samples, dropped) of `profile stop`, or None."""
    m = STOPPED.search(text)
    return tuple(int(g) for g in m.groups()) if m else None
