#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of rfctool, on console logs and reports captured from real
runs of the harness (test_data/, see test_data/README)."""

import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from typing import List, Optional
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rfc_audit  # noqa: E402
import rfc_counts  # noqa: E402
import rfc_guestlog  # noqa: E402
import rfc_splat  # noqa: E402
import rfctool  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_data")


def data(name: str) -> str:
    return os.path.join(DATA, name)


def lines(name: str) -> list:
    return rfc_splat.read_lines(data(name))


class SplatTest(unittest.TestCase):
    def test_kernel_formats(self) -> None:
        for line in lines("kernel-formats.txt"):
            if not line or line.startswith("#"):
                continue
            kind, text = line.split("\t", 1)
            self.assertEqual(rfc_splat.classify(text), kind, text)

    def test_benign(self) -> None:
        for line in lines("benign.txt"):
            if line.startswith("#"):
                continue
            self.assertIsNone(rfc_splat.classify(line), line)

    def test_clean_boots(self) -> None:
        for name in ("guest-pass.log", "guest-fail.log", "guest-debug-pass.log"):
            self.assertEqual(rfc_splat.scan(lines(name)), [], name)

    def test_warn_capture(self) -> None:
        # v7.2's format: "WARNING: FILE:LINE at FUNC+OFF/SIZE, CPU#N: COMM/PID";
        # the register dump of a first WARN still says "Not tainted".
        s = rfc_splat.scan(lines("guest-warn.log"))
        self.assertEqual([x.kind for x in s], ["warn"])
        self.assertIn("kvm_mmu_notifier_invalidate_range_start", s[0].line)

    def test_panic_capture(self) -> None:
        s = rfc_splat.scan(lines("guest-early-panic.log"))
        self.assertEqual([x.kind for x in s], ["panic"])

    def test_lineno(self) -> None:
        s = rfc_splat.scan(["ok", "", "[ 1.0] BUG: soft lockup - CPU#0 stuck"])
        self.assertEqual([(x.lineno, x.kind) for x in s], [(3, "soft-lockup")])


class GuestLogTest(unittest.TestCase):
    def test_pass(self) -> None:
        g = rfc_guestlog.parse_file(data("guest-pass.log"))
        self.assertTrue(g.started)
        self.assertEqual(g.result, "PASS")
        self.assertEqual(g.verdict, rfc_guestlog.Verdict.PASS)
        args = rfc_guestlog.qemu_args(g)
        self.assertTrue(args.startswith("-accel tcg,thread=single -cpu EPYC,+svm,+npt"), args)
        self.assertNotIn("-kernel", args)
        self.assertNotIn("console=ttyS0", args)

    def test_debug_kernel(self) -> None:
        # KASAN and lockdep announce themselves at boot; that is no splat.
        text = lines("guest-debug-pass.log")
        self.assertTrue(any("KernelAddressSanitizer initialized" in l for l in text))
        g = rfc_guestlog.parse(text)
        self.assertEqual(g.verdict, rfc_guestlog.Verdict.PASS)

    def test_fail(self) -> None:
        g = rfc_guestlog.parse_file(data("guest-fail.log"))
        self.assertEqual(g.verdict, rfc_guestlog.Verdict.FAIL)

    def test_warn_beats_pass(self) -> None:
        g = rfc_guestlog.parse_file(data("guest-warn.log"))
        self.assertEqual(g.result, "PASS")
        self.assertEqual(g.verdict, rfc_guestlog.Verdict.SPLAT)

    def test_never_started(self) -> None:
        g = rfc_guestlog.parse_file(data("guest-early-panic.log"))
        self.assertFalse(g.started)
        self.assertIsNone(g.result)
        self.assertIn("panic", [s.kind for s in g.splats])

    def test_no_result(self) -> None:
        g = rfc_guestlog.parse(["GUEST-QEMU: qemu-system-x86_64 -m 4G",
                                "GUEST: kernel 7.2.8"])
        self.assertEqual(g.verdict, rfc_guestlog.Verdict.NO_RESULT)
        self.assertEqual(rfc_guestlog.qemu_args(g), "-m 4G")

    def test_cli_exit_status(self) -> None:
        for name, rc in (("guest-pass.log", 0), ("guest-fail.log", 1),
                         ("guest-warn.log", 3)):
            with redirect_stdout(io.StringIO()) as out:
                self.assertEqual(rfctool.main(["guest", data(name)]), rc, name)
            self.assertIn("guest: ", out.getvalue())


class CountsTest(unittest.TestCase):
    def test_kunit_json(self) -> None:
        c = rfc_counts.kunit_json(data("kunit-um.json"))
        with open(data("kunit-um.json")) as f:
            m = json.load(f)["misc"]
        self.assertEqual(c.passed, m["passed"])
        self.assertGreater(c.passed, 100)
        self.assertEqual(c.failed, 0)

    def test_kunit_json_crashed_is_failed(self) -> None:
        tmp = tempfile.mkdtemp()
        try:
            p = os.path.join(tmp, "k.json")
            with open(p, "w") as f:
                json.dump({"misc": {"tests": 9, "passed": 5, "failed": 1, "crashed": 1,
                                    "skipped": 1, "errors": 1}}, f)
            self.assertEqual(rfc_counts.kunit_json(p), (5, 3, 1))
            self.assertEqual(rfc_counts.kunit_json(p).line("kunit-um"),
                             "kunit-um: 5 passed, 3 failed, 1 skipped")
        finally:
            shutil.rmtree(tmp)

    def test_suite_line(self) -> None:
        out = ["stress: seed 1", "stress: 2 passed, 0 failed"]
        self.assertEqual(rfc_counts.suite_counts("stress", out, 0), (2, 0, 0))
        # Another suite's line does not count, the last line of ours does.
        out = ["kunit: 9 passed, 0 failed", "x: 1 passed, 1 failed, 2 skipped",
               "x: 3 passed, 0 failed, 4 skipped"]
        self.assertEqual(rfc_counts.suite_counts("x", out, 0), (3, 0, 4))
        self.assertEqual(rfc_counts.suite_counts("y", out, 0), (0, 1, 0))
        # Failed without counting it: one failure.
        self.assertEqual(rfc_counts.suite_counts("x", out, 2), (3, 1, 4))


class AuditTest(unittest.TestCase):
    TREE = "/TREE"

    def run_audit(self, log: list, grep: list, rc: int = 0,
                  series: Optional[List[str]] = []) -> tuple:
        return rfc_audit.report(self.TREE, "x.cocci", log, grep, 68, 20, rc,
                                series)

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
        i = next(n for n, l in enumerate(log) if ": kvm_gfn_range: " in l)
        log[i] = log[i].replace("verdict=ok", "verdict=FAIL:test")
        _, c = self.run_audit(log, lines("audit-grep.txt"))
        self.assertEqual(c.failed, 1)

    def test_unexplained_site(self) -> None:
        # A kvm_gfn_range variable that grep sees and coccinelle did not
        # report fails the cross-check.
        log = lines("audit-coccicheck.log")
        drop = next(l for l in log if ": kvm_gfn_range: " in l)
        _, c = self.run_audit([l for l in log if l != drop], lines("audit-grep.txt"))
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
                              series=None)
        self.assertEqual(c.failed, 1)

    def test_coccicheck_failed(self) -> None:
        _, c = self.run_audit(lines("audit-coccicheck.log"), lines("audit-grep.txt"), rc=2)
        self.assertEqual(c.failed, 1)
        _, c = self.run_audit([], lines("audit-grep.txt"))
        self.assertGreater(c.failed, 0)


class ReportTest(unittest.TestCase):
    """The bench and regress reports on guest logs of a real run."""

    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()
        self.header = os.path.join(self.tmp, "header.txt")
        with open(self.header, "w") as f:
            f.write("date=2026-11-30 18:00 UTC\nqemu=QEMU emulator version 7.2\n")

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def test_bench(self) -> None:
        out = os.path.join(self.tmp, "out")
        with redirect_stdout(io.StringIO()):
            rc = rfctool.main(["bench", self.header, out,
                               "base:1=" + data("bench-base-npt1.log"),
                               "patched:1=" + data("bench-patched-npt1.log")])
        self.assertEqual(rc, 0)
        with open(os.path.join(out, "bench.md")) as f:
            md = f.read()
        # The QEMU command comes from the logs' first line.
        self.assertIn("`qemu-system-x86_64 -accel tcg,thread=single -cpu EPYC,+svm,+npt", md)
        rows = {tuple(c.strip() for c in l.split("|")[1:4]): l.split("|")[4:7]
                for l in md.splitlines() if l.startswith("| mprotect |")}
        base, patched, ratio = (c.strip() for c in rows[("mprotect", "anon-4k",
                                                         "pf_taken (re-read)")])
        self.assertGreater(int(base), 0)
        self.assertEqual((patched, ratio), ("0", "0.00"))
        with open(os.path.join(out, "bench.csv")) as f:
            csv_rows = f.read().splitlines()
        self.assertEqual(csv_rows[0].split(",")[:3], ["kernel", "npt", "kernel_release"])
        self.assertGreater(len(csv_rows), 10)

    def test_bench_arm64(self) -> None:
        # arm64/perm_upgrade_test's exit counts, base vs patched, after the
        # x86 sections; an arm64 log labelled with another kernel is refused.
        out = os.path.join(self.tmp, "out")
        with redirect_stdout(io.StringIO()):
            rc = rfctool.main(["bench", self.header, out,
                               "base:1=" + data("bench-base-npt1.log"),
                               "patched:1=" + data("bench-patched-npt1.log"),
                               "arm64-base:vhe=" + data("bench-arm64-base-vhe.log"),
                               "arm64-patched:vhe=" + data("bench-arm64-patched-vhe.log")])
        self.assertEqual(rc, 0)
        with open(os.path.join(out, "bench.md")) as f:
            md = f.read()
        arm64 = md[md.index("## arm64"):]
        self.assertIn("`qemu-system-aarch64 -accel tcg,thread=single -M virt,virtualization=on", arm64)
        # The x86 header keeps the x86 QEMU command.
        self.assertIn("`qemu-system-x86_64 -accel tcg", md[:md.index("## arm64")])
        rows = {tuple(c.strip() for c in l.split("|")[1:3]): [c.strip() for c in l.split("|")[3:6]]
                for l in arm64.splitlines() if l.startswith("| m") or l.startswith("| u")}
        self.assertEqual(rows[("mprotect/4k", "refaults after the upgrade (exits over control)")],
                         ["1030", "0", "0.00"])
        self.assertEqual(rows[("mprotect/thp", "exits, read pass after the upgrade")],
                         ["33", "1", "0.03"])
        self.assertEqual(rows[("uffd-wp/4k", "exits, read pass after the narrowing")][:2],
                         ["1029", "1027"])
        import contextlib
        err = io.StringIO()
        bad = os.path.join(self.tmp, "bad")
        with contextlib.redirect_stderr(err):
            rc = rfctool.main(["bench", self.header, bad,
                               "base:1=" + data("bench-base-npt1.log"),
                               "arm64-prior:vhe=" + data("bench-arm64-base-vhe.log")])
        self.assertEqual(rc, 2)
        self.assertIn("arm64-base or arm64-patched, not 'arm64-prior'", err.getvalue())
        self.assertFalse(os.path.exists(bad))

    def test_bad_input(self) -> None:
        import contextlib
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = rfctool.main(["bench", self.header, self.tmp, "base=x.log"])
        self.assertEqual(rc, 2)
        self.assertIn("expected KERNEL:LABEL=LOG, not 'base=x.log'", err.getvalue())
        self.assertEqual(os.listdir(self.tmp), ["header.txt"])

    def regress(self, patched_log: str) -> tuple:
        out = os.path.join(self.tmp, "regress.md")
        with redirect_stdout(io.StringIO()):
            rc = rfctool.main(["regress", self.header, out,
                               "base:npt0=" + data("regress-base-npt0.log"),
                               "patched:npt0=" + patched_log])
        with open(out) as f:
            return rc, f.read()

    def test_regress(self) -> None:
        rc, md = self.regress(data("regress-patched-npt0.log"))
        self.assertEqual(rc, 0, md)
        self.assertIn("| perm_upgrade_test | fail", md)
        self.assertRegex(md, r"\| kernel-log \| pass \| pass \|")
        self.assertRegex(md, r"regress: \d+ passed, 0 failed")
        self.assertIn("-cpu EPYC,+svm,+npt,+pku", md)

    def test_regress_splat(self) -> None:
        # The same run with a WARN in the patched kernel's console.
        log = os.path.join(self.tmp, "warn.log")
        with open(log, "w") as f:
            with open(data("regress-patched-npt0.log")) as g:
                f.write(g.read())
            with open(data("guest-warn.log")) as g:
                f.write("".join(l for l in g if "WARNING:" in l))
        rc, md = self.regress(log)
        self.assertEqual(rc, 1)
        self.assertRegex(md, r"\| kernel-log \| pass \| fail \| .*\*\*WORSE\*\*")
        self.assertRegex(md, r"regress: \d+ passed, 1 failed")


class LiveBenchTest(unittest.TestCase):
    """The live mode's part of the bench report, on trimmed guest logs of a
    real make bench run (npt=1; the live runs snapshot/anon-4k,
    snapshot/thp and mprotect/anon-4k, and the parked snapshot/thp rep 0)."""

    BASE = "bench-live-base-npt1.log"
    PATCHED = "bench-live-patched-npt1.log"

    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()
        self.header = os.path.join(self.tmp, "header.txt")
        with open(self.header, "w") as f:
            f.write("date=2026-12-01 03:47 UTC\nlive_args=-L -s 32 -T 2000 -v 2\n")

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def report(self, base: str, patched: str) -> str:
        import contextlib
        out = os.path.join(self.tmp, "out")
        with redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            rc = rfctool.main(["bench", self.header, out, "base:1=" + base,
                               "patched:1=" + patched])
        self.assertEqual(rc, 0)
        with open(os.path.join(out, "bench.md")) as f:
            return f.read()

    @staticmethod
    def table(md: str) -> dict:
        """Rows of the markdown tables: first three cells -> the others."""
        rows = {}
        for l in md.splitlines():
            cells = [c.strip() for c in l.split("|")[1:-1]]
            if len(cells) >= 6:
                rows[tuple(cells[:3])] = cells[3:]
        return rows

    def test_parse(self) -> None:
        import rfc_bench
        log = rfc_bench.read_live(data(self.BASE))
        self.assertTrue(log.done)
        self.assertEqual(log.info["vcpus"], "2")
        self.assertEqual(sorted(log.runs), [("mprotect", "anon-4k"), ("snapshot", "anon-4k"),
                                            ("snapshot", "thp")])
        run = log.runs[("snapshot", "anon-4k")]
        sc = run.phases["scenario"]
        self.assertEqual((sc["calls"], sc["call_flush_req"], sc["pf_fixed"]),
                         ("8192", "6885", "15081"))
        self.assertEqual(run.tsc_khz["scenario"], 2600025)
        self.assertEqual(len(run.samples), 43)
        self.assertEqual(run.mem["mem_before_pages_4k"], "8224")
        # Parked lines are not live runs, the parked BENCH-MEM lines are
        # merged into their parked row.
        rows, skips, info = rfc_bench.read_log(data(self.BASE))
        self.assertEqual(len(rows), 1)
        self.assertEqual((rows[0]["mem_before_anon_huge_kb"], rows[0]["mem_after_anon_huge_kb"]),
                         ("65536", "0"))

    def test_histogram_matches_program(self) -> None:
        # The report's percentiles come from the histogram; the program
        # prints its own: they must agree, and the histogram must hold
        # every probe.
        import rfc_bench
        n = 0
        for name in (self.BASE, self.PATCHED):
            for run in rfc_bench.read_live(data(name)).runs.values():
                for phase in rfc_bench.PHASES:
                    row = run.phases[phase]
                    self.assertEqual(sum(c for _, _, c in run.hist[phase]), int(row["probes"]))
                    for key, _, _ in rfc_bench.QUANTILES:
                        self.assertEqual(rfc_bench.latency_ns(run, phase, key), float(row[key]),
                                         (name, phase, key))
                        n += 1
        self.assertEqual(n, 2 * 3 * 2 * 4)
        # ceil(q * n)-th probe: with 4 probes in [10, 11) and 1 in [20, 22),
        # p50 is 11 cycles, p99 22; at 1 MHz, 1 cycle is 1000 ns.
        hist = [(10, 11, 4), (20, 22, 1)]
        self.assertEqual(rfc_bench.hist_quantile(hist, 5000), 11)
        self.assertEqual(rfc_bench.hist_quantile(hist, 8000), 11)
        self.assertEqual(rfc_bench.hist_quantile(hist, 8001), 22)
        self.assertIsNone(rfc_bench.hist_quantile([], 5000))

    def test_rate_series(self) -> None:
        import rfc_bench
        run = rfc_bench.read_live(data(self.BASE)).runs[("mprotect", "anon-4k")]
        series = rfc_bench.rate_series(run, "pf_fixed")
        # 9 samples in the scenario, which starts at 2002.3 ms; the first
        # interval, 2001.9 -> 2250.6 ms, took pf_fixed from 8226 to 12651.
        self.assertEqual(len(series), 9)
        t, v = series[0]
        self.assertAlmostEqual(t, (2250.6 - 2002.3) / 1000)
        self.assertAlmostEqual(v, (12651 - 8226) / 0.2487, places=3)

    def test_report(self) -> None:
        md = self.report(data(self.BASE), data(self.PATCHED))
        self.assertIn("### Live vCPUs", md)
        self.assertIn("Every figure here is taken under TCG", md)
        self.assertIn("2 vCPUs running", md)
        rows = self.table(md)
        # pf_taken 28726 over 8693.1 ms, 9314 over 5377.9 ms.
        self.assertEqual(rows[("snapshot", "anon-4k", "pf_taken/s")], ["3304", "1732", "0.52"])
        # 6885 flush requests over 8192 resolves; none on the patched kernel.
        self.assertEqual(rows[("snapshot", "anon-4k", "flush requests per call")],
                         ["0.840", "0.000", "0.00"])
        self.assertEqual(rows[("snapshot", "anon-4k", "zapped SPTEs per call, at least")],
                         ["0.522", "0.000", "0.00"])
        self.assertEqual(rows[("snapshot", "anon-4k", "remote_tlb_flush/s")],
                         ["430.7", "0.4", "0.00"])
        # One R/RW cycle: the base kernel refaults the region twice.
        self.assertEqual(rows[("mprotect", "anon-4k", "faults fixed (pf_fixed) per call")],
                         ["16388", "8196", "0.50"])
        self.assertEqual(rows[("mprotect", "anon-4k",
                               "read latency p99.9, ns: scenario (baseline)")],
                         ["44110 (4529)", "40959 (4529)", "0.93"])
        # Memory: a 4KiB resolve splits every THP, on both kernels.
        self.assertEqual(rows[("live", "snapshot", "thp")][1:6],
                         ["32768 → 0", "0", "64", "+16", "+0"])
        self.assertEqual(rows[("parked", "snapshot", "thp")][1:5],
                         ["65536 → 0", "0", "64", "+32"])
        # The parked table is still there.
        self.assertEqual(rows[("snapshot", "thp", "pf_taken (re-read)")][:2],
                         ["16384", "16384"])

    def test_csv(self) -> None:
        self.report(data(self.BASE), data(self.PATCHED))
        import csv
        with open(os.path.join(self.tmp, "out", "bench.csv")) as f:
            rows = list(csv.DictReader(f))
        live = [r for r in rows if r["mode"] == "live"]
        self.assertEqual(len(live), 2 * 3 * 2)
        self.assertEqual(len([r for r in rows if r["mode"] == "parked"]), 2)
        sc = [r for r in live if r["kernel"] == "patched" and r["scenario"] == "snapshot"
              and r["backing"] == "thp" and r["phase"] == "scenario"][0]
        self.assertEqual((sc["hist_p50_ns"], sc["p50_ns"], sc["mem_after_pages_2m"]),
                         ("307", "307", "0"))

    def test_live_skip_and_unfinished(self) -> None:
        # A skip after BENCH-LIVE-INFO belongs to the live mode; a log
        # without BENCH-LIVE-DONE says so.
        log = os.path.join(self.tmp, "p.log")
        with open(data(self.PATCHED)) as f:
            text = f.read()
        text = text.replace("BENCH-LIVE-DONE\n", "")
        text = text.replace("BENCH-LIVE-INFO", "BENCH-SKIP scenario=mprotect "
                            "backing=hugetlb paging=tdp reason=no-hugetlb\nBENCH-LIVE-INFO")
        head, _, tail = text.partition("BENCH-LIVE-INFO")
        text = head + "BENCH-LIVE-INFO" + tail.replace(
            "\n", "\nBENCH-SKIP scenario=snapshot backing=hugetlb-shared paging=tdp "
            "reason=no-hugetlb\n", 1)
        with open(log, "w") as f:
            f.write(text)
        md = self.report(data(self.BASE), log)
        self.assertIn("patched kernel: skipped mprotect/hugetlb: no-hugetlb", md)
        self.assertIn("patched kernel: skipped live snapshot/hugetlb-shared: no-hugetlb", md)
        self.assertNotIn("skipped snapshot/hugetlb-shared", md)
        self.assertIn("**patched kernel: the live mode did not finish**", md)


class ZapBenchTest(unittest.TestCase):
    """The zap scenario (plain invalidations) in the bench report, on guest
    logs of a real run of perm_upgrade_bench -S zap (npt=1, 32 MiB, 3
    repetitions of 8 rounds; test_data/bench-zap-*)."""

    BASE = "bench-zap-base-npt1.log"
    PATCHED = "bench-zap-patched-npt1.log"

    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()
        self.header = os.path.join(self.tmp, "header.txt")
        with open(self.header, "w") as f:
            f.write("date=2026-12-02 23:11 UTC\nargs=-s 32 -r 3 -b 8 -z 8 -S zap\n")

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def report(self, base: str, patched: str) -> str:
        import contextlib
        out = os.path.join(self.tmp, "out")
        with redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            rc = rfctool.main(["bench", self.header, out, "base:1=" + base,
                               "patched:1=" + patched])
        self.assertEqual(rc, 0)
        with open(os.path.join(out, "bench.md")) as f:
            return f.read()

    def edited(self, name: str, pattern: str, repl: str, count: int) -> str:
        """A copy of a log with the COUNT matches of the regular expression
        PATTERN (no fewer, no more) replaced by REPL."""
        import re
        with open(data(name)) as f:
            text, n = re.subn(pattern, repl, f.read())
        self.assertEqual(n, count, pattern)
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_parse(self) -> None:
        import rfc_bench
        rows, skips, info = rfc_bench.read_log(data(self.BASE))
        self.assertEqual(info["zap_rounds"], "8")
        # One row per op, backing and repetition: the ops of a backing are
        # not merged.
        self.assertEqual(len(rows), 3 * (2 + 2 + 2 + 3))
        self.assertEqual(sorted({(r["backing"], r["op"]) for r in rows if r["rep"] == "0"}),
                         [("anon-4k", "madv_dontneed"), ("anon-4k", "munmap"),
                          ("hugetlb", "madv_dontneed"), ("hugetlb", "munmap"),
                          ("hugetlb-shared", "madv_dontneed"), ("hugetlb-shared", "munmap"),
                          ("hugetlb-shared", "punch_hole"),
                          ("thp", "madv_dontneed"), ("thp", "munmap")])
        r = [r for r in rows if (r["backing"], r["op"], r["rep"]) == ("anon-4k", "munmap", "1")][0]
        # 65536 faults over 8 rounds; the BENCH-MEM lines of the same op.
        self.assertEqual((r["pf_taken_per_round"], r["zapped_per_round"],
                          r["tlb_flush_req_per_round"]), ("8192.0000", "8192.0000", "1.0000"))
        self.assertEqual(r["remap_ns_p50"], "505405")
        self.assertEqual(r["mem_before_pages_4k"], "8223")
        self.assertEqual(rfc_bench.zap_sptes(r), 8192)
        t = [r for r in rows if r["backing"] == "thp"][0]
        self.assertEqual((rfc_bench.zap_sptes(t), t["pf_taken_per_round"]), (16, "16.0000"))
        self.assertEqual([(s["backing"], s["op"], s["reason"]) for s in skips],
                         [("anon-4k", "punch_hole", "no-memfd"), ("thp", "punch_hole", "no-memfd"),
                          ("hugetlb", "punch_hole", "no-memfd")])

    def test_report(self) -> None:
        md = self.report(data(self.BASE), data(self.PATCHED))
        zap = md[md.index("### Plain zap"):md.index("### Live vCPUs")]
        self.assertIn("| backing | op | metric | base | patched | patched/base |", zap)
        rows = LiveBenchTest.table(zap)
        expected = {
            ("anon-4k", "madv_dontneed", "faults per round (pf_taken)"): ["8192", "8192", "1.00"],
            ("anon-4k", "madv_dontneed", "zapped SPTEs per zap"): ["8192", "8192", "1.00"],
            ("anon-4k", "madv_dontneed", "remote_tlb_flush_requests per zap"):
                ["1", "1", "1.00"],
            # The median of the repetitions' medians: 6355422, 7111912, 6644359
            # and 8127371, 7571901, 7539360 ns.
            ("anon-4k", "madv_dontneed", "zap call time, median (us)"):
                ["6644.4", "7571.9", "1.14"],
            ("anon-4k", "munmap", "mmap(MAP_FIXED) after it, median (us)"):
                ["357.7", "370.0", "1.03"],
            ("hugetlb-shared", "punch_hole", "zapped SPTEs per zap"): ["16", "16", "1.00"],
            ("hugetlb-shared", "punch_hole", "zap call time, median (us)"):
                ["330.8", "296.2", "0.90"],
            ("thp", "munmap", "faults fixed per round (pf_fixed)"): ["16", "16", "1.00"],
        }
        for key, want in expected.items():
            self.assertEqual(rows[key], want, key)
        # The munmap rows only have the remap time.
        self.assertNotIn(("anon-4k", "madv_dontneed", "mmap(MAP_FIXED) after it, median (us)"),
                         rows)
        self.assertIn("Check: on every kernel every round zapped each SPTE", zap)
        self.assertNotIn("break the check", zap)
        self.assertIn("skipped thp punch_hole: no-memfd (base, patched)", zap)
        # Zap skips only there; the other tables have no zap rows.
        self.assertNotIn("skipped zap/", md)
        self.assertNotIn("| zap |", md)
        self.assertIn("Plain zap: no protection change", md)
        self.assertIn("KVM_PROVE_MMU", md)

    def test_check(self) -> None:
        # A round of the patched kernel that faulted 8190 pages only, and a
        # base kernel with no hugetlb-shared punch_hole result.
        patched = self.edited(
            self.PATCHED, r"(backing=anon-4k paging=tdp op=madv_dontneed .* rep=1 .*) "
            r"pf_taken=65536 (.*) pf_taken_min=8192 ", r"\1 pf_taken=65534 \2 pf_taken_min=8190 ", 1)
        base = self.edited(self.BASE, r"BENCH scenario=zap [^\n]* op=punch_hole [^\n]*\n", "", 3)
        md = self.report(base, patched)
        zap = md[md.index("### Plain zap"):md.index("### Live vCPUs")]
        self.assertIn("**Counts that break the check:**", zap)
        self.assertNotIn("Check: on every kernel", zap)
        self.assertIn("- anon-4k madv_dontneed, patched kernel, rep 1: a round faulted "
                      "8190..8192 times, the region has 8192 SPTEs", zap)
        self.assertIn("- hugetlb-shared punch_hole: no base result", zap)
        # The median of 65536, 65534 and 65536 faults over 8 rounds is still
        # 8192 a round: the kernels do not differ there.
        self.assertNotIn("anon-4k madv_dontneed: faults", zap)
        rows = LiveBenchTest.table(zap)
        self.assertEqual(rows[("hugetlb-shared", "punch_hole", "zapped SPTEs per zap")],
                         ["n/a", "16", "n/a"])

    def test_counts_differ(self) -> None:
        # Patched zapping none of hugetlb's SPTEs on MADV_DONTNEED.
        patched = self.edited(
            self.PATCHED, r"(backing=hugetlb paging=tdp op=madv_dontneed .*) zapped=128 (.*) "
            r"zapped_min=16 zapped_max=16 ", r"\1 zapped=0 \2 zapped_min=0 zapped_max=0 ", 3)
        md = self.report(data(self.BASE), patched)
        self.assertIn("- hugetlb madv_dontneed: zapped SPTEs per zap differ: base 16, patched 0",
                      md)
        self.assertIn("- hugetlb madv_dontneed, patched kernel, rep 0: a round zapped 0 times, "
                      "the region has 16 SPTEs", md)
        self.assertNotIn("- hugetlb-shared madv_dontneed", md)

    def test_csv(self) -> None:
        self.report(data(self.BASE), data(self.PATCHED))
        import csv
        with open(os.path.join(self.tmp, "out", "bench.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 2 * 27)
        r = [r for r in rows if (r["kernel"], r["backing"], r["op"], r["rep"])
             == ("patched", "hugetlb-shared", "punch_hole", "2")][0]
        self.assertEqual((r["scenario"], r["call_ns_p50"], r["zapped_2m"]),
                         ("zap", "280971", "128"))


class PriorBenchTest(unittest.TestCase):
    """The bench report with a third kernel, prior (the series without its
    newest patches), on small synthetic logs (test_data/bench-synth-*):
    base zaps on the narrowing and the upgrade, prior only on the
    narrowing, patched on neither."""

    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()
        self.header = os.path.join(self.tmp, "header.txt")
        with open(self.header, "w") as f:
            f.write("date=2026-12-01 12:00 UTC\nlive_args=-L -s 4 -T 2000 -v 2\n"
                    "prior_kernel=/srv/prior/bzImage\n")

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def report(self, *kernels: str) -> str:
        import contextlib
        out = os.path.join(self.tmp, "out")
        with redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            rc = rfctool.main(["bench", self.header, out] + [
                "%s:1=%s" % (k, data("bench-synth-%s-npt1.log" % k)) for k in kernels])
        self.assertEqual(rc, 0)
        with open(os.path.join(out, "bench.md")) as f:
            return f.read()

    def test_three_kernels(self) -> None:
        md = self.report("base", "prior", "patched")
        self.assertIn("# perm_upgrade_bench: base, prior and patched", md)
        self.assertIn("| prior kernel | 7.2.8-g5b3e0d41c7f2 (the series without its newest "
                      "patches: `/srv/prior/bzImage`, RFC_PRIOR_KERNEL) |", md)
        # Parked and live tables: prior between base and patched, both ratios.
        head = ("| scenario | backing | metric | base | prior | patched | patched/base "
                "| patched/prior |")
        self.assertEqual(md.count(head), 2)
        rows = LiveBenchTest.table(md)
        expected = {
            # The narrowing: base and prior zap and refault, patched neither.
            ("mprotect", "anon-4k", "pf_taken (read after narrowing)"):
                ["1024", "1024", "0", "0.00", "0.00"],
            ("mprotect", "anon-4k", "zapped SPTEs (narrowing)"):
                ["1024", "1024", "0", "0.00", "0.00"],
            ("snapshot", "thp", "remote_tlb_flush_requests (narrowing)"):
                ["1", "1", "1", "1.00", "1.00"],
            # The upgrade: prior and patched keep the SPTEs; times are minima.
            ("mprotect", "anon-4k", "pf_taken (re-read)"):
                ["1024", "0", "0", "0.00", "="],
            ("mprotect", "anon-4k", "upgrade call time (us, min)"):
                ["800.0", "30.0", "30.0", "0.04", "1.00"],
            # Live: the R/RW cycle refaults twice on base, once on prior.
            ("mprotect", "anon-4k", "faults fixed (pf_fixed) per call"):
                ["2048", "1024", "0.000", "0.00", "0.00"],
            ("mprotect", "anon-4k", "read latency p99, ns: scenario (baseline)"):
                ["69632 (272)", "69632 (272)", "272 (272)", "0.00", "0.00"],
        }
        for key, want in expected.items():
            self.assertEqual(rows[key], want, key)
        # Memory: a row per kernel, in column order.
        self.assertIn("| parked | mprotect | anon-4k | base | n/a", md)
        self.assertLess(md.index("| parked | mprotect | anon-4k | prior |"),
                        md.index("| parked | mprotect | anon-4k | patched |"))
        self.assertIn("Ratios: patched/base and patched/prior", md)
        import csv
        with open(os.path.join(self.tmp, "out", "bench.csv")) as f:
            csv_rows = list(csv.DictReader(f))
        prior = [r for r in csv_rows if r["kernel"] == "prior" and r["mode"] == "parked"]
        self.assertEqual(len(prior), 4)
        self.assertEqual(prior[0]["kernel_release"], "7.2.8-g5b3e0d41c7f2")
        self.assertEqual(prior[0]["down_tlb_flush_req"], "1")

    def test_two_kernels(self) -> None:
        # Without a prior log, the tables are those of base vs patched.
        md = self.report("base", "patched")
        self.assertNotIn("prior", md)
        self.assertIn("| scenario | backing | metric | base | patched | patched/base |\n"
                      "| --- | --- | --- | ---: | ---: | ---: |\n", md)
        self.assertIn("| mprotect | anon-4k | zapped SPTEs (narrowing) | 1024 | 0 | 0.00 |", md)

    def test_unknown_kernel(self) -> None:
        import contextlib
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = rfctool.main(["bench", self.header, self.tmp,
                               "old:1=" + data("bench-synth-prior-npt1.log")])
        self.assertEqual(rc, 2)
        self.assertIn("unknown kernel 'old' (base, prior, patched)", err.getvalue())


if __name__ == "__main__":
    unittest.main(verbosity=2)
