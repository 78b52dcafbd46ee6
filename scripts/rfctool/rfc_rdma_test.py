# SPDX-License-Identifier: GPL-2.0
"""Tests of rfc_rdma (the rdma-odp report) on console logs of a patched
and a base guest captured from make rdma-odp.  Run by rfctool_test.py,
which imports the test case."""

import os
import tempfile
import unittest

import rfc_rdma

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_data")


def load(name: str) -> rfc_rdma.RdmaLog:
    with open(os.path.join(DATA, name), encoding="utf-8", errors="replace") as f:
        return rfc_rdma.parse(f.readlines())


class RdmaTest(unittest.TestCase):
    def test_patched(self) -> None:
        p = load("rdma-odp-patched.log")
        self.assertEqual(p.exits, {"rxe_odp.sh": 0, "test_odp": 1})
        self.assertEqual(p.pages, 2048)
        self.assertEqual(p.faults[("thp", "uffd-wp resolve")], 0)
        self.assertEqual(len(p.faults), 15)
        self.assertFalse(p.failed())
        self.assertEqual(len(p.races), 6)
        self.assertTrue(all(r[5] == 0 for r in p.races))
        # Outcomes with kernel messages and library warnings on the lines
        # between a test's name and its result.
        self.assertEqual(p.pytests["test_odp_rc_rdma_write"], "ok")
        self.assertEqual(p.pytests["test_odp_async_prefetch_rc_traffic"], "skipped")
        self.assertEqual(p.pytests["test_odp_rc_huge_traffic"], "ERROR")
        self.assertEqual(len(p.pytests), 17)

    def test_base_fails_counts_but_passes_the_verdict(self) -> None:
        b = load("rdma-odp-base.log")
        self.assertEqual(b.faults[("anon-4k", "mprotect R->RW")], 2048)
        self.assertTrue(b.failed())
        logs = {"base": b, "patched": load("rdma-odp-patched.log")}
        self.assertEqual(rfc_rdma.verdict(logs), [])
        md = rfc_rdma.report(["date=x"], logs)
        self.assertIn("| anon-4k | mprotect R->RW | 2048 | 0 |", md)
        self.assertIn("| test_odp_rc_huge_traffic | ERROR | ERROR |", md)

    def test_verdict_fails(self) -> None:
        p = load("rdma-odp-patched.log")
        b = load("rdma-odp-base.log")
        # A patched kernel that fails a case, or a test_odp test that ends
        # otherwise on one kernel, or one that never ran, fails.
        p.cases.append((False, "anon-4k: uffd-wp protect: no ODP fault"))
        self.assertTrue(rfc_rdma.verdict({"base": b, "patched": p}))
        p = load("rdma-odp-patched.log")
        p.pytests["test_odp_rc_rdma_read"] = "FAIL"
        self.assertIn("test_odp test_odp_rc_rdma_read: base ok, patched FAIL",
                      rfc_rdma.verdict({"base": b, "patched": p}))
        p = load("rdma-odp-patched.log")
        self.assertIn("test_odp did not run on base",
                      rfc_rdma.verdict({"base": rfc_rdma.RdmaLog(), "patched": p}))
        self.assertIn("no patched kernel log", rfc_rdma.verdict({"base": b}))

    def test_main_refuses_bad_arguments(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.md")
            with self.assertRaises(ValueError):
                rfc_rdma.main([os.path.join(DATA, "rdma-odp-base.log"), out, "nokernel"])
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
