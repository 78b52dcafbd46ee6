#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of rdma (the rdma-odp report) on the boots of a patched and
a base guest of make rdma-odp (test_data/rdma-odp-*.log, in runner.sh's
KTAP form: tests rxe_odp and test_odp)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ktap  # noqa: E402
import rdma  # noqa: E402
import testlib  # noqa: E402
from testlib import inputs, read  # noqa: E402


def load(name: str) -> rdma.RdmaLog:
    log = read(name)
    r = rdma.parse(log.payload)
    rdma.add_cases(r, log.result("rxe_odp"))
    return r


class ParseTest(unittest.TestCase):
    def test_patched(self) -> None:
        p = load("rdma-odp-patched.log")
        self.assertEqual(p.pages, 2048)
        self.assertEqual(p.faults[("thp", "uffd-wp resolve")], 0)
        self.assertEqual(len(p.faults), 15)
        # rxe_odp_test's own cases, not runner.sh's results of its tests.
        self.assertEqual(len(p.cases), 70)
        self.assertEqual(p.failed(), [])
        self.assertEqual(len(p.races), 6)
        self.assertTrue(all(r[5] == 0 for r in p.races))
        self.assertEqual(p.races[0], ("anon-4k", "mprotect", 3578, 1567, 7356, 0))
        # Outcomes with kernel messages and library warnings on the lines
        # between a test's name and its result.
        self.assertEqual(p.pytests["test_odp_rc_rdma_write"], "ok")
        self.assertEqual(p.pytests["test_odp_async_prefetch_rc_traffic"], "skipped")
        self.assertEqual(p.pytests["test_odp_implicit_rc_traffic"], "skipped")
        self.assertEqual(p.pytests["test_odp_rc_huge_traffic"], "ERROR")
        self.assertEqual(len(p.pytests), 17)

    def test_base(self) -> None:
        b = load("rdma-odp-base.log")
        self.assertEqual(b.faults[("anon-4k", "mprotect R->RW")], 2048)
        self.assertEqual((len(b.cases), len(b.failed())), (70, 57))
        self.assertIn("anon-4k: populate: RDMA WRITE of 2048 pages: 2048 wrong", b.failed())
        self.assertFalse([c for c in b.failed() if c.startswith("selftests: ")])
        self.assertEqual([r[5] for r in b.races if r[5]], [2, 1, 2])

    def test_lines(self) -> None:
        log = rdma.parse([
            "# anon-4k: mprotect R->RW: 3 ODP faults over 8 pages\r\n",
            "ok 1 anon-4k: steady # SKIP no odp",
            "not ok 2 anon-4k: populate",
            "ok 1 selftests: rdma-odp: rxe_odp",
            "not ok 2 selftests: rdma-odp: test_odp # exit=1",
            "test_odp_x (tests.test_odp.OdpTestCase.test_odp_x) ... [  1.0] dummy0 up",
            "libibverbs: Warning: couldn't load driver 'x'",
            "[  2.0] dummy0 speed is unknown ok",
            "FAIL",
            "test_odp_y (tests.test_odp.OdpTestCase.test_odp_y) ... ok",
            "test_odp_z (tests.test_odp.OdpTestCase.test_odp_z) ... ok[  3.0] dummy0 up",
            "skipped 'not the outcome of test_odp_z'"])
        self.assertEqual(log.faults, {("anon-4k", "mprotect R->RW"): 3})
        self.assertEqual(log.pages, 8)
        # Cases come from rxe_odp_test's own KTAP (add_cases), not from lines.
        self.assertEqual(log.cases, [])
        self.assertEqual(log.pytests, {"test_odp_x": "FAIL", "test_odp_y": "ok",
                                       "test_odp_z": "ok"})


class CasesTest(unittest.TestCase):
    def test_nested_ktap(self) -> None:
        # What runner.sh printed of rxe_odp.sh, one "# " dropped: the
        # test's own KTAP, a skip, a failure and a race's counts.
        res = ktap.Result("fail", [
            "selftests: rdma-odp: rxe_odp", "TAP version 13", "1..3",
            "ok 1 anon-4k: steady # SKIP no odp", "not ok 2 anon-4k: populate",
            "ok 3 thp: uffd-wp toggled 9 times: 5 RDMA WRITEs done, 2 refused, "
            "1 times a write landed while protected", "# Totals: pass:1 fail:1"])
        log = rdma.RdmaLog()
        rdma.add_cases(log, res)
        self.assertEqual(log.cases, [(False, "anon-4k: populate"), (True, res.log[5][5:])])
        self.assertEqual(log.races, [("thp", "uffd-wp", 9, 5, 2, 1)])
        # No result, or a result without KTAP: no case.
        log = rdma.RdmaLog()
        rdma.add_cases(log, None)
        rdma.add_cases(log, ktap.Result("fail", ["SKIP: rxe_odp_test is not built"]))
        self.assertEqual(log.cases, [])


class ReportTest(testlib.TmpTest):
    def test_report(self) -> None:
        ins = inputs([("base", "1", "rdma-odp-base.log"), ("patched", "1",
                                                           "rdma-odp-patched.log")])
        self.assertEqual(rdma.write(ins, {"date": "x"}, self.tmp), [self.path("rdma-odp.md")])
        md = self.text("rdma-odp.md")
        self.assertIn("\n    date=x\n", md)
        self.assertIn("Hits of a kprobe on ib_umem_odp_map_dma_and_lock(), over 2048 pages", md)
        self.assertIn("| backing | change | base | patched |", md)
        self.assertIn("| anon-4k | mprotect R->RW | 2048 | 0 |", md)
        # Each kernel's cases and the suite's KTAP result of rxe_odp.
        self.assertIn("- base: 70 cases, 57 failed; fail\n", md)
        self.assertIn("  - not ok: anon-4k: populate: RDMA WRITE of 2048 pages: 2048 wrong\n", md)
        self.assertIn("  - and 45 more\n", md)
        self.assertIn("- patched: 70 cases, 0 failed; pass\n", md)
        self.assertIn("| patched | anon-4k | mprotect | 3578 | 1567 | 7356 | 0 |", md)
        self.assertIn("| test_odp_rc_huge_traffic | ERROR | ERROR |", md)
        self.assertIn("| test_odp_rc_rdma_read | ok | ok |", md)

    def test_missing(self) -> None:
        # A kernel whose guest ran nothing.
        ins = inputs([("base", "1", "guest-early-panic.log"),
                      ("patched", "1", "rdma-odp-patched.log")])
        rdma.write(ins, {}, self.tmp)
        md = self.text("rdma-odp.md")
        self.assertIn("- base: 0 cases, 0 failed; no result\n", md)
        self.assertIn("| anon-4k | mprotect R->RW | - | 0 |", md)
        self.assertIn("| test_odp_rc_rdma_read | missing | ok |", md)


if __name__ == "__main__":
    unittest.main(verbosity=2)
