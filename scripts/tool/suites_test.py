#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of suites: guest/suites read into Suite objects (the real
file, and small entries for each way a line can be wrong), the boots it
plans, the payload scripts and the plan that guest-suite.sh carries out."""

import os
import sys
import unittest
from typing import Dict, List, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import suites  # noqa: E402
import testlib  # noqa: E402
from suites import Suite, SuiteError  # noqa: E402

HEAD = "suite s\nkernels base patched\nmodes 1 0\n"


def real() -> Dict[str, Suite]:
    """A fresh read of the repository's guest/suites."""
    return suites.load(testlib.SUITES)


def ids(s: Suite) -> List[str]:
    return [r.id for r in s.runs()]


def names(s: Suite, rid: str) -> List[str]:
    return [t.name for r in s.runs() if r.id == rid for t in r.tests]


class ParseTest(unittest.TestCase):
    """Every line that cannot be read is refused with FILE:LINE."""

    def bad(self, text: str, where: str, what: str) -> None:
        with self.assertRaises(SuiteError) as cm:
            suites.parse(text, "x/suites")
        msg = str(cm.exception)
        self.assertTrue(msg.startswith("x/suites:%s: " % where), msg)
        self.assertIn(what, msg)

    def test_suite_lines(self) -> None:
        self.bad("# c\n\nsuite\n", "3", "suite needs one NAME")
        self.bad("suite a b\n", "1", "suite needs one NAME")
        self.bad(HEAD + "suite s\n", "4", "a second suite 's'")
        self.bad("kernels base\nsuite s\n", "1", "'kernels' before the first suite line")

    def test_unreadable_lines(self) -> None:
        for line in ("arch sparc", "arch", "payload nfs", "payload", "var X", "var X 1 2",
                     "timeout", "mem", "cpu a b", "kunit yes", "compare", "report a b",
                     "include kvm", "build", "frobnicate 1", "kernels", "modes"):
            self.bad(HEAD + line + "\n", "4", "cannot read %r" % line)

    def test_skip(self) -> None:
        s = suites.parse(HEAD + "test t ./t\nskip patched 0 it hangs there\n")["s"]
        self.assertEqual(s.skips, {("patched", "0"): "it hangs there"})
        self.assertEqual(ids(s), ["base-1", "base-0", "patched-1"])
        self.assertIn("skip patched-0 it hangs there", list(suites.plan(s, {})))
        self.bad(HEAD + "skip other 1 why\n", "4",
                 "skip other 1: not a kernel and a mode of suite s")
        self.bad(HEAD + "skip base 1\n", "4", "cannot read")

    def test_values(self) -> None:
        self.bad(HEAD + "timeout 1h\n", "4", "'1h' is not a number")
        self.bad(HEAD + "mem -1\n", "4", "'-1' is not a number")
        self.bad(HEAD + "var X 'a\n", "4", "No closing quotation")
        self.bad(HEAD + "modes 1 2\n", "4", "modes of x86_64 are 1 0, not 2")
        self.bad("suite s\narch arm64\nmodes vhe 1\n", "3",
                 "modes of arm64 are vhe nvhe protected a57 mte mte-nvhe, not 1")
        self.bad(HEAD + "build kvm:a nfs:b\n", "4", "build 'nfs:b': COLLECTION:PATH")
        self.bad(HEAD + "build kvm\n", "4", "build 'kvm': COLLECTION:PATH")

    def test_boot_lines(self) -> None:
        self.bad(HEAD + "boot b thread=many\n", "4", "thread=many: single or multi")
        self.bad(HEAD + "boot b cpus=2\n", "4", "'cpus=2' is not one of thread=, modes=, kernels=")
        self.bad(HEAD + "boot b thread\n", "4", "'thread' is not one of")
        self.bad(HEAD + "boot b kernels=patchd\n", "4", "kernel 'patchd' is not the suite's")
        self.bad(HEAD + "boot b modes=2\n", "4", "mode '2' is not one of x86_64's")

    def test_test_lines(self) -> None:
        self.bad(HEAD + "test t\n", "4", "test needs a NAME and a command")
        self.bad(HEAD + "test\n", "4", "test needs a NAME and a command")
        self.bad(HEAD + "test a/b ./x\n", "4", "test name 'a/b': letters, digits")
        self.bad(HEAD + "test t ./x ; base=flaky\n", "4", "base=flaky: expected pass, fail, skip")
        self.bad(HEAD + "test t ./x ; prior=fail\n", "4", "'prior=fail' is not one of kernels=")
        self.bad(HEAD + "test t ./x ; retries=2\n", "4", "'retries=2' is not one of")
        self.bad(HEAD + "test t ./x ; kernels=base,prior\n", "4", "kernel 'prior' is not the suite's")
        self.bad(HEAD + "test t ./x ; compare=prior\n", "4", "kernel 'prior' is not the suite's")
        self.bad(HEAD + "test t ./x ; boot=race\n", "4",
                 "no boot 'race' (a boot line comes before its tests)")
        self.bad(HEAD + "boot race modes=1\ntest t ./x ; boot=race modes=0\n", "5",
                 "mode '0' is not one of the boot's")
        self.bad(HEAD + "test t ./x ; modes=vhe\n", "4", "mode 'vhe' is not one of the boot's")
        self.bad(HEAD + "test t ./x ; timeout=5m\n", "4", "'5m' is not a number")
        self.bad(HEAD + "test t ./x ; hugepages=many\n", "4", "'many' is not a number")
        self.bad(HEAD + "test t ./x ; 'a\n", "4", "No closing quotation")
        self.bad(HEAD + "test t net:x\n", "4",
                 "'net:x': a selftest is COLLECTION:PATH with COLLECTION one of kvm, mm, rdma")
        self.bad(HEAD + "test t ./x\n# again\ntest t ./y\n", "6", "a second test 't'")

    def test_include_lines(self) -> None:
        self.bad(HEAD + "include other base\n", "4", "no suite 'other' above")
        self.bad(HEAD + "suite d\nkernels debug\nmodes 1\ninclude s prior\n", "7",
                 "s has no kernel 'prior'")

    def test_whole_suite(self) -> None:
        # A suite without kernels or modes, or comparing with a kernel it
        # does not boot: FILE:LINE of its suite line.
        self.bad(HEAD + "\nsuite t\nmodes 1\n", "5", "suite t needs kernels and modes")
        self.bad("suite t\nkernels base\n", "1", "suite t needs kernels and modes")
        self.bad("# x\n" + HEAD + "compare prior\n", "2",
                 "suite s compares with 'prior', not one of its kernels")

    def test_every_key(self) -> None:
        text = ("suite a\narch arm64\nkernels base patched\nmodes vhe nvhe\npayload bench\n"
                "var N 5\nvar S random\nappend x=1 y=2\ntimeout 60\nmem 8\ncpu max\nkunit\n"
                "compare base\nreport bench\nbuild kvm:arm64/a mm:b\n"
                "boot solo thread=multi modes=nvhe kernels=patched\n"
                "test t1 kvm:arm64/perm_upgrade_test -n ${N} ; patched=skip timeout=9 "
                "hugepages=4 gigantic=2 needs=word\n"
                "test t2 ./prog ; boot=solo compare=patched kernels=patched\n")
        s = suites.parse(text)["a"]
        self.assertEqual((s.arch, s.kernels, s.modes, s.payload), (
            "arm64", ["base", "patched"], ["vhe", "nvhe"], "bench"))
        self.assertEqual(s.vars, {"N": "5", "S": "random"})
        self.assertEqual((s.append, s.timeout, s.mem, s.cpu, s.kunit, s.compare, s.report),
                         ("x=1 y=2", 60, 8, "max", True, "base", "bench"))
        self.assertEqual(s.builds, [("kvm", "arm64/a"), ("mm", "b")])
        self.assertEqual(s.boots["solo"], suites.Boot("solo", ["patched"], ["nvhe"], "multi"))
        t1, t2 = s.tests
        self.assertEqual(t1, suites.Test("t1", "kvm:arm64/perm_upgrade_test", "-n ${N}",
                                         {"patched": "skip"}, None, None, "", 9, 4, 2,
                                         "base", "word"))
        self.assertEqual(t1.build(), ("kvm", "arm64/perm_upgrade_test"))
        self.assertEqual((t1.expected("patched"), t1.expected("base")), ("skip", "pass"))
        self.assertIsNone(t2.build())
        self.assertEqual((t2.boot, t2.compare, t2.kernels), ("solo", "patched", ["patched"]))
        # A suite's defaults.
        d = suites.parse("suite d\nkernels k\nmodes 0\n")["d"]
        self.assertEqual((d.arch, d.payload, d.timeout, d.mem, d.cpu, d.kunit, d.compare,
                          d.report, d.boots, d.vars), ("x86_64", "kselftest", 900, None, None,
                                                       False, None, None, {}, {}))


class RealSuitesTest(unittest.TestCase):
    """The repository's guest/suites."""

    def test_names(self) -> None:
        self.assertEqual(list(real()), [
            "kvm-selftest", "kunit-x86_64", "check-debug", "kvm-selftest-arm64",
            "stress-arm64", "regress",
            "rdma-odp", "bench", "bench-arm64", "e2e", "e2e-patterns"])

    def test_reports_exist(self) -> None:
        import report
        for s in real().values():
            if s.report:
                report._writer(s.report)    # raises for a report that is not there

    def test_kvm_selftest_runs(self) -> None:
        s = real()["kvm-selftest"]
        # Each kernel, its boots (the suite's own first), each mode.
        self.assertEqual(ids(s), ["patched-1", "patched-0", "patched-hmm-race-1",
                                  "base-1", "base-0"])
        runs = {r.id: r for r in s.runs()}
        self.assertEqual((runs["patched-hmm-race-1"].boot.thread, runs["patched-0"].boot.thread),
                         ("multi", "single"))
        self.assertEqual(names(s, "patched-hmm-race-1"), ["hmm.prot_upgrade_migrate_race"])
        # hmm-tests: npt=1 only; the migrate cases and stress: patched only.
        p1, p0, b1, b0 = (names(s, i) for i in ("patched-1", "patched-0", "base-1", "base-0"))
        self.assertEqual(len(p1), 25)
        self.assertEqual(p0, ["perm_upgrade_test", "perm_upgrade_pfncache_test",
                              "mmu_stress_test", "nested_host_wrprotect_test",
                              "host_wrprotect_resync_test", "thp_invalidate_race_test",
                              "perm_upgrade_race_test", "stress"])
        self.assertEqual(b0, p0[:-1])
        self.assertEqual(set(p1) - set(b1), {"stress", "hmm.prot_migrate_mprotect",
                                             "hmm.prot_migrate_uffd_wp",
                                             "hmm.migrate_write_prot"})
        self.assertNotIn("hmm.prot_upgrade_migrate_race", p1)
        t = {x.name: x for x in s.tests}
        self.assertEqual([t["perm_upgrade_test"].expected(k) for k in ("patched", "base")],
                         ["pass", "fail"])
        self.assertEqual(t["hmm.prot_upgrade_thp"].expected("base"), "fail")
        self.assertEqual(t["hmm.prot_downgrade_thp"].expected("base"), "pass")
        self.assertEqual(t["mmu_stress_test"].needs, "protector")

    def test_include(self) -> None:
        # check-debug: kvm-selftest's tests that run on its patched kernel in
        # its own boots, expected to give what they give there.
        s = real()["check-debug"]
        self.assertEqual(ids(s), ["debug-1", "debug-0"])
        self.assertTrue(s.kunit)
        self.assertEqual(s.append, "loglevel=7 kunit.enable=1")
        self.assertEqual(names(s, "debug-1"), names(real()["kvm-selftest"], "patched-1"))
        self.assertIn("stress", names(s, "debug-0"))
        for t in s.tests:
            self.assertEqual(t.expected("debug"), "pass", t.name)
            self.assertIsNone(t.kernels)
        # From the base kernel: the base's expectations, its tests only.
        with open(testlib.SUITES) as f:
            text = f.read() + "\nsuite old\nkernels debug\nmodes 0\ninclude kvm-selftest base\n"
        o = suites.parse(text)["old"]
        self.assertEqual(names(o, "debug-0"), names(real()["kvm-selftest"], "base-0"))
        self.assertEqual({t.name: t.expected("debug") for t in o.tests}["perm_upgrade_test"],
                         "fail")
        self.assertEqual(len(o.tests), 7)   # no npt=1-only test is kept for modes 0
        self.assertFalse(any(t.name.startswith("hmm.") for t in o.tests))

    def test_arm64(self) -> None:
        s = real()["kvm-selftest-arm64"]
        self.assertEqual(s.arch, "arm64")
        # v7.2.8 is not booted under pKVM, where it oopses (B7).
        self.assertEqual(ids(s), ["%s-%s" % (k, m) for k in ("patched", "base")
                                  for m in ("vhe", "nvhe", "protected", "a57", "mte", "mte-nvhe")
                                  if (k, m) != ("base", "protected")])
        self.assertIn("skip base-protected v7.2.8 oopses under pKVM",
                      "\n".join(suites.plan(s, {})))
        # The MTE test runs in the MTE modes only, and only there.
        self.assertEqual(names(s, "patched-mte"), ["perm_upgrade_test", "pfnmap_block_test",
                                                   "dirty_log_block_test",
                                                   "mte_block_tags_test", "stress"])
        self.assertNotIn("mte_block_tags_test", names(s, "patched-vhe"))
        self.assertEqual(suites.kernel_kind(s, "base"), "arm64-base")
        self.assertEqual(suites.kernel_kind(real()["bench"], "base"), "base-timing")

    def test_regress(self) -> None:
        s = real()["regress"]
        self.assertEqual(s.compare, "base")
        self.assertTrue(all(t.compare == "base" for t in s.tests))
        self.assertEqual(ids(s), ["patched-1", "patched-0", "base-1", "base-0"])
        self.assertEqual(len(names(s, "patched-0")), 9)
        self.assertEqual(names(s, "patched-0"), names(s, "base-0"))
        t = {x.name: x for x in s.tests}["mmu_stress_test-hugetlb"]
        self.assertEqual((t.timeout, t.hugepages), (900, 640))

    def test_config(self) -> None:
        # Timings compare kernels of one config, without KVM_PROVE_MMU.
        for name in ("bench", "e2e", "e2e-patterns"):
            s = real()[name]
            self.assertEqual(s.config, "timing")
            self.assertEqual([suites.kernel_kind(s, k) for k in s.kernels],
                             ["base-timing", "prior", "patched-timing"])
        self.assertIsNone(real()["kvm-selftest"].config)
        self.assertEqual(suites.kernel_kind(real()["kvm-selftest"], "patched"), "patched")
        s = suites.parse("suite s\nkernels base patched\nmodes 1\nconfig timing\n"
                         "test t kvm:t\n", "x")["s"]
        self.assertIn("kernel patched-timing", list(suites.plan(s, {})))
        with self.assertRaises(suites.SuiteError) as cm:
            suites.parse("suite s\nkernels base\nmodes 1\nconfig debug\n", "x")
        self.assertIn("x:4: cannot read", str(cm.exception))
        with self.assertRaises(suites.SuiteError) as cm:
            suites.parse("suite s\narch arm64\nkernels base\nmodes vhe\nconfig timing\n", "x")
        self.assertIn("x:5: cannot read", str(cm.exception))

    def test_rdma(self) -> None:
        s = real()["rdma-odp"]
        self.assertIsNone(s.compare)
        t = {x.name: x for x in s.tests}
        self.assertEqual((t["test_odp"].compare, t["rxe_odp"].compare), ("base", None))
        self.assertEqual(t["rxe_odp"].expected("base"), "fail")
        self.assertEqual(s.builds, [("rdma", "rxe_odp_test")])
        self.assertEqual(s.payload, "rdma")
        # Its kernels have networking and rxe.
        self.assertEqual([suites.kernel_kind(s, k) for k in s.kernels],
                         ["patched-rdma", "base-rdma"])


class SelectTest(testlib.TmpTest):
    def test_select(self) -> None:
        s = real()["kvm-selftest"]
        suites.select(s, ["stress", "perm_upgrade_test"], ["patched"], ["0"])
        self.assertEqual(ids(s), ["patched-0"])
        self.assertEqual(names(s, "patched-0"), ["perm_upgrade_test", "stress"])
        # The boots' modes narrow too.
        s = real()["kvm-selftest"]
        suites.select(s, [], [], ["0"])
        self.assertEqual(ids(s), ["patched-0", "base-0"])
        self.assertEqual(s.boots["hmm-race"].modes, [])

    def test_select_unknown(self) -> None:
        cases: List[Tuple[List[str], List[str], List[str], str]] = [
            (["nope", "stress"], [], [], "kvm-selftest has no test nope (it has: "
                                         "perm_upgrade_test perm_upgrade_pfncache_test"),
            ([], ["patched", "debug"], [], "kvm-selftest has no kernel debug"),
            ([], [], ["1", "2"], "kvm-selftest has no mode 2")]
        for tests, kernels, modes, what in cases:
            with self.assertRaises(SuiteError) as cm:
                suites.select(real()["kvm-selftest"], tests, kernels, modes)
            self.assertIn(what, str(cm.exception))

    def test_prior(self) -> None:
        # Without KPU_PRIOR_KERNEL, prior is not booted; asked for, an error.
        s = real()["bench"]
        suites.select(s, [], [], [])
        self.assertEqual(s.kernels, ["base", "patched"])
        self.assertEqual(ids(s), ["base-1", "base-0", "patched-1", "patched-0"])
        s = real()["bench"]
        suites.select(s, [], [], [], prior=True)
        self.assertEqual(s.kernels, ["base", "prior", "patched"])
        with self.assertRaises(SuiteError) as cm:
            suites.select(real()["e2e"], [], ["prior", "patched"], [])
        self.assertIn("KPU_PRIOR_KERNEL", str(cm.exception))
        s = real()["e2e"]
        suites.select_env(s, {"KPU_PRIOR_KERNEL": "/srv/bzImage"})
        self.assertIn("prior", s.kernels)

    def test_compared_kernel_kept(self) -> None:
        with self.assertRaises(SuiteError) as cm:
            suites.select(real()["regress"], [], ["patched"], [])
        self.assertIn("regress: uffd-unit-tests is judged against the base kernel: keep it",
                      str(cm.exception))
        s = real()["rdma-odp"]
        with self.assertRaises(SuiteError):
            suites.select(s, [], ["patched"], [])
        s = real()["rdma-odp"]
        suites.select(s, ["rxe_odp"], ["patched"], [])
        self.assertEqual(ids(s), ["patched-1"])

    def test_select_env(self) -> None:
        s = real()["kvm-selftest"]
        suites.select_env(s, {"KPU_TESTS": "stress  perm_upgrade_test", "KPU_KERNELS": "patched",
                              "KPU_MODES": "1", "KPU_TREE": "/nonexistent"})
        self.assertEqual(ids(s), ["patched-1"])
        self.assertEqual(names(s, "patched-1"), ["perm_upgrade_test", "stress"])
        s = real()["kvm-selftest"]
        suites.select_env(s, {})
        self.assertEqual(ids(s), ids(real()["kvm-selftest"]))

    def fake_tree(self) -> str:
        tree = self.path("linux")
        st = os.path.join(tree, "tools", "testing", "selftests")
        for rel, text in (("kvm/x86/perm_upgrade_test.c", "int main(void) {}"),
                          ("kvm/mmu_stress_test.c", "no such word"),
                          ("kvm/perm_upgrade_stress_test.c", ""),
                          ("mm/hmm-tests.c", "TEST_F(hmm, prot_upgrade_mprotect)"),
                          ("mm/protection_keys.c", "")):
            os.makedirs(os.path.dirname(os.path.join(st, rel)), exist_ok=True)
            testlib.write(os.path.join(st, rel), text)
        return tree

    def test_available(self) -> None:
        tree = self.fake_tree()
        # The source is there, with -r's case and needs='s word in it.
        self.assertEqual(suites.available(real()["kvm-selftest"], tree),
                         ["perm_upgrade_test", "stress", "hmm.prot_upgrade_mprotect"])
        # protection_keys_64 is built from protection_keys.c; what is not a
        # selftest (the payload's own programs) is always there.
        self.assertEqual(suites.available(real()["regress"], tree),
                         ["hmm-tests", "protection_keys", "perm_upgrade_test",
                          "mmu_stress_test-hugetlb"])
        self.assertEqual(suites.available(real()["bench"], tree), ["parked", "live"])
        testlib.write(os.path.join(tree, "tools/testing/selftests/kvm/mmu_stress_test.c"),
                      "struct protector p;")
        self.assertIn("mmu_stress_test", suites.available(real()["kvm-selftest"], tree))

    def test_available_env(self) -> None:
        s = real()["kvm-selftest"]
        suites.select_env(s, {"KPU_TESTS": "available", "KPU_TREE": self.fake_tree(),
                              "KPU_MODES": "0"})
        self.assertEqual(ids(s), ["patched-0", "base-0"])
        self.assertEqual(names(s, "patched-0"), ["perm_upgrade_test", "stress"])
        # A tree with none of them: nothing to run.
        s = real()["kvm-selftest"]
        suites.select_env(s, {"KPU_TESTS": "available", "KPU_TREE": self.path("empty")})
        self.assertEqual((s.tests, s.runs()), ([], []))


class ValuesTest(unittest.TestCase):
    def suite(self, *vars: str) -> Suite:
        return suites.parse(HEAD + "".join("var %s\n" % v for v in vars))["s"]

    def test_values(self) -> None:
        s = self.suite("OPS 50000", "SEED random", "L2 flat")
        v = suites.values(s, {"KPU_L2": "nested", "KPU_OTHER": "x"})
        self.assertEqual(list(v), ["OPS", "SEED", "L2"])
        self.assertEqual((v["OPS"], v["L2"]), ("50000", "nested"))
        # random: a 32-bit number, a new one each time.
        seeds = {suites.values(s, {})["SEED"] for _ in range(8)}
        self.assertGreater(len(seeds), 1)
        self.assertTrue(all(x.isdigit() and int(x) < 1 << 32 for x in seeds))
        self.assertEqual(suites.values(s, {"KPU_SEED": "7"})["SEED"], "7")
        self.assertEqual(suites.values(self.suite(), {"KPU_X": "1"}), {})

    def test_refused(self) -> None:
        s = self.suite("X 1")
        for v in ("", "a b", "a;b", "$(id)", "`id`", "a|b", "a&b", "a>b", "a<b", "'a'", '"a"',
                  "a\\b", "a\tb"):
            with self.assertRaises(SuiteError) as cm:
                suites.values(s, {"KPU_X": v})
            self.assertEqual(str(cm.exception), "KPU_X: %r is not a plain word" % v)

    def test_expand(self) -> None:
        vals = {"SEED": "42", "OPS": "9"}
        self.assertEqual(suites.expand("-s ${SEED} -n ${OPS} -s ${SEED} $OPS", vals),
                         "-s 42 -n 9 -s 42 $OPS")
        self.assertEqual(suites.expand("", vals), "")
        with self.assertRaises(SuiteError) as cm:
            suites.expand("-s ${SEED} -x ${NOPE} -y", vals)
        self.assertEqual(str(cm.exception), "'${NOPE': no such variable")


class ScriptsTest(testlib.TmpTest):
    def test_wrapper(self) -> None:
        t = {x.name: x for x in real()["kvm-selftest"].tests}
        self.assertEqual(suites.wrapper(t["stress"], {"SEED": "1", "OPS": "2"}),
                         "#!/bin/sh\n# stress\ncd /suite\n"
                         "./perm_upgrade_stress_test -s 1 -n 2 </dev/null\n")
        self.assertEqual(suites.wrapper(t["perm_upgrade_test"], {}),
                         "#!/bin/sh\n# perm_upgrade_test\ncd /suite\n"
                         "./perm_upgrade_test </dev/null\n")
        r = {x.name: x for x in real()["regress"].tests}
        self.assertEqual(suites.wrapper(r["mmu_stress_test-hugetlb"], {}),
                         "#!/bin/sh\n# mmu_stress_test-hugetlb\ncd /suite\n"
                         "old0=$(cat /proc/sys/vm/nr_hugepages)\n"
                         "echo 640 >/proc/sys/vm/nr_hugepages\n"
                         "timeout -s KILL 900 ./mmu_stress_test -c 1 -m 1 -s 1 -H </dev/null\n"
                         "rc=$?\n"
                         'echo "$old0" >/proc/sys/vm/nr_hugepages\n'
                         "exit $rc\n")
        # Both pools: 1G pages given up for the test, as they were after.
        k = {x.name: x for x in real()["kvm-selftest"].tests}
        self.assertEqual(suites.wrapper(k["mmu_stress_test"], {}),
                         "#!/bin/sh\n# mmu_stress_test\ncd /suite\n"
                         "old0=$(cat %s)\necho 0 >%s\n"
                         "./mmu_stress_test -r -t 5 </dev/null\nrc=$?\n"
                         'echo "$old0" >%s\nexit $rc\n' % ((suites.HUGEPAGES_1G,) * 3))
        self.assertIn("\ntimeout -s KILL 600 ./protection_keys_64 </dev/null\n",
                      suites.wrapper(r["protection_keys"], {}))
        # Not a selftest: the payload's own file, as written.
        e = {x.name: x for x in real()["rdma-odp"].tests}
        self.assertIn("\n./rxe_odp.sh -r 20 </dev/null\n", suites.wrapper(e["rxe_odp"],
                                                                      {"RACE_S": "20"}))
        with self.assertRaises(SuiteError):
            suites.wrapper(e["rxe_odp"], {})

    def test_run_script(self) -> None:
        s = real()["kvm-selftest"]
        text = suites.run_script(s)
        self.assertTrue(text.startswith("#!/bin/sh\n"))
        self.assertIn("\n. /suite/kselftest/runner.sh\ncd /suite/kvm-selftest\n", text)
        for r in s.runs():
            case = ("%s)\n\tktap_print_header\n\tktap_set_plan %d\n\trun_many %s\n"
                    "\tktap_finished ;;\n" % (r.id, len(r.tests),
                                              " ".join("./" + t.name for t in r.tests)))
            self.assertIn(case, text)
        self.assertIn("\tktap_set_plan 25\n", text)
        self.assertIn("patched-hmm-race-1)\n\tktap_print_header\n\tktap_set_plan 1\n"
                      "\trun_many ./hmm.prot_upgrade_migrate_race\n", text)
        self.assertEqual(text.count("\tktap_finished ;;\n"), 5)
        self.assertTrue(text.endswith("*) echo \"no kpu.run=ID for this suite: '$run'\"; "
                                      "exit 2 ;;\nesac\n"))

    def test_write_payload(self) -> None:
        s = real()["stress-arm64"]
        suites.write_payload(s, {"SEED": "1", "OPS": "2"}, self.tmp)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["run", "stress-arm64"])
        self.assertEqual(os.listdir(self.path("stress-arm64")), ["stress"])
        for p in ("run", "stress-arm64/stress"):
            self.assertTrue(os.access(self.path(p), os.X_OK), p)
        self.assertEqual(self.text("stress-arm64/stress"),
                         suites.wrapper(s.tests[0], {"SEED": "1", "OPS": "2"}))
        self.assertEqual(self.text("run"), suites.run_script(s))

    def test_plan(self) -> None:
        s = real()["regress"]
        lines = list(suites.plan(s, {}))
        self.assertEqual(lines[:2], ["kernel patched", "kernel base"])
        builds = [x for x in lines if x.startswith("build ")]
        # One line per selftest, however many tests run it.
        self.assertEqual(len(builds), len(set(builds)))
        self.assertIn("build mm protection_keys_64", builds)
        self.assertIn("build kvm x86/perm_upgrade_test", builds)
        self.assertEqual(builds.count("build kvm demand_paging_test"), 1)
        boots = [x for x in lines if x.startswith("boot ")]
        self.assertEqual(boots[0], "boot patched-1 patched 1 single 5400 - EPYC,+svm,+npt,+pku "
                         "proc_mem.force_override=always hugepages=128 "
                         "kpu.kernel=patched kpu.run=patched-1")
        self.assertEqual(len(boots), 4)
        # Variables first; an arm64 suite's kernels and a boot of its own.
        lines = list(suites.plan(real()["kvm-selftest-arm64"], {"SEED": "3", "OPS": "4"}))
        self.assertEqual(lines[:4], ["var SEED 3", "var OPS 4", "kernel arm64-patched",
                                     "kernel arm64-base"])
        self.assertIn("boot base-a57 arm64-base a57 single 900 - - kpu.kernel=base "
                      "kpu.run=base-a57", lines)
        lines = list(suites.plan(real()["kvm-selftest"], {"SEED": "3", "OPS": "4"}))
        self.assertIn("boot patched-hmm-race-1 patched 1 multi 1800 - - hugepagesz=1G "
                      "hugepages=1 kpu.kernel=patched kpu.run=patched-hmm-race-1", lines)
        self.assertEqual(len([x for x in lines if x == "build mm hmm-tests"]), 1)
        # A suite's extra builds.
        self.assertIn("build rdma rxe_odp_test", list(suites.plan(real()["rdma-odp"], {})))


class MainTest(testlib.TmpTest):
    def test_main(self) -> None:
        out = self.path("payload")
        rc, said, _ = testlib.run(lambda: suites.main(
            [testlib.SUITES, "kvm-selftest", out],
            {"KPU_KERNELS": "patched", "KPU_MODES": "0", "KPU_SEED": "5"}))
        self.assertEqual(rc, 0)
        lines = said.splitlines()
        self.assertEqual(lines[:4], ["suite kvm-selftest x86_64 kselftest", "var SEED 5",
                                     "var OPS 50000", "kernel patched"])
        self.assertEqual([x for x in lines if x.startswith("boot ")],
                         ["boot patched-0 patched 0 single 1800 - - hugepagesz=1G hugepages=1 "
                          "kpu.kernel=patched kpu.run=patched-0"])
        self.assertIn("./perm_upgrade_stress_test -s 5 -n 50000 </dev/null",
                      self.text("payload/kvm-selftest/stress"))
        self.assertIn("\npatched-0)\n\tktap_print_header\n\tktap_set_plan 8\n",
                      self.text("payload/run"))
        self.assertNotIn("base-0)", self.text("payload/run"))

    def test_main_errors(self) -> None:
        cases: List[Tuple[List[str], Dict[str, str], str]] = [
            ([testlib.SUITES, "kvm-selftest"], {}, "usage: plan SUITES NAME OUTDIR"),
            ([testlib.SUITES, "nope", self.tmp], {}, "no suite 'nope' (there are: "
                                                     "kvm-selftest kunit-x86_64 check-debug"),
            ([testlib.SUITES, "kvm-selftest", self.tmp],
             {"KPU_TESTS": "stress", "KPU_KERNELS": "base"}, "kvm-selftest: no test to run"),
            ([testlib.SUITES, "kvm-selftest", self.tmp], {"KPU_SEED": "1 2"},
             "KPU_SEED: '1 2' is not a plain word")]
        for args, env, what in cases:
            with self.assertRaises(ValueError) as cm:
                suites.main(args, env)
            self.assertIn(what, str(cm.exception))
        self.assertEqual(os.listdir(self.tmp), [])
        with self.assertRaises(OSError):
            suites.main([self.path("nope"), "x", self.tmp], {})

    def test_main_available_none(self) -> None:
        # KPU_TESTS=available in a tree without the tests: a plan without
        # boots (guest-suite.sh then reports nothing run).
        rc, said, _ = testlib.run(lambda: suites.main(
            [testlib.SUITES, "kvm-selftest", self.tmp],
            {"KPU_TESTS": "available", "KPU_TREE": self.path("none")}))
        self.assertEqual(rc, 0)
        self.assertFalse([x for x in said.splitlines() if x.startswith(("boot ", "build "))])


if __name__ == "__main__":
    unittest.main(verbosity=2)
