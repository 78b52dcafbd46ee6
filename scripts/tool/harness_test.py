#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of harness.py, the command line: each command's output and
exit status, and bad input (exit status 2, one line on stderr, nothing
written).  The modules behind it have tests of their own."""

import json
import os
import shutil
import sys
import unittest
from typing import Dict, List, Optional, Tuple
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import testlib  # noqa: E402
from testlib import data, lines  # noqa: E402

COMMANDS = ("plan", "verdict", "splat", "kunit", "counts", "changelog", "audit", "sender")
# The environment of a run: none of the narrowing of a guest suite.
CLEAN = {k: v for k, v in os.environ.items() if not k.startswith("KPU_") or k == "KPU_KUNIT"}


class CliTest(testlib.TmpTest):
    def harness(self, *argv: str, env: Optional[Dict[str, str]] = None) -> Tuple[int, str, str]:
        with mock.patch.dict(os.environ, dict(CLEAN, **(env or {})), clear=True):
            return testlib.run(lambda: harness.main(list(argv)))

    def bad(self, *argv: str, what: str = "", env: Optional[Dict[str, str]] = None) -> None:
        """Bad input: exit status 2, one line on stderr naming the command,
        nothing on stdout."""
        rc, out, err = self.harness(*argv, env=env)
        self.assertEqual((rc, out), (2, ""), argv)
        self.assertEqual(err.count("\n"), 1, err)
        self.assertTrue(err.startswith("harness.py %s: error: " % argv[0]), err)
        self.assertIn(what, err)

    def usage(self, *argv: str) -> None:
        rc, out, err = self.harness(*argv)
        self.assertEqual((rc, out), (2, ""), argv)
        self.assertTrue(err.startswith("The harness's Python half"), err)
        for c in COMMANDS:
            self.assertIn("harness.py %s " % c, err)

    def test_usage(self) -> None:
        self.usage()
        self.usage("guest", data("guest-pass.log"))
        self.usage("bench")
        self.usage("watchdog")
        for argv in (["splat"], ["kunit", "x"], ["counts", "x", "0"], ["changelog"],
                     ["audit", "a", "b", "c", "d"]):
            self.usage(*argv)

    def test_plan(self) -> None:
        out_dir = self.path("payload")
        rc, out, err = self.harness("plan", testlib.SUITES, "stress-arm64", out_dir,
                                    env={"KPU_SEED": "9"})
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out.splitlines()[:3], ["suite stress-arm64 arm64 kselftest",
                                                "var SEED 9", "var OPS 50000"])
        self.assertTrue(os.path.exists(os.path.join(out_dir, "stress-arm64", "stress")))

    def test_plan_bad(self) -> None:
        self.bad("plan", testlib.SUITES, "kvm-selftest", what="usage: plan SUITES NAME OUTDIR")
        self.bad("plan", self.path("none"), "kvm-selftest", self.tmp, what="No such file")
        self.bad("plan", testlib.SUITES, "nope", self.tmp, what="no suite 'nope'")
        broken = testlib.write(self.path("suites"), "suite s\nkernels base\nmodes 2\n")
        self.bad("plan", broken, "s", self.tmp, what="%s:3: modes of x86_64 are 1 0, not 2"
                 % broken)
        self.bad("plan", testlib.SUITES, "kvm-selftest", self.tmp, env={"KPU_TESTS": "nope"},
                 what="kvm-selftest has no test nope")
        self.bad("plan", testlib.SUITES, "kvm-selftest", self.tmp, env={"KPU_OPS": "1;2"},
                 what="KPU_OPS: '1;2' is not a plain word")
        self.assertEqual(os.listdir(self.tmp), ["suites"])

    def test_verdict(self) -> None:
        logs = self.path("logs")
        os.mkdir(logs)
        shutil.copy(data("guest-fail.log"), os.path.join(logs, "patched-1.log"))
        shutil.copy(data("guest-pass.log"), os.path.join(logs, "patched-0.log"))
        env = {"KPU_TESTS": "perm_upgrade_test", "KPU_KERNELS": "patched"}
        rc, out, err = self.harness("verdict", testlib.SUITES, "kvm-selftest", logs, env=env)
        self.assertEqual((rc, err), (1, ""))
        self.assertEqual(out.splitlines()[0], "FAILED   patched, npt=1: perm_upgrade_test: fail")
        self.assertEqual(out.splitlines()[-1], "kvm-selftest: 3 passed, 1 failed")
        shutil.copy(data("guest-pass.log"), os.path.join(logs, "patched-1.log"))
        rc, out, _ = self.harness("verdict", testlib.SUITES, "kvm-selftest", logs,
                                  env=dict(env, KPU_SUITE="kvm-selftest-patched"))
        self.assertEqual((rc, out.splitlines()[-1]),
                         (0, "kvm-selftest-patched: 4 passed, 0 failed"))

    def test_verdict_bad(self) -> None:
        self.bad("verdict", testlib.SUITES, "kvm-selftest", what="usage: verdict SUITES NAME")
        self.bad("verdict", testlib.SUITES, "kvm-selftest", self.tmp, "--results", self.tmp,
                 what="usage: verdict")
        self.bad("verdict", testlib.SUITES, "nope", self.tmp, what="no suite 'nope'")
        self.bad("verdict", self.path("none"), "kvm-selftest", self.tmp, what="No such file")
        self.bad("verdict", testlib.SUITES, "kvm-selftest", self.tmp,
                 env={"KPU_KERNELS": "prior"}, what="kvm-selftest has no kernel prior")
        # A header that is not there: nothing written.
        self.bad("verdict", testlib.SUITES, "kvm-selftest", self.tmp, "--header",
                 self.path("none"), "--results", self.path("results"),
                 env={"KPU_KERNELS": "patched"}, what="No such file")
        self.assertFalse(os.path.exists(self.path("results")))

    def test_splat(self) -> None:
        rc, out, err = self.harness("splat", data("guest-pass.log"), data("guest-fail.log"))
        self.assertEqual((rc, out, err), (0, "", ""))
        rc, out, _ = self.harness("splat", data("guest-pass.log"), data("guest-warn.log"),
                                  data("guest-early-panic.log"))
        self.assertEqual(rc, 1)
        said = out.splitlines()
        self.assertEqual(len(said), 2)
        self.assertTrue(said[0].startswith(data("guest-warn.log") + ":"), said[0])
        self.assertIn(": warn: [    3.452656] WARNING: ", said[0])
        n = next(i for i, x in enumerate(lines("guest-early-panic.log"), 1) if "Kernel panic" in x)
        self.assertTrue(said[1].startswith("%s:%d: panic: " % (data("guest-early-panic.log"), n)))

    def test_splat_bad(self) -> None:
        self.bad("splat", data("guest-pass.log"), self.path("none.log"), what="No such file")

    def test_changelog(self) -> None:
        # The fixtures carry the placeholder Signed-off-by that series/
        # had then: only --signed (make out's output) accepts it.
        rc, out, _ = self.harness("changelog", "--signed", data("changelog-clean.patch"))
        self.assertEqual((rc, out), (0, ""))
        rc, out, _ = self.harness("changelog", data("changelog-clean.patch"))
        self.assertEqual((rc, out.split(":")[1]), (1, "40"))
        rc, out, _ = self.harness("changelog", "--signed", data("changelog-clean.patch"),
                                  data("changelog-rebase-text.patch"))
        self.assertEqual(rc, 1)
        self.assertEqual([x.split(":")[1] for x in out.splitlines()], ["38", "40", "42", "47"])
        self.assertTrue(out.startswith(data("changelog-rebase-text.patch") + ":38: "))
        self.bad("changelog", self.path("none.patch"), what="No such file")

    def test_sender(self) -> None:
        # The placeholder is refused, with a clear error, and the patch is
        # left as it was; a person becomes its From:.
        p = testlib.write(self.path("p.patch"), "From: Seed <s@x.example>\nSubject: x\n\nBody\n")
        rc, out, err = self.harness("sender", "Seed <s@x.example>", "", p)
        self.assertEqual(rc, 2)
        self.assertIn("is not a sender who can sign off", err)
        self.assertEqual(self.text("p.patch"), "From: Seed <s@x.example>\nSubject: x\n\nBody\n")
        rc, out, err = self.harness("sender", "Jane Doe <jane@kernel.org>", "Seed <s@x.example>", p)
        self.assertEqual((rc, out, err), (0, "Jane Doe <jane@kernel.org>\n", ""))
        self.assertEqual(self.text("p.patch"), "From: Jane Doe <jane@kernel.org>\nSubject: x\n\nBody\n")

    def test_kunit(self) -> None:
        rc, out, _ = self.harness("kunit", "kunit-um", data("kunit-um.json"))
        self.assertEqual((rc, out), (0, "kunit-um: 267 passed, 0 failed, 263 skipped\n"))
        p = self.path("k.json")
        with open(p, "w") as f:
            json.dump({"misc": {"passed": 1, "failed": 0, "crashed": 1, "errors": 0}}, f)
        rc, out, _ = self.harness("kunit", "k", p)
        self.assertEqual((rc, out), (1, "k: 1 passed, 1 failed\n"))

    def test_kunit_bad(self) -> None:
        self.bad("kunit", "k", self.path("none.json"), what="No such file")
        self.bad("kunit", "k", testlib.write(self.path("t.json"), "not json"),
                 what="Expecting value")
        self.bad("kunit", "k", testlib.write(self.path("m.json"), "{}"), what="'misc'")

    def test_counts(self) -> None:
        log = testlib.write(self.path("out.log"), "x: 3 passed, 1 failed, 2 skipped\n")
        rc, out, _ = self.harness("counts", "x", "0", log)
        self.assertEqual((rc, out), (0, "3 1 2\n"))
        rc, out, _ = self.harness("counts", "x", "1", testlib.write(log, "x: 3 passed, 0 failed\n"))
        self.assertEqual((rc, out), (0, "3 1 0\n"))
        # No output at all: one failure.
        rc, out, _ = self.harness("counts", "x", "0", self.path("none.log"))
        self.assertEqual((rc, out), (0, "0 1 0\n"))
        self.bad("counts", "x", "one", log, what="invalid literal for int()")

    def audit_dir(self, series: bool = True) -> str:
        work = self.path("audit")
        os.makedirs(work, exist_ok=True)
        shutil.copy(data("audit-coccicheck.log"), os.path.join(work, "coccicheck.log"))
        shutil.copy(data("audit-grep.txt"), os.path.join(work, "grep"))
        testlib.write(os.path.join(work, "files"), "f\n" * 68)
        if series:
            testlib.write(os.path.join(work, "series.log"), "")
        return work

    def test_audit(self) -> None:
        work = self.audit_dir()
        rc, out, _ = self.harness("audit", "/TREE", "x.cocci", work, "20", "0")
        self.assertEqual(rc, 0)
        self.assertEqual(out.splitlines()[-1], "audit: 74 passed, 0 failed")
        # coccicheck failed: its last lines, and a failure.
        rc, out, _ = self.harness("audit", "/TREE", "x.cocci", work, "20", "2")
        self.assertEqual(rc, 1)
        self.assertIn("coccicheck failed (exit status 2), last lines of %s:"
                      % os.path.join(work, "coccicheck.log"), out)
        self.assertEqual(out.splitlines()[-1], "audit: 73 passed, 1 failed")
        # The series' script not run: a failure.
        work = self.audit_dir(series=False)
        os.remove(os.path.join(work, "series.log"))
        rc, out, _ = self.harness("audit", "/TREE", "x.cocci", work, "20", "0")
        self.assertEqual((rc, out.splitlines()[-1]), (1, "audit: 73 passed, 1 failed"))

    def test_audit_bad(self) -> None:
        self.bad("audit", "/TREE", "x.cocci", self.path("none"), "20", "0", what="No such file")
        work = self.audit_dir()
        self.bad("audit", "/TREE", "x.cocci", work, "soon", "0", what="invalid literal")
        os.remove(os.path.join(work, "files"))
        self.bad("audit", "/TREE", "x.cocci", work, "20", "0", what="files")

    def test_every_command_documented(self) -> None:
        self.assertEqual(sorted(harness.COMMANDS), sorted(COMMANDS))
        doc = harness.__doc__ or ""
        for c in COMMANDS:
            self.assertIn("    harness.py %s" % c, doc)


if __name__ == "__main__":
    unittest.main(verbosity=2)
