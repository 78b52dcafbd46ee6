# SPDX-License-Identifier: GPL-2.0
"""Tests of rfc_hmm (the hmm-tests report of make kvm-selftest) on console
logs of a patched and a base guest captured from it.  Run by
rfctool_test.py, which imports the test case."""

import io
import os
import tempfile
import unittest
from contextlib import redirect_stdout

import rfc_hmm

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_data")


def load(name: str) -> rfc_hmm.HmmLog:
    with open(os.path.join(DATA, name), encoding="utf-8", errors="replace") as f:
        return rfc_hmm.parse(f.readlines())


class HmmTest(unittest.TestCase):
    def test_base(self) -> None:
        b = load("hmm-tests-base.log")
        self.assertEqual(rfc_hmm.counts(b), (9, 5, 0))
        self.assertEqual(b.results["prot_upgrade_thp"], "not ok")
        self.assertEqual(b.results["prot_downgrade_hugetlb"], "ok")
        self.assertNotIn("prot_migrate_mprotect", b.results)
        self.assertIn("512 of 512 pages faulted again after a split",
                      b.messages["prot_upgrade_thp"])
        self.assertIn("1024 of 1024 pages faulted again after write was given back",
                      b.messages["prot_upgrade_uffd_wp"])
        self.assertNotIn("prot_downgrade_thp", b.messages)

    def test_patched(self) -> None:
        p = load("hmm-tests-patched.log")
        self.assertEqual(rfc_hmm.counts(p), (16, 0, 0))
        self.assertEqual(p.results["prot_migrate_uffd_wp"], "ok")
        self.assertNotIn("prot_upgrade_mprotect", p.messages)
        self.assertTrue(p.messages["prot_race_mprotect"][0].endswith(" refused"))

    def test_parse_skip_and_kernel_lines(self) -> None:
        log = rfc_hmm.parse([
            "[   12.5] random: crng init done\n",
            "# hmm-tests.c:1072:prot_upgrade_hugetlb:8 of 8 pages faulted again after x\r\n",
            "ok 3 hmm.hmm_device_private.prot_upgrade_hugetlb # SKIP no hugetlb\n",
            "not ok 4 hmm.hmm_device_private.prot_race_uffd_wp\n",
            "ok 5 hmm.hmm_device_private.prot_race_uffd_wp\n",
            "ok 6 hmm.other_fixture.prot_race_uffd_wp\n",
        ])
        # A skip is its own result; the last result of a case counts; other
        # fixtures' cases are not the series'.
        self.assertEqual(log.results, {"prot_upgrade_hugetlb": "skip",
                                       "prot_race_uffd_wp": "ok"})
        self.assertEqual(rfc_hmm.cell(log, "prot_upgrade_hugetlb"),
                         "skip: 8 of 8 pages faulted again after x")
        self.assertEqual(rfc_hmm.cell(log, "prot_migrate_uffd_wp"), "not run")

    def test_report_and_main(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            header = os.path.join(d, "header")
            with open(header, "w", encoding="utf-8") as f:
                f.write("date=x\n")
            out = os.path.join(d, "hmm-tests.md")
            base = os.path.join(DATA, "hmm-tests-base.log")
            patched = os.path.join(DATA, "hmm-tests-patched.log")
            with redirect_stdout(io.StringIO()) as said:
                self.assertEqual(rfc_hmm.main([header, out, "base=" + base,
                                               "patched=" + patched]), 0)
            self.assertIn("hmm-tests: base: 9 ok, 5 not ok, 0 skipped", said.getvalue())
            with open(out, encoding="utf-8") as f:
                md = f.read()
            self.assertIn("| case | base | patched |", md)
            self.assertIn("| prot_downgrade_thp | ok | ok |", md)
            self.assertIn("| prot_migrate_mprotect | not run | ok |", md)
            # A log in which no case ran fails, and bad arguments write nothing.
            empty = os.path.join(d, "empty.log")
            open(empty, "w", encoding="utf-8").close()
            with redirect_stdout(io.StringIO()) as said:
                self.assertEqual(rfc_hmm.main([header, out, "base=" + empty,
                                               "patched=" + patched]), 1)
            self.assertIn("hmm-tests: base: no case ran", said.getvalue())
            out2 = os.path.join(d, "out2.md")
            with self.assertRaises(ValueError):
                rfc_hmm.main([header, out2, base])
            self.assertFalse(os.path.exists(out2))


if __name__ == "__main__":
    unittest.main()
