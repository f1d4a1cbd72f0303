# SPDX-License-Identifier: BSD-2-Clause
"""Measures a QEMU test asserts within wide bounds: the tick's rate
between two lscpu readings, and each CPU's busy time in a profile."""

import re
import time

from kptest.runner import check


TICK_LINE = re.compile(r"^tick: (\d+) Hz per cpu; ticks by (\d+)\.(\d{3}) s: cpu 0 (\d+)",
                       re.M)


def _tick_reading(k):
    out = k.command("lscpu")
    m = TICK_LINE.search(out)
    check(m, f"lscpu has no tick line: {out!r}")
    return int(m.group(1)), int(m.group(2)) * 1000 + int(m.group(3)), int(m.group(4))


# QEMU options for a kernel whose tick is counted against its own clock:
# under plain TCG a periodic timer that fell due while the host left QEMU
# unscheduled is skipped, not delivered late (QEMU's APIC timer re-arms
# for the next period after "now"), so a loaded host loses ticks (85 of
# 100 a second at a load of 16 on 2 cores).  With -icount and sleep=off
# the guest's time moves only as it runs instructions, and jumps from an
# idle CPU straight to the next timer deadline: every tick is delivered
# at its own virtual time, and the kernel's clock (the TSC, the generic
# counter) is the same virtual time, whatever the host's load.
ICOUNT = ("-icount", "shift=0,sleep=off")


def check_tick_rate(k, hz, window_s=1.0):
    """CPU 0's ticks between two `lscpu` readings, over the kernel's own
    clock between them, within 10% of @hz, which lscpu must state.  Boot
    @k with extra=ICOUNT (above).  Returns the measured rate."""
    said, ms0, t0 = _tick_reading(k)
    check(said == hz, f"lscpu says the tick runs at {said} Hz, want {hz}")
    time.sleep(window_s)
    _, ms1, t1 = _tick_reading(k)
    check(ms1 > ms0, f"the kernel's clock did not move ({ms0} -> {ms1} ms)")
    rate = (t1 - t0) * 1000.0 / (ms1 - ms0)
    print(f"  tick.hz={hz}: {t1 - t0} ticks in {ms1 - ms0} ms of the kernel's "
          f"clock, {rate:.1f}/s")
    check(abs(rate - hz) <= hz * 0.10,
          f"{t1 - t0} ticks in {ms1 - ms0} ms is {rate:.1f}/s, not {hz} within 10%")
    return rate


CPUS_ROW = re.compile(r"^cpu (\d+): (\d+) samples .*, idle (\d+)\.(\d)% of the window$", re.M)


def cpu_time_per_cpu(k, what, seconds=6.0, options="", timeout=60.0):
    """Per CPU, the weights of its samples outside its idle task, from the
    address view by CPU of a session (`profile start all @options`, about
    @seconds of host time, `profile stop`, `profile show folded addr
    cpus`), against its busy time by `profile show cpus`: the window less
    its idle share.  Each within 10% of that CPU's busy time (and never
    closer than two sampling periods).

    A loaded host does not move one side alone: a vCPU the host leaves
    unscheduled is, to the guest, a CPU whose clock ran on while it sat
    in the task it was in -- the counter (QEMU's virtual clock) or the
    late tick puts that time into the next sample's weight, and the
    scheduler's idle time, read from the same clock, calls it busy (or
    idle, in the idle task) too.  Only at the window's edges can the two
    part: the time between a CPU's last sample and the stop is busy but
    in no sample (normally under a period; all of a starvation that ends
    past the stop), and the first sample may count from before the
    window opened.  A session of a few seconds, not the window form's
    2, keeps even a 600 ms starvation at the very end inside 10%.

    Checks that the view's `# cpu_busy_ns=` says what `show cpus` says
    (to 0.2% of the window: the percentage's rounding).  @what names the
    run in the messages.  Returns the view's header."""
    out = k.command(f"profile start all{options}", timeout=timeout)
    check(out.startswith("profile: started"), f"{what}: profile start: {out!r}")
    time.sleep(seconds)
    out = k.command("profile stop", timeout=timeout)
    check(out.startswith("profile: stopped"), f"{what}: profile stop: {out!r}")
    out = k.command("profile show folded addr cpus", timeout=timeout)
    head = dict(re.findall(r"^# ([a-z_]+)=(.*)$", out, re.M))
    check(head.get("root") == "cpu" and head.get("frames") == "addr",
          f"{what}: no address view by cpu: {out[-300:]!r}")
    window = int(head["window_ms"]) * 10**6
    period = 10**9 // int(head.get("throttled_hz", head["hz"]))
    weights, samples, count = {}, {}, 0
    for line in out.splitlines():
        m = re.match(r"^cpu(\d+);(\S+) (\d+) (\d+)$", line)
        if not m:
            continue
        cpu = int(m.group(1))
        weights.setdefault(cpu, 0)
        samples[cpu] = samples.get(cpu, 0) + int(m.group(3))
        if not re.match(r"^\d+-idle/", m.group(2)):
            weights[cpu] += int(m.group(4))
            count += int(m.group(3))
    said = {int(c): int(n) for c, n in
            (kv.split(":") for kv in head.get("cpu_busy_ns", "").split())}
    rows = CPUS_ROW.findall(k.command("profile show cpus"))
    busy = {int(c): window * (1000 - int(i) * 10 - int(f)) // 1000
            for c, _, i, f in rows}
    check(busy and set(busy) == set(said) and set(weights) <= set(busy),
          f"{what}: show cpus names cpus {sorted(busy)}, the view's header "
          f"{sorted(said)}, its lines {sorted(weights)}")
    print(f"  {what}: {head.get('source')}, {window // 10**6} ms"
          + (f", throttled to {head['throttled_hz']} Hz" if "throttled_hz" in head else "")
          + "; " + "; ".join(
              f"cpu {c} weights {weights.get(c, 0) // 10**6} ms of {samples.get(c, 0)} "
              f"samples, busy {busy[c] // 10**6} ms" for c in sorted(busy))
          + f"; in all weights {sum(weights.values()) // 10**6} ms, busy "
          f"{sum(busy.values()) // 10**6} ms, count x 10^9/hz "
          f"{count * 10**9 // int(head['hz']) // 10**6} ms", flush=True)
    # A stop the host delays is a starvation at the window's end: QEMU's
    # main loop resumed, a CPU took its pending overflow after the stop
    # (late: dropped, weight and all) and its busy time to the stop is in
    # no sample.  The window's length past the host's own wait bounds
    # that stretch (a 6 s wait made a 7.5 s window at a load of 30, and
    # three CPUs were 0.3-1.4 s short), so a CPU may fall short by it too.
    late_end = max(0, window - int(seconds * 10**9))
    for c in sorted(busy):
        check(abs(said[c] - busy[c]) <= window // 500,
              f"{what}: cpu {c}'s cpu_busy_ns {said[c]} vs show cpus {busy[c]}")
        slack = max(busy[c] // 10, 2 * period)
        check(-(slack + late_end) <= weights.get(c, 0) - busy[c] <= slack,
              f"{what}: cpu {c}: non-idle weights {weights.get(c, 0)} ns vs "
              f"busy {busy[c]} ns (window {window} ns for a {seconds} s wait)")
    return head
