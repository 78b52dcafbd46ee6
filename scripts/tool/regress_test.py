#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of regress (regress.md) on the npt=0 boots of a real make
regress run (test_data/regress-*-npt0.log, in runner.sh's KTAP form), and
of the regress suite's verdict on them end to end."""

import os
import shutil
import sys
import unittest
from typing import List, Tuple
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ktap  # noqa: E402
import regress  # noqa: E402
import report  # noqa: E402
import testlib  # noqa: E402
import verdict  # noqa: E402
from testlib import data, inputs, lines  # noqa: E402

BASE = "regress-base-npt0.log"
PATCHED = "regress-patched-npt0.log"
HEADER = {"date": "2026-12-03", "qemu_args": "-accel tcg,thread=single -cpu EPYC,+svm,+npt,+pku"}


def warned(tmp: str) -> str:
    """A copy of the patched log with the WARN of guest-warn.log in its
    console, in TMP."""
    warn = [x for x in lines("guest-warn.log") if "WARNING:" in x]
    return testlib.write(os.path.join(tmp, "warn.log"), "\n".join(lines(PATCHED) + warn) + "\n")


class RegressTest(testlib.TmpTest):
    def report(self, ins: List[report.Input]) -> str:
        self.assertEqual(regress.write(ins, HEADER, self.tmp), [self.path("regress.md")])
        return self.text("regress.md")

    def test_regress(self) -> None:
        md = self.report(inputs([("base", "0", BASE), ("patched", "0", PATCHED)]))
        self.assertIn("\n    date=2026-12-03\n    qemu_args=-accel tcg,thread=single "
                      "-cpu EPYC,+svm,+npt,+pku\n", md)
        self.assertIn("## kvm_amd.npt=0\n\n| test | base | patched | |\n", md)
        # The KTAP result, and the test's own subtests pass/fail/skip.
        self.assertIn("| perm_upgrade_test | fail 6/6/0 | pass 12/0/0 | better |", md)
        self.assertIn("| guest_memfd_test | pass | pass |  |", md)
        self.assertEqual(md.count("| pass | pass |  |"), 8)
        self.assertTrue(md.endswith("\nWorse on the patched kernel: none\n"))
        self.assertNotIn("kernel splat", md)
        self.assertNotIn("no test ran", md)

    def test_worse(self) -> None:
        md = self.report(inputs([("base", "0", PATCHED), ("patched", "0", BASE)]))
        self.assertIn("| perm_upgrade_test | pass 12/0/0 | fail 6/6/0 | **worse** |", md)
        self.assertTrue(md.endswith("\nWorse on the patched kernel: npt=0 perm_upgrade_test\n"))

    def test_splat(self) -> None:
        # The report shows the splat; the verdict counts it.
        md = self.report(inputs([("base", "0", BASE), ("patched", "0", warned(self.tmp))]))
        self.assertIn("\npatched: kernel splat (warn): `[    3.452656] WARNING: "
                      "arch/x86/kvm/../../../virt/kvm/kvm_main.c:894 at "
                      "kvm_mmu_notifier_invalidate_range_start", md)
        self.assertNotIn("base: kernel splat", md)

    def test_no_test_ran(self) -> None:
        md = self.report(inputs([("base", "0", BASE), ("patched", "0", "guest-early-panic.log")]))
        self.assertIn("**patched: no test ran** (log `%s`)" % data("guest-early-panic.log"), md)
        self.assertIn("| perm_upgrade_test | fail 6/6/0 | no result | **worse** |", md)
        self.assertIn("patched: kernel splat (panic): ", md)
        # A kernel without a log at all.
        md = self.report(inputs([("base", "0", BASE)]))
        self.assertIn("**patched: no test ran** (log `?`)", md)

    def test_modes(self) -> None:
        # npt=1 first; a test that ran on one kernel only has a row.
        text = [x.replace("selftests: regress: guest_memfd_test", "selftests: regress: cow")
                for x in lines(PATCHED)]
        p1 = testlib.write(self.path("p1.log"), "\n".join(text) + "\n")
        md = self.report(inputs([("base", "0", BASE), ("patched", "0", PATCHED),
                                 ("base", "1", BASE), ("patched", "1", p1)]))
        self.assertLess(md.index("## kvm_amd.npt=1"), md.index("## kvm_amd.npt=0"))
        npt1 = md[md.index("## kvm_amd.npt=1"):md.index("## kvm_amd.npt=0")]
        self.assertIn("| guest_memfd_test | pass | no result | **worse** |", npt1)
        self.assertIn("| cow | no result | pass |  |", npt1)
        self.assertTrue(md.endswith("\nWorse on the patched kernel: npt=1 guest_memfd_test\n"))

    def test_cells(self) -> None:
        self.assertEqual(regress.cell(None), "no result")
        self.assertEqual(regress.cell(ktap.Result("skip", ["x"])), "skip")
        self.assertEqual(regress.cell(ktap.Result("fail", [
            "# Totals: pass:1 fail:2 xfail:0 xpass:0 skip:3 error:0",
            "# Totals: pass:4 fail:5 xfail:0 xpass:0 skip:6 error:0"])), "fail 4/5/6")


class VerdictTest(testlib.TmpTest):
    """The regress suite of guest/suites on these logs, as make regress
    runs it with KPU_MODES=0."""

    def verdict(self, patched: str) -> Tuple[int, List[str]]:
        logs = self.path("logs")
        os.makedirs(logs, exist_ok=True)
        shutil.copy(data(BASE), os.path.join(logs, "base-0.log"))
        shutil.copy(patched, os.path.join(logs, "patched-0.log"))
        header = testlib.write(self.path("header"), "date=2026-12-03\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("KPU_")
               or k == "KPU_KUNIT"}
        env["KPU_MODES"] = "0"
        with mock.patch.dict(os.environ, env, clear=True):
            rc, out, _ = testlib.run(lambda: verdict.main([
                testlib.SUITES, "regress", logs, "--header", header,
                "--results", self.path("results")]))
        return rc, out.splitlines()

    def test_verdict(self) -> None:
        rc, out = self.verdict(data(PATCHED))
        self.assertEqual(rc, 0)
        self.assertEqual(out[-1], "regress: 11 passed, 0 failed")
        self.assertIn("         wrote %s" % self.path("results/regress.md"), out)
        with open(self.path("results/regress.md")) as f:
            self.assertIn("qemu_args=-accel tcg,thread=single -cpu EPYC,+svm,+npt,+pku", f.read())

    def test_verdict_splat(self) -> None:
        # The same run with a WARN in the patched kernel's console.
        rc, out = self.verdict(warned(self.tmp))
        self.assertEqual(rc, 1)
        self.assertEqual(out[-1], "regress: 10 passed, 1 failed")
        self.assertTrue([x for x in out if x.startswith(
            "FAILED   patched, npt=0: console without kernel splats (1, first: ")])


if __name__ == "__main__":
    unittest.main(verbosity=2)
