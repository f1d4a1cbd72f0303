# SPDX-License-Identifier: BSD-2-Clause
"""The QEMU tests' runner: a test is a function that raises on failure;
one line per test, exit 0, 1, or 77 (automake's SKIP) where QEMU is not
installed."""

import os
import sys
import time

from kptest.common import HarnessError
from kptest.qemu import missing_tools


def run_tests(tests):
    """Run each test function; print one line per test; exit 0 when all
    passed, 77 (automake's SKIP) when QEMU is not installed.  A test is
    def test_x(): ... raising on failure.  KPROF_TESTS=WORD runs only the
    tests whose names contain WORD (for chasing one failure)."""
    why = missing_tools()
    if why:
        print(f"SKIP: {why}")
        sys.exit(77)
    only = os.environ.get("KPROF_TESTS", "")
    failed = 0
    for t in (t for t in tests if only in t.__name__):
        t0 = time.monotonic()
        try:
            t()
            print(f"PASS {t.__name__} ({time.monotonic() - t0:.1f} s)")
        except Exception as e:          # report every failure, keep going
            failed += 1
            print(f"FAIL {t.__name__}: {e}")
        sys.stdout.flush()
    sys.exit(1 if failed else 0)


def check(cond, why):
    if not cond:
        raise HarnessError(why)
