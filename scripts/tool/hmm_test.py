#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of hmm (the hmm-tests report of make kvm-selftest) on the
npt=1 boots of a base and a patched guest (test_data/hmm-tests-*.log, in
runner.sh's KTAP form: one test of the suite per hmm-tests case)."""

import os
import sys
import unittest
from typing import List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hmm  # noqa: E402
import ktap  # noqa: E402
import report  # noqa: E402
import testlib  # noqa: E402
from testlib import inputs, read  # noqa: E402

BASE = "hmm-tests-base.log"
PATCHED = "hmm-tests-patched.log"


def cell(name: str, case: str) -> str:
    return hmm.cell(read(name).result(case))


class CellTest(unittest.TestCase):
    def test_base(self) -> None:
        c = cell(BASE, "hmm.prot_upgrade_thp")
        self.assertTrue(c.startswith("fail: Expected faults (512) == 0 (0); 512 of 512 pages "
                                     "faulted again after write was taken away; "), c)
        self.assertTrue(c.endswith("; 512 of 512 pages faulted again after a split"), c)
        self.assertIn("1024 of 1024 pages faulted again after write was given back",
                      cell(BASE, "hmm.prot_upgrade_uffd_wp"))
        self.assertEqual(cell(BASE, "hmm.prot_downgrade_thp"), "pass")
        self.assertEqual(cell(BASE, "hmm.prot_migrate_mprotect"), "not run")

    def test_patched(self) -> None:
        self.assertEqual(cell(PATCHED, "hmm.prot_upgrade_mprotect"), "pass")
        self.assertEqual(cell(PATCHED, "hmm.prot_migrate_uffd_wp"), "pass")
        self.assertEqual(cell(PATCHED, "hmm.prot_race_mprotect"),
                         "pass: 637 cycles, 1 device writes landed, 1711 refused")

    def test_lines(self) -> None:
        # Only the kselftest harness's TH_LOG lines of the case ("# " of
        # runner.sh dropped); a skip is its own result.
        res = ktap.Result("skip", [
            "selftests: kvm-selftest: hmm.prot_upgrade_hugetlb",
            "[   12.5] random: crng init done",
            "# hmm-tests.c:1072:prot_upgrade_hugetlb:8 of 8 pages faulted again after x\r",
            "hmm-tests.c:1:prot_upgrade_hugetlb:not the harness's",
            "# hmm-tests.c:1:other_case: y",
            "#  RUN           hmm.hmm_device_private.prot_upgrade_hugetlb ..."])
        self.assertEqual(hmm.cell(res), "skip: 8 of 8 pages faulted again after x; y")
        self.assertEqual(hmm.cell(None), "not run")


class ReportTest(testlib.TmpTest):
    def report(self, ins: List[report.Input]) -> str:
        self.assertEqual(hmm.write(ins, {"date": "x"}, self.tmp), [self.path("hmm-tests.md")])
        return self.text("hmm-tests.md")

    def test_report(self) -> None:
        md = self.report(inputs([("patched", "1", PATCHED), ("base", "1", BASE),
                                 ("base", "0", "guest-fail.log")]))
        self.assertIn("\n    date=x\n", md)
        self.assertIn("| case | base | patched |\n|---|---|---|\n", md)
        self.assertIn("| hmm.prot_downgrade_thp | pass | pass |", md)
        self.assertIn("| hmm.prot_migrate_mprotect | not run | pass |", md)
        self.assertIn("| hmm.prot_upgrade_hugetlb | fail: Expected faults (512) == 0 (0); 512 of "
                      "512 pages faulted again after write was taken away; Expected faults (512) "
                      "== 0 (0); 512 of 512 pages faulted again after write was given back "
                      "| pass |", md)
        # One row per case, base's first, then those only patched ran.
        rows = [x.split(" | ")[0][2:] for x in md.splitlines() if x.startswith("| hmm.")]
        self.assertEqual(len(rows), 16)
        self.assertEqual(rows[-2:], ["hmm.prot_migrate_mprotect", "hmm.prot_migrate_uffd_wp"])
        # The npt=0 boots are not read.
        self.assertNotIn("perm_upgrade_test", md)

    def test_boots(self) -> None:
        # A boot of its own (the race, multi-threaded TCG) gets its column.
        race = ktap.parse("race.log", [
            "GUEST: kernel x", "TAP version 13", "1..1",
            "# selftests: kvm-selftest: hmm.prot_upgrade_migrate_race",
            "# # hmm-tests.c:1700:prot_upgrade_migrate_race:100 races, 0 stale",
            "ok 1 selftests: kvm-selftest: hmm.prot_upgrade_migrate_race"])
        ins = inputs([("base", "1", BASE), ("patched", "1", PATCHED)])
        ins.append(report.Input("patched", "1", "hmm-race", race))
        ins += inputs([("debug", "1", PATCHED)])
        md = self.report(ins)
        self.assertIn("| case | base | patched | debug | patched (hmm-race) |", md)
        self.assertIn("| hmm.prot_upgrade_migrate_race | not run | not run | not run | "
                      "pass: 100 races, 0 stale |", md)
        self.assertIn("| hmm.prot_downgrade_thp | pass | pass | pass | not run |", md)

    def test_no_case(self) -> None:
        # Nothing of hmm-tests ran: no report.
        self.assertEqual(hmm.write(inputs([("base", "1", "guest-pass.log")]), {}, self.tmp), [])
        self.assertEqual(os.listdir(self.tmp), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
