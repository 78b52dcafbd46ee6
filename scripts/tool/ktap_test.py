#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of ktap: console logs of real guests in the KTAP form that
the suites' runner prints (test_data/guest-*.log, regress-*, hmm-tests-*),
and a kernel that runs KUnit at boot (test_data/kunit-boot.log)."""

import os
import sys
import unittest
from typing import List
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ktap  # noqa: E402
import testlib  # noqa: E402
from testlib import lines, read  # noqa: E402

QEMU = "GUEST-QEMU: qemu-system-x86_64 -m 4G"
START = "GUEST: kernel 7.2.8 x86_64 kvm_amd.npt=Y hugepages=64"


def runner(*tests: str) -> List[str]:
    """A payload of runner.sh: TESTS are "NAME RESULT" (ok, fail, skip)."""
    out = ["TAP version 13", "1..%d" % len(tests)]
    for n, spec in enumerate(tests, 1):
        name, res = spec.split()
        out += ["# timeout set to 45", "# selftests: s: " + name, "# out of " + name]
        out.append({"ok": "ok %d selftests: s: %s" % (n, name),
                    "skip": "ok %d selftests: s: %s # SKIP" % (n, name),
                    "fail": "not ok %d selftests: s: %s # exit=1" % (n, name),
                    "timeout": "not ok %d selftests: s: %s # TIMEOUT 45 seconds" % (n, name)}[res])
    return out


class LogTest(unittest.TestCase):
    def test_pass(self) -> None:
        g = read("guest-pass.log")
        self.assertTrue(g.started)
        self.assertEqual(g.planned, 1)
        self.assertEqual(list(g.results), ["perm_upgrade_test"])
        r = g.result("perm_upgrade_test")
        assert r is not None
        self.assertEqual(r.status, "pass")
        # The test's own output, the runner's "# " dropped once.
        self.assertEqual(r.log[:4], ["timeout set to 45",
                                     "selftests: kvm-selftest: perm_upgrade_test",
                                     "Random seed: 0x6b8b4567", "TAP version 13"])
        self.assertIn("ok 12 uffd-wp/hugetlb: upgrade", r.log)
        self.assertEqual(r.log[-1], "# Totals: pass:12 fail:0 xfail:0 xpass:0 skip:0 error:0")
        self.assertIsNone(g.result("stress"))
        self.assertEqual(g.splats, [])
        self.assertIsNone(g.kunit)
        self.assertEqual(g.lines, lines("guest-pass.log"))

    def test_fail(self) -> None:
        g = read("guest-fail.log")
        r = g.result("perm_upgrade_test")
        assert r is not None
        self.assertEqual(r.status, "fail")
        self.assertIn("not ok 2 mprotect/anon-4k: upgrade", r.log)

    def test_many(self) -> None:
        g = read("hmm-tests-base.log")
        self.assertEqual(g.planned, 14)
        self.assertEqual(len(g.results), 14)
        self.assertEqual(sorted(n for n, r in g.results.items() if r.status == "fail"),
                         ["hmm.prot_upgrade_hugetlb", "hmm.prot_upgrade_mprotect",
                          "hmm.prot_upgrade_thp", "hmm.prot_upgrade_uffd_wp",
                          "hmm.prot_upgrade_uffd_wp_thp"])
        # Each test's lines are its own.
        r = g.result("hmm.prot_race_mprotect")
        assert r is not None
        self.assertEqual([x for x in r.log if "hmm-tests.c" in x],
                         ["# hmm-tests.c:1609:prot_race_mprotect:768 cycles, 564 device writes "
                          "landed, 1645 refused"])

    def test_status(self) -> None:
        g = ktap.parse("x.log", [QEMU, START] + runner("a ok", "b skip", "c fail", "d timeout"))
        self.assertEqual({n: r.status for n, r in g.results.items()},
                         {"a": "pass", "b": "skip", "c": "fail", "d": "fail"})
        self.assertEqual(g.results["b"].log, ["timeout set to 45", "selftests: s: b", "out of b"])
        self.assertEqual(g.planned, 4)
        # A name that is not runner.sh's stays as it is.
        g = ktap.parse("x.log", [START, "TAP version 13", "1..1", "ok 1 a: b"])
        self.assertEqual(list(g.results), ["a: b"])

    def test_cut_short(self) -> None:
        # The guest died in the second of three tests: no result for it,
        # none made up, and the panic is a splat.
        text = [QEMU, START] + runner("a ok", "b ok", "c ok")[:-5] + [
            "[    9.000000] Kernel panic - not syncing: Fatal exception"]
        g = ktap.parse("x.log", text)
        self.assertEqual(g.planned, 3)
        self.assertEqual(list(g.results), ["a"])
        self.assertEqual([s.kind for s in g.splats], ["panic"])

    def test_never_started(self) -> None:
        g = read("guest-early-panic.log")
        self.assertFalse(g.started)
        self.assertEqual((g.results, g.planned, g.payload), ({}, -1, []))
        self.assertIn("panic", [s.kind for s in g.splats])
        self.assertTrue(g.qemu and g.qemu.startswith("qemu-system-x86_64 "))
        # Without "GUEST: kernel" a KTAP document is the kernel's, not the
        # payload's.
        g = ktap.parse("x.log", [QEMU] + runner("a ok"))
        self.assertFalse(g.started)
        self.assertEqual(g.results, {})

    def test_no_log(self) -> None:
        g = ktap.read(os.path.join(testlib.DATA, "no-such.log"))
        self.assertEqual((g.lines, g.started, g.qemu, g.results, g.splats),
                         ([], False, None, {}, []))
        self.assertEqual(g.path, os.path.join(testlib.DATA, "no-such.log"))

    def test_payload(self) -> None:
        # After "GUEST: kernel": runner.sh's "# " dropped once, "#" alone
        # empty, the kernel's and the runner's own lines as they are.
        text = [QEMU, "[ 0.1] boot", START, "TAP version 13", "1..1", "# # BENCH x=1",
                "# BENCH-MEM y=2", "#", "[ 1.0] kmsg", "#x", "ok 1 selftests: s: a"]
        g = ktap.parse("x.log", text)
        self.assertEqual(g.payload, ["TAP version 13", "1..1", "# BENCH x=1", "BENCH-MEM y=2",
                                     "", "[ 1.0] kmsg", "#x", "ok 1 selftests: s: a"])
        self.assertEqual(g.qemu, "qemu-system-x86_64 -m 4G")
        # Old-format data lines (no runner) read the same.
        self.assertEqual(read("bench-synth-base-npt1.log").payload[0][:11], "BENCH-INFO ")
        self.assertEqual(ktap.parse("x", testlib.as_runner(lines("bench-synth-base-npt1.log")))
                         .payload, read("bench-synth-base-npt1.log").payload)

    def test_qemu_args(self) -> None:
        args = ktap.qemu_args(read("guest-pass.log"))
        self.assertTrue(args.startswith("-accel tcg,thread=single -cpu EPYC,+svm,+npt -m 4G"),
                        args)
        for word in ("-kernel", "-initrd", "-append", "console=ttyS0", "bzImage"):
            self.assertNotIn(word, args)
        g = ktap.parse("x", ["GUEST-QEMU: qemu -m 1 -monitor unix:/x -kernel k -smp 2 "
                             "-append 'a b'"])
        self.assertEqual(ktap.qemu_args(g), "-m 1 -smp 2")
        self.assertEqual(ktap.qemu_args(ktap.parse("x", [START])), "?")
        self.assertEqual(ktap.qemu_args(ktap.parse("x", ["GUEST-QEMU: qemu -append 'a"])), "?")
        # The first QEMU line is the runner's.
        g = ktap.parse("x", [QEMU, "GUEST-QEMU: other"])
        self.assertEqual(ktap.qemu_args(g), "-m 4G")


class KunitTest(unittest.TestCase):
    def test_kunit_at_boot(self) -> None:
        g = read("kunit-boot.log", kunit=True)
        # Leaf cases: 7 + 5 passed (two parameterised cases of 2), 6 skipped.
        self.assertEqual(g.kunit, {"passed": 12, "failed": 0, "skipped": 6})
        # The payload's KTAP is apart from it.
        self.assertEqual(list(g.results), ["perm_upgrade_test"])
        self.assertEqual(g.splats, [])
        self.assertIsNone(read("kunit-boot.log").kunit)

    def test_kunit_failed(self) -> None:
        text = lines("kunit-boot.log")
        i = text.index(next(x for x in text if x.endswith("    ok 2 mprotect_rw_to_r")))
        text[i] = text[i].replace("ok 2", "not ok 2")
        i = text.index(next(x for x in text if x.endswith("        ok 2 uffd-wp")))
        text[i] = text[i].replace("ok 2", "not ok 2")
        self.assertEqual(ktap.parse("x", text, True).kunit,
                         {"passed": 10, "failed": 2, "skipped": 6})
        # A kernel that printed no KUnit KTAP: nothing passed, an error.
        k = ktap.parse("x", lines("guest-pass.log"), True).kunit
        assert k is not None
        self.assertEqual(k["passed"], 0)
        self.assertGreater(k["failed"], 0)

    def test_kunit_dir(self) -> None:
        bad = os.path.join(testlib.DATA, "no-kunit")
        text = [START] + runner("a ok")
        with mock.patch.dict(os.environ, {"KPU_KUNIT": bad}):
            with self.assertRaises(OSError) as cm:
                ktap.parse("x", text)
        self.assertIn("no kunit_parser.py in %s" % bad, str(cm.exception))
        self.assertIn("KPU_KUNIT", str(cm.exception))
        # Without KPU_KUNIT, the tree's (KPU_TREE).
        env = {k: v for k, v in os.environ.items() if k != "KPU_KUNIT"}
        env["KPU_TREE"] = bad
        with mock.patch.dict(os.environ, env, clear=True):
            with self.assertRaises(OSError) as cm:
                ktap.parse("x", text)
        self.assertIn(os.path.join(bad, "tools", "testing", "kunit"), str(cm.exception))
        # A log without KTAP needs no parser.
        with mock.patch.dict(os.environ, {"KPU_KUNIT": bad}):
            self.assertTrue(ktap.parse("x", [START, "hello"]).started)


if __name__ == "__main__":
    unittest.main(verbosity=2)
