# SPDX-License-Identifier: BSD-2-Clause
"""`test overflow`'s panic, in one shape on every platform: the x86_64
kernel (tests/qemu/test_panic), the arm64 kernel (tests/qemu/test_arm64)
and ksim (tests/test_overflow_ksim) all end it with

    panic on cpu N: <the platform's fault>      (its address in the guard page)
    stack overflow: task P (overflow) ran into the guard page below its stack at 0xS
    backtrace:
    at test_recurse+0x..
            <- test_recurse+0x..

Only the fault line differs, and FAULTS gives it per platform, the address
the platform reports as its one group."""

import re

from kptest.runner import check

# x86_64: no room below the task's sp for the #PF's frame, so a #DF on its
# IST stack, CR2 the push that failed.  arm64: a data abort at EL1, FAR
# the write that failed.  ksim: SIGSEGV's si_addr; when the host's own
# push of the tick's signal frame found the guard, where that frame began.
FAULTS = {
    "x86_64": r"^panic on cpu {cpu}: #DF double fault \(vector 8\), error 0x0\n"
              r"cr2 0x([0-9a-f]{{16}})$",
    "arm64": r"^panic on cpu {cpu}: data abort \(ec 0x25\), esr 0x[0-9a-f]+\n"
             r"elr 0x[0-9a-f]{{16}}\n"
             r"far 0x([0-9a-f]{{16}}) \(translation fault, level 3, write\)$",
    "ksim": r"^panic on cpu {cpu}: page fault \(SIGSEGV(?:, pushing a signal frame)?\), "
            r"address 0x([0-9a-f]+)$",
}
OVERFLOW = re.compile(r"^stack overflow: task \d+ \(overflow\) ran into the guard page "
                      r"below its stack at 0x([0-9a-f]+)$", re.M)
FRAME = re.compile(r"^        <- ([A-Za-z_][\w.]*)\+0x[0-9a-f]+$")
GUARD = 4096


def backtrace(out):
    """The frame-0 symbol ("at sym+0x..", None if absent) and the caller
    symbols after "backtrace:"."""
    check("\nbacktrace:\n" in out, f"no backtrace: {out!r}")
    lines = out.split("\nbacktrace:\n", 1)[1].splitlines()
    # After `nmi` on the monitor, QEMU's mux can leave an empty line of
    # its own in the guest's output (seen once on a loaded host).
    while lines and not lines[0].strip():
        lines = lines[1:]
    at = None
    if lines and lines[0].startswith("at "):
        m = re.match(r"at ([\w.]+)\+0x[0-9a-f]+$", lines[0])
        check(m, f"frame 0 unresolved: {lines[0]!r}")
        at = m.group(1)
        lines = lines[1:]
    callers = []
    for line in lines:
        m = FRAME.match(line)
        if not m:
            break
        callers.append(m.group(1))
    return at, callers


def check_stack_overflow(out, cpu, platform):
    """@out is the console text of `test overflow @cpu` on @platform
    ("x86_64", "arm64" or "ksim"): the fault on that CPU at an address in
    the guard page below the task's stack, the task named, the recursion
    in the backtrace."""
    fault = re.search(FAULTS[platform].format(cpu=cpu), out, re.M)
    check(fault, f"no {platform} fault line on cpu {cpu}: {out!r}")
    line = OVERFLOW.search(out)
    check(line, f"no stack overflow line: {out!r}")
    stack, addr = int(line.group(1), 16), int(fault.group(1), 16)
    check(stack - GUARD <= addr < stack,
          f"fault address 0x{addr:x} not in the guard page below 0x{stack:x}: {out!r}")
    at, callers = backtrace(out)
    check(at == "test_recurse" and callers and callers[0] == "test_recurse",
          f"backtrace does not show the recursion:\n{out}")
