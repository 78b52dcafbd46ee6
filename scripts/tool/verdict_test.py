#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of verdict: small suite entries judged on console logs of
real guests in KTAP form (test_data/guest-*, regress-*, rdma-odp-*,
hmm-tests-*, kunit-boot.log), the comparison of two kernels, what a
mutant run counts as caught, and the CLI end to end on a directory of
logs."""

import os
import shutil
import sys
import unittest
from typing import Dict, List, Optional, Tuple
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ktap  # noqa: E402
import suites  # noqa: E402
import testlib  # noqa: E402
import verdict  # noqa: E402
from testlib import data, lines, read  # noqa: E402

KVM = ("suite kvm\nkernels patched base\nmodes 1 0\n"
       "test perm_upgrade_test kvm:x86/perm_upgrade_test ; base=fail\n")
# The environment of a verdict: none of the narrowing of a run.
CLEAN = {k: v for k, v in os.environ.items()
         if k not in ("KPU_TESTS", "KPU_KERNELS", "KPU_MODES", "KPU_PRIOR_KERNEL",
                      "KPU_CATCH", "KPU_SUITE", "KPU_TREE")}


def suite(text: str, name: str) -> suites.Suite:
    return suites.parse(text)[name]


def judge(s: suites.Suite, logs: Dict[str, ktap.Log]) -> Tuple[List[str], Tuple[int, ...]]:
    """The verdict of S's boots, each with the log of its id in LOGS (a
    boot without one: no log)."""
    runs = [(r, logs.get(r.id) or ktap.read("/nonexistent/%s.log" % r.id, s.kunit))
            for r in s.runs()]
    out, c = verdict.judge(s, runs)
    return out, tuple(c)


def result(status: str, log: Optional[List[str]] = None) -> ktap.Result:
    return ktap.Result(status, log or [])


def totals(fail: int, error: int = 0) -> List[str]:
    return ["# Totals: pass:3 fail:%d xfail:0 xpass:0 skip:0 error:%d" % (fail, error)]


class WorseTest(unittest.TestCase):
    def test_rank(self) -> None:
        # pass > skip > fail > no result.
        order = [result("pass"), result("skip"), result("fail"), None]
        for i, a in enumerate(order):
            for j, b in enumerate(order):
                self.assertEqual(verdict.worse(a, b), i > j, (a, b))

    def test_totals(self) -> None:
        # Two fails: more failing subtests (errors count) is worse.
        f1, f2 = result("fail", totals(1)), result("fail", totals(2))
        self.assertTrue(verdict.worse(f2, f1))
        self.assertFalse(verdict.worse(f1, f2))
        self.assertFalse(verdict.worse(f1, f1))
        self.assertTrue(verdict.worse(result("fail", totals(1, 1)), f1))
        # Without a Totals line on either side, not worse.
        self.assertFalse(verdict.worse(f2, result("fail")))
        self.assertFalse(verdict.worse(result("fail"), f1))
        # Two passes are never worse, whatever their lines say.
        self.assertFalse(verdict.worse(result("pass", totals(2)), result("pass", totals(0))))

    def test_totals_failed(self) -> None:
        self.assertEqual(verdict.totals_failed(result("fail", totals(4, 2))), 6)
        # The last Totals line counts (a test that ran twice).
        self.assertEqual(verdict.totals_failed(result("fail", totals(4) + totals(1))), 1)
        self.assertIsNone(verdict.totals_failed(result("fail", ["# Totals: pass:1"])))
        self.assertIsNone(verdict.totals_failed(result("fail", ["# Totals: fail:x"])))
        self.assertIsNone(verdict.totals_failed(result("fail", ["Totals: fail:1"])))
        self.assertIsNone(verdict.totals_failed(None))
        # On a real log: the test's own Totals (runner's "# " dropped).
        r = read("regress-base-npt0.log").result("perm_upgrade_test")
        self.assertEqual(verdict.totals_failed(r), 6)


class JudgeTest(testlib.TmpTest):
    def test_expected(self) -> None:
        s = suite(KVM, "kvm")
        out, c = judge(s, {"patched-1": read("guest-pass.log"), "base-1": read("guest-fail.log"),
                           "patched-0": read("guest-pass.log"),
                           "base-0": read("guest-fail.log")})
        self.assertEqual(c, (8, 0, 0))
        self.assertEqual(out[:4], [
            "ok       patched, npt=1: perm_upgrade_test: pass",
            "ok       patched, npt=1: console without kernel splats",
            "ok       patched, npt=0: perm_upgrade_test: pass",
            "ok       patched, npt=0: console without kernel splats"])
        self.assertIn("ok       base, npt=1: perm_upgrade_test: fail (expected fail)", out)
        # The other way round: both wrong.
        out, c = judge(s, {"patched-1": read("guest-fail.log"), "base-1": read("guest-pass.log"),
                           "patched-0": read("guest-pass.log"),
                           "base-0": read("guest-fail.log")})
        self.assertEqual(c, (6, 2, 0))
        self.assertIn("FAILED   patched, npt=1: perm_upgrade_test: fail", out)
        self.assertIn("FAILED   base, npt=1: perm_upgrade_test: pass (expected fail)", out)

    def test_skip(self) -> None:
        text = "suite s\nkernels patched\nmodes 1\ntest a ./a ; patched=skip\ntest b ./b\n"
        log = ["GUEST: kernel x", "TAP version 13", "1..2", "# selftests: s: a",
               "ok 1 selftests: s: a # SKIP", "# selftests: s: b", "ok 2 selftests: s: b # SKIP"]
        out, c = judge(suite(text, "s"), {"patched-1": ktap.parse("x", log)})
        self.assertEqual(out[:2], ["ok       patched, npt=1: a: skip (expected skip)",
                                   "FAILED   patched, npt=1: b: skip"])
        self.assertEqual(c, (2, 1, 0))

    def test_no_result(self) -> None:
        # A guest that never started its tests, and a boot without a log:
        # each test fails, even one expected to fail.
        s = suite(KVM, "kvm")
        panic = read("guest-early-panic.log")
        out, c = judge(s, {"patched-1": panic, "base-1": read("guest-fail.log"),
                           "patched-0": read("guest-pass.log")})
        self.assertEqual(out[:3], [
            "         patched, npt=1: the guest never started the tests (%s)"
            % data("guest-early-panic.log"),
            "FAILED   patched, npt=1: perm_upgrade_test: no result",
            "FAILED   patched, npt=1: console without kernel splats (1, first: %s)"
            % panic.splats[0].where(panic.path)])
        self.assertIn("         base, npt=0: no log /nonexistent/base-0.log", out)
        self.assertIn("FAILED   base, npt=0: perm_upgrade_test: no result (expected fail)", out)
        self.assertIn("ok       base, npt=0: console without kernel splats", out)
        self.assertEqual(c, (5, 3, 0))

    def test_splats(self) -> None:
        # The test passes; its console has a WARN.
        s = suite(KVM, "kvm")
        warn = read("guest-warn.log")
        out, c = judge(s, {"patched-0": warn})
        self.assertIn("ok       patched, npt=0: perm_upgrade_test: pass", out)
        line = next(x for x in out if "patched, npt=0: console" in x)
        self.assertTrue(line.startswith("FAILED   patched, npt=0: console without kernel splats "
                                        "(1, first: %s:" % data("guest-warn.log")), line)
        self.assertIn("warn: [    3.452656] WARNING: arch/x86/kvm/../../../virt/kvm/kvm_main.c:894 "
                      "at kvm_mmu_notifier_invalidate_range_start", line)
        # More than one: the first in the line, the next nine below it.
        text = lines("guest-pass.log") + ["[ 9.0] BUG: soft lockup - CPU#%d stuck" % i
                                          for i in range(12)]
        out, _ = judge(s, {"patched-1": ktap.parse("p.log", text)})
        i = out.index(next(x for x in out if "patched, npt=1: console" in x))
        self.assertIn("(12, first: p.log:%d: soft-lockup: " % (len(text) - 11), out[i])
        self.assertEqual(out[i + 1], "         p.log:%d: soft-lockup: [ 9.0] BUG: soft lockup - "
                         "CPU#1 stuck" % (len(text) - 10))
        self.assertEqual(len([x for x in out[i + 1:] if x.startswith("         p.log:")]), 9)

    def test_labels(self) -> None:
        s = real("kvm-selftest")
        r = {x.id: x for x in s.runs()}
        self.assertEqual(verdict.label(s, r["patched-hmm-race-1"]),
                         "patched, npt=1, hmm-race boot")
        self.assertEqual(verdict.label(s, r["base-0"]), "base, npt=0")
        a = real("kvm-selftest-arm64")
        self.assertEqual(verdict.label(a, a.runs()[2]), "patched, protected")

    def test_extra_results(self) -> None:
        text = "suite s\nkernels patched\nmodes 1\ntest perm_upgrade_test ./x\n"
        out, c = judge(suite(text, "s"), {"patched-1": read("guest-debug-pass.log")})
        self.assertIn("         patched, npt=1: results of tests the entry does not name: stress",
                      out)
        self.assertEqual(c, (2, 0, 0))

    def test_compare(self) -> None:
        # regress on npt=0: patched passes perm_upgrade_test, base fails
        # it; the others pass on both.
        s = real("regress")
        suites.select(s, [], [], ["0"])
        logs = {"patched-0": read("regress-patched-npt0.log"),
                "base-0": read("regress-base-npt0.log")}
        out, c = judge(s, logs)
        self.assertEqual(c, (9 + 2, 0, 0))
        self.assertIn("ok       patched, npt=0: perm_upgrade_test: pass (base: fail)", out)
        self.assertIn("         base, npt=0: perm_upgrade_test: fail (the reference)", out)
        self.assertIn("ok       patched, npt=0: guest_memfd_test: pass (base: pass)", out)
        # The other way round: worse on one.
        out, c = judge(s, {"patched-0": logs["base-0"], "base-0": logs["patched-0"]})
        self.assertEqual(c, (10, 1, 0))
        self.assertIn("FAILED   patched, npt=0: perm_upgrade_test: fail (base: pass)", out)
        # No result on either kernel is no pass.
        out, c = judge(s, {"patched-0": ktap.parse("p", ["GUEST: kernel x"]),
                           "base-0": ktap.parse("b", ["GUEST: kernel x"])})
        self.assertEqual(c, (2, 9, 0))
        self.assertIn("FAILED   patched, npt=0: guest_memfd_test: no result (base: no result)",
                      out)

    def test_compare_totals(self) -> None:
        # Both fail perm_upgrade_test: worse when more of its subtests fail.
        base = read("regress-base-npt0.log")
        s = suite("suite r\nkernels patched base\nmodes 0\ncompare base\n"
                  "test perm_upgrade_test kvm:x86/perm_upgrade_test\n", "r")
        for fails, ok in ((6, True), (5, True), (7, False)):
            text = [x.replace("# # Totals: pass:6 fail:6 ", "# # Totals: pass:6 fail:%d " % fails)
                    for x in base.lines]
            out, c = judge(s, {"patched-0": ktap.parse("p", text), "base-0": base})
            self.assertEqual(out[0], "%-8s patched, npt=0: perm_upgrade_test: fail (base: fail)"
                             % ("ok" if ok else "FAILED"), fails)

    def test_compare_per_test(self) -> None:
        # rdma-odp: rxe_odp fails on base by design; test_odp fails on both
        # (rdma-core's huge-page cases) and is judged against base.
        s = real("rdma-odp")
        out, c = judge(s, {"patched-1": read("rdma-odp-patched.log"),
                           "base-1": read("rdma-odp-base.log")})
        self.assertEqual(out, [
            "ok       patched, npt=1: rxe_odp: pass",
            "ok       patched, npt=1: test_odp: fail (base: fail)",
            "ok       patched, npt=1: console without kernel splats",
            "ok       base, npt=1: rxe_odp: fail (expected fail)",
            "         base, npt=1: test_odp: fail (the reference)",
            "ok       base, npt=1: console without kernel splats"])
        self.assertEqual(c, (5, 0, 0))
        # The logs the other way round: rxe_odp is wrong on both kernels;
        # test_odp still fails on both.
        out, c = judge(s, {"patched-1": read("rdma-odp-base.log"),
                           "base-1": read("rdma-odp-patched.log")})
        self.assertEqual([x for x in out if x.startswith("FAILED")], [
            "FAILED   patched, npt=1: rxe_odp: fail",
            "FAILED   base, npt=1: rxe_odp: pass (expected fail)"])
        self.assertEqual(c, (3, 2, 0))

    def test_kunit(self) -> None:
        s = suite("suite d\nkernels debug\nmodes 1 0\nkunit\n"
                  "test perm_upgrade_test kvm:x86/perm_upgrade_test\n", "d")
        out, c = judge(s, {"debug-1": read("kunit-boot.log", kunit=True),
                           "debug-0": read("guest-pass.log", kunit=True)})
        self.assertEqual(out[:3], [
            "ok       debug, npt=1: perm_upgrade_test: pass",
            "ok       debug, npt=1: KUnit at boot: 12 passed, 0 failed, 6 skipped",
            "ok       debug, npt=1: console without kernel splats"])
        # A boot whose kernel ran no KUnit test fails, once.
        self.assertIn("FAILED   debug, npt=0: KUnit at boot: no test ran", out)
        self.assertEqual(c, (1 + 12 + 1 + 1 + 1, 1, 6))
        # A failed KUnit case counts as failed.
        text = [x.replace("    ok 3 mprotect_rw_to_rx", "    not ok 3 mprotect_rw_to_rx")
                for x in lines("kunit-boot.log")]
        suites.select(s, [], [], ["1"])
        out, c = judge(s, {"debug-1": ktap.parse("k", text, True)})
        self.assertIn("FAILED   debug, npt=1: KUnit at boot: 11 passed, 1 failed, 6 skipped", out)
        self.assertEqual(c, (1 + 11 + 1, 1, 6))
        # Without kunit in the entry, KUnit's results do not count.
        s.kunit = False
        out, c = judge(s, {"debug-1": ktap.parse("k", text, False)})
        self.assertFalse([x for x in out if "KUnit" in x])
        self.assertEqual(c, (2, 0, 0))


def real(name: str) -> suites.Suite:
    return suites.load(testlib.SUITES)[name]


class CaughtTest(unittest.TestCase):
    def caught(self, s: suites.Suite, logs: Dict[str, ktap.Log]) -> Tuple[bool, List[str]]:
        return verdict.caught(s, [(r, logs[r.id]) for r in s.runs() if r.id in logs])

    def test_failed(self) -> None:
        s = suite(KVM, "kvm")
        hit, out = self.caught(s, {"patched-1": read("guest-fail.log"),
                                   "patched-0": read("guest-pass.log")})
        self.assertTrue(hit)
        self.assertEqual(out, ["caught: patched, npt=1: perm_upgrade_test failed"])

    def test_not_caught(self) -> None:
        s = suite(KVM, "kvm")
        hit, out = self.caught(s, {"patched-1": read("guest-pass.log"),
                                   "patched-0": ktap.parse("x", ["GUEST: kernel x"])})
        self.assertFalse(hit)
        self.assertEqual(out, ["not caught: every test passed or gave no result"])
        hit, out = self.caught(s, {})
        self.assertEqual((hit, out), (False, ["not caught: every test is missing"]))

    def test_splat(self) -> None:
        s = suite(KVM, "kvm")
        warn = read("guest-warn.log")
        hit, out = self.caught(s, {"patched-0": warn})
        self.assertTrue(hit)
        self.assertEqual(out, ["caught: patched, npt=0: " + warn.splats[0].where(warn.path)])
        # e2e counts only its own check: a splat alone is not caught.
        e = suite("suite e\nkernels patched\nmodes 0\npayload e2e\n"
                  "test anon-4k ./e2e-run anon-4k\n", "e")
        warn_e2e = ktap.parse("w", [x.replace("selftests: kvm-selftest: perm_upgrade_test",
                                              "selftests: e: anon-4k") for x in warn.lines])
        hit, out = self.caught(e, {"patched-0": warn_e2e})
        self.assertFalse(hit, out)
        fail_e2e = [x.replace("ok 1 selftests: e: anon-4k", "not ok 1 selftests: e: anon-4k")
                    for x in warn_e2e.lines]
        hit, out = self.caught(e, {"patched-0": ktap.parse("f", fail_e2e)})
        self.assertEqual((hit, out), (True, ["caught: patched, npt=0: anon-4k failed"]))


class MainTest(testlib.TmpTest):
    def setUp(self) -> None:
        super().setUp()
        self.logs = self.path("logs")
        os.mkdir(self.logs)
        self.suites = testlib.write(self.path("suites"), KVM + "report hmm-tests\n")

    def log(self, rid: str, fixture: str) -> None:
        shutil.copy(data(fixture), os.path.join(self.logs, rid + ".log"))

    def main(self, args: List[str], env: Optional[Dict[str, str]] = None) -> Tuple[int, str, str]:
        with mock.patch.dict(os.environ, dict(CLEAN, **(env or {})), clear=True):
            return testlib.run(lambda: verdict.main(args))

    def test_pass_and_fail(self) -> None:
        for rid, f in (("patched-1", "guest-pass.log"), ("patched-0", "guest-pass.log"),
                       ("base-1", "guest-fail.log"), ("base-0", "guest-fail.log")):
            self.log(rid, f)
        rc, out, err = self.main([self.suites, "kvm", self.logs])
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out.splitlines()[-1], "kvm: 8 passed, 0 failed")
        self.assertEqual(len(out.splitlines()), 9)
        # KPU_SUITE names the protocol line (make's target).
        rc, out, _ = self.main([self.suites, "kvm", self.logs], {"KPU_SUITE": "kvm-patched"})
        self.assertEqual(out.splitlines()[-1], "kvm-patched: 8 passed, 0 failed")
        # A boot whose log is missing: its test and nothing else fails.
        os.remove(os.path.join(self.logs, "base-0.log"))
        rc, out, _ = self.main([self.suites, "kvm", self.logs])
        self.assertEqual(rc, 1)
        self.assertIn("         base, npt=0: no log %s" % os.path.join(self.logs, "base-0.log"),
                      out)
        self.assertEqual(out.splitlines()[-1], "kvm: 7 passed, 1 failed")
        # Narrowed as the run was (KPU_KERNELS): the other boots are not read.
        rc, out, _ = self.main([self.suites, "kvm", self.logs], {"KPU_KERNELS": "patched"})
        self.assertEqual((rc, out.splitlines()[-1]), (0, "kvm: 4 passed, 0 failed"))

    def test_results(self) -> None:
        # With --results, the suite's report; the QEMU command from a log
        # when the header has none.
        s = testlib.write(self.path("suites2"), "suite kvm-selftest\nkernels patched base\n"
                          "modes 1\nreport hmm-tests\n" + "".join(
                              "test %s mm:hmm-tests ; base=%s\n" % (n, "fail" if "upgrade" in n
                                                                    else "pass")
                              for n in read("hmm-tests-base.log").results))
        self.log("patched-1", "hmm-tests-patched.log")
        self.log("base-1", "hmm-tests-base.log")
        header = testlib.write(self.path("header"), "date=2026-12-04\nnot a line\nargs=a=b\n")
        res = self.path("results")
        rc, out, err = self.main([s, "kvm-selftest", self.logs, "--header", header,
                                  "--results", res])
        self.assertEqual((rc, err), (0, ""), out)
        md = os.path.join(res, "hmm-tests.md")
        self.assertIn("         wrote %s" % md, out)
        self.assertEqual(out.splitlines()[-1], "kvm-selftest: 30 passed, 0 failed")
        with open(md) as f:
            text = f.read()
        self.assertIn("    date=2026-12-04\n    args=a=b\n    qemu_args=-accel tcg,thread=single "
                      "-cpu EPYC,+svm,+npt -m 4G", text)
        # Without a report, nothing is written.
        rc, out, _ = self.main([testlib.write(self.path("suites3"), KVM), "kvm", self.logs,
                                "--header", header, "--results", self.path("r3")])
        self.assertNotIn("wrote", out)

    def test_read_header(self) -> None:
        p = testlib.write(self.path("h"), "date=now\nqemu=QEMU 7.2 (x=y)\n\njunk\nempty=\n")
        self.assertEqual(verdict.read_header(p),
                         {"date": "now", "qemu": "QEMU 7.2 (x=y)", "empty": ""})

    def test_catch(self) -> None:
        self.log("patched-1", "guest-fail.log")
        self.log("patched-0", "guest-pass.log")
        rc, out, _ = self.main([self.suites, "kvm", self.logs],
                               {"KPU_CATCH": "1", "KPU_KERNELS": "patched"})
        self.assertEqual((rc, out), (0, "caught: patched, npt=1: perm_upgrade_test failed\n"))
        self.log("patched-1", "guest-pass.log")
        rc, out, _ = self.main([self.suites, "kvm", self.logs],
                               {"KPU_CATCH": "1", "KPU_KERNELS": "patched"})
        self.assertEqual((rc, out), (1, "not caught: every test passed or gave no result\n"))

    def test_bad_input(self) -> None:
        for args in ([self.suites, "kvm"], [self.suites, "kvm", self.logs, "x"],
                     [self.suites, "kvm", self.logs, "--results", self.tmp]):
            with self.assertRaises(ValueError) as cm:
                self.main(args)
            self.assertIn("usage: verdict SUITES NAME LOGDIR", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            self.main([self.suites, "nope", self.logs])
        self.assertEqual(str(cm.exception), "%s: no suite 'nope'" % self.suites)
        with self.assertRaises(ValueError):
            self.main([self.suites, "kvm", self.logs], {"KPU_TESTS": "nope"})
        with self.assertRaises(OSError):
            self.main([self.path("none"), "kvm", self.logs])


if __name__ == "__main__":
    unittest.main(verbosity=2)
