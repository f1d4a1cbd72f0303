# SPDX-License-Identifier: BSD-2-Clause
"""The test scripts' helpers, one module a concern.  Every script imports
them the same way (`from kptest.kernel import Kernel`), with tests/ on
PYTHONPATH: the automake fragments set it for `make check`; by hand,
`PYTHONPATH=tests` from the source folder (doc/hacking.md).

common    a failed check, the build folder, free UDP ports on 127.0.0.1
frames    Ethernet/ARP/IPv4/UDP frames around ksim's network device
udpsh     the UDP shell's protocol: the keyed wire, an exchange with a kernel
ksim      ksim as a child process, the wire around it, its counters
qemu      QEMU's command lines for the two kernels, what a host lacks
kernel    one kernel under QEMU as a process (console, commands, exit)
runner    the QEMU tests' runner (PASS/FAIL lines, 77 for SKIP)
measure   the tick's rate and each CPU's busy time, measured in a guest
wall      the wall-clock profile against sleepy's own truth
overflow  a stack overflow's report, on every platform
collect   kprof-collect driven from a test, and its files checked
report    kprof-report run on fixtures, folded files read back
gocheck   Go's pprof reading what kprof-report wrote
pbcheck   the pprof protobuf decoded by hand
svgcheck  the flame graph's SVG checked
pmu_kit   the hardware kit's parsers of lscpu, stat and profile output
"""
