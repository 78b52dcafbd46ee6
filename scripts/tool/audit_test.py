#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of audit, on make audit's coccicheck report of the series
and the git grep that chose its files (test_data/audit-*)."""

import os
import sys
import unittest
from typing import List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import audit  # noqa: E402
import counts  # noqa: E402
from testlib import lines  # noqa: E402


class AuditTest(unittest.TestCase):
    TREE = "/TREE"

    def run_audit(self, log: List[str], grep: List[str], rc: int = 0,
                  series: Optional[List[str]] = []) -> Tuple[str, counts.Counts]:
        return audit.report(self.TREE, "x.cocci", log, grep, 68, 20, rc, series)

    def test_series(self) -> None:
        text, c = self.run_audit(lines("audit-coccicheck.log"), lines("audit-grep.txt"))
        self.assertEqual(c, (74, 0, 0))
        self.assertIn("| MMU_NOTIFY_PROTECTION_VMA |", text)
        self.assertIn("unexplained: 0", text)
        # The consumers that read the marks, by name and file, in site
        # order: the HMM test driver, the mprotect KUnit test's logger, KVM.
        self.assertIn("read the range flags: 3 of 21: "
                      "dmirror_interval_invalidate (lib/test_hmm.c), "
                      "mn_log_invalidate_range_start (mm/tests/mprotect_notifier_kunit.c), "
                      "kvm_mmu_notifier_invalidate_range_start (virt/kvm/kvm_main.c)\n", text)

    def test_fail_verdict(self) -> None:
        log = lines("audit-coccicheck.log")
        i = next(n for n, x in enumerate(log) if ": kvm_gfn_range: " in x)
        log[i] = log[i].replace("verdict=ok", "verdict=FAIL:test")
        _, c = self.run_audit(log, lines("audit-grep.txt"))
        self.assertEqual(c.failed, 1)

    def test_unexplained_site(self) -> None:
        # A kvm_gfn_range variable that grep sees and coccinelle did not
        # report fails the cross-check.
        log = lines("audit-coccicheck.log")
        drop = next(x for x in log if ": kvm_gfn_range: " in x)
        _, c = self.run_audit([x for x in log if x != drop], lines("audit-grep.txt"))
        self.assertEqual(c.failed, 1)

    def test_series_script(self) -> None:
        # The series' own script reports problems only: one report line
        # fails, and so does a script that was not run; other coccicheck
        # chatter does not count.
        finding = ("mm/mprotect.c:577:3-26: change_pud_range() starts a "
                   "PROTECTION_VMA invalidation with flags 0: take them ...")
        text, c = self.run_audit(lines("audit-coccicheck.log"), lines("audit-grep.txt"),
                                 series=["warning: chatter", finding])
        self.assertEqual(c.failed, 1)
        self.assertIn("- " + finding, text)
        _, c = self.run_audit(lines("audit-coccicheck.log"), lines("audit-grep.txt"),
                              series=["warning: chatter"])
        self.assertEqual(c.failed, 0)
        _, c = self.run_audit(lines("audit-coccicheck.log"), lines("audit-grep.txt"),
                              series=None)
        self.assertEqual(c.failed, 1)

    def test_coccicheck_failed(self) -> None:
        _, c = self.run_audit(lines("audit-coccicheck.log"), lines("audit-grep.txt"), rc=2)
        self.assertEqual(c.failed, 1)
        _, c = self.run_audit([], lines("audit-grep.txt"))
        self.assertGreater(c.failed, 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
