#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of splat, on console logs captured from real guests and on
the kernel's printk formats (test_data/, see test_data/README)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import splat  # noqa: E402
import testlib  # noqa: E402
from testlib import lines  # noqa: E402


class SplatTest(testlib.TmpTest):
    def test_kernel_formats(self) -> None:
        n = 0
        for line in lines("kernel-formats.txt"):
            if not line or line.startswith("#"):
                continue
            kind, text = line.split("\t", 1)
            self.assertEqual(splat.classify(text), kind, text)
            n += 1
        # Every kind but the two the captures show (warn, panic) and
        # those the captures' kinds stand for.
        self.assertGreaterEqual(n, 10)

    def test_benign(self) -> None:
        for line in lines("benign.txt"):
            if line.startswith("#"):
                continue
            self.assertIsNone(splat.classify(line), line)

    def test_clean_boots(self) -> None:
        for name in ("guest-pass.log", "guest-fail.log", "guest-debug-pass.log",
                     "regress-base-npt0.log", "hmm-tests-base.log", "rdma-odp-base.log"):
            self.assertEqual(splat.scan(lines(name)), [], name)

    def test_debug_kernel(self) -> None:
        # KASAN and lockdep announce themselves at boot; that is no splat.
        text = lines("guest-debug-pass.log")
        self.assertTrue(any("KernelAddressSanitizer initialized" in x for x in text))
        self.assertEqual(splat.scan(text), [])

    def test_warn_capture(self) -> None:
        # v7.2's format: "WARNING: FILE:LINE at FUNC+OFF/SIZE, CPU#N: COMM/PID";
        # the register dump of a first WARN still says "Not tainted".
        s = splat.scan(lines("guest-warn.log"))
        self.assertEqual([x.kind for x in s], ["warn"])
        self.assertIn("kvm_mmu_notifier_invalidate_range_start", s[0].line)
        self.assertEqual(lines("guest-warn.log")[s[0].lineno - 1], s[0].line)

    def test_panic_capture(self) -> None:
        s = splat.scan(lines("guest-early-panic.log"))
        self.assertEqual([x.kind for x in s], ["panic"])

    def test_lineno_and_where(self) -> None:
        s = splat.scan(["ok", "", "[ 1.0] BUG: soft lockup - CPU#0 stuck\r\n"])
        self.assertEqual([(x.lineno, x.kind) for x in s], [(3, "soft-lockup")])
        self.assertEqual(s[0].line, "[ 1.0] BUG: soft lockup - CPU#0 stuck")
        self.assertEqual(s[0].where("g.log"),
                         "g.log:3: soft-lockup: [ 1.0] BUG: soft lockup - CPU#0 stuck")

    def test_first_pattern_wins(self) -> None:
        # The specific kinds come before the generic WARNING and BUG.
        self.assertEqual(splat.classify("WARNING: suspicious RCU usage"), "lockdep")
        self.assertEqual(splat.classify("BUG: KASAN: wild-memory-access"), "kasan")
        self.assertEqual(splat.classify("WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x1"), "warn")
        self.assertEqual(splat.classify("CPU: 1 PID: 2 Comm: t Tainted: G W 7.2.8"), "taint")
        self.assertIsNone(splat.classify("CPU: 1 PID: 2 Comm: t Not tainted 7.2.8"))

    def test_read_lines(self) -> None:
        # Serial output: CRLF, bare LF, any byte.
        p = self.path("c.log")
        with open(p, "wb") as f:
            f.write(b"one\r\ntwo\n\xff\xfethree\r\n")
        self.assertEqual(splat.read_lines(p), ["one", "two", "\ufffd\ufffdthree"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
