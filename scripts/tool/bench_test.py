#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of bench (bench.md, bench.csv; bench-arm64.md) on guest logs
of real make bench runs and small synthetic ones (test_data/bench-*, see
test_data/README), each read once as the verdict reads it (ktap)."""

import csv
import os
import re
import sys
import unittest
from typing import Dict, List, Tuple
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench  # noqa: E402
import ktap  # noqa: E402
import report  # noqa: E402
import testlib  # noqa: E402
from testlib import data, inputs, lines, read  # noqa: E402


def table(md: str) -> Dict[Tuple[str, ...], List[str]]:
    """Rows of the markdown tables: first three cells -> the others."""
    rows = {}
    for line in md.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) >= 6:
            rows[tuple(cells[:3])] = cells[3:]
    return rows


def with_qemu(ins: List[report.Input], header: Dict[str, str]) -> Dict[str, str]:
    """The header as the verdict hands it over: the QEMU command of the
    first log that has one."""
    h = dict(header)
    for i in ins:
        if i.log.qemu and "qemu_args" not in h:
            h["qemu_args"] = ktap.qemu_args(i.log)
    return h


class BenchCase(testlib.TmpTest):
    """make bench's report of logs of the npt=1 boots, base and patched
    unless told."""

    BASE = "bench-base-npt1.log"
    PATCHED = "bench-patched-npt1.log"
    HEADER = {"date": "2026-11-30 18:00 UTC", "qemu": "QEMU emulator version 7.2"}

    def report(self, *logs: str, kernels: Tuple[str, ...] = ("base", "patched")) -> str:
        """bench.md of LOGS (fixture names or paths), one per kernel; the
        paths written are in self.written."""
        ins = inputs([(k, "1", p) for k, p in zip(kernels, logs)])
        self.written, _, _ = testlib.run(
            lambda: bench.write(ins, with_qemu(ins, self.HEADER), self.path("out")))
        self.assertEqual(self.written[:2], [self.path("out/bench.md"),
                                            self.path("out/bench.csv")])
        for p in self.written:
            self.assertTrue(os.path.exists(p), p)
        return self.text("out/bench.md")


class ReportTest(BenchCase):
    """The parked tables on guest logs of a real run."""

    def test_bench(self) -> None:
        md = self.report(self.BASE, self.PATCHED)
        # The QEMU command of the logs, from the verdict's header.
        self.assertIn("| QEMU | QEMU emulator version 7.2: `qemu-system-x86_64 -accel "
                      "tcg,thread=single -cpu EPYC,+svm,+npt", md)
        self.assertIn("| date | 2026-11-30 18:00 UTC |", md)
        rows = {tuple(c.strip() for c in x.split("|")[1:4]): x.split("|")[4:7]
                for x in md.splitlines() if x.startswith("| mprotect |")}
        base, patched, ratio = (c.strip() for c in rows[("mprotect", "anon-4k",
                                                         "pf_taken (re-read)")])
        self.assertGreater(int(base), 0)
        self.assertEqual((patched, ratio), ("0", "0.00"))
        with open(self.path("out/bench.csv")) as f:
            csv_rows = f.read().splitlines()
        self.assertEqual(csv_rows[0].split(",")[:3], ["kernel", "npt", "kernel_release"])
        self.assertGreater(len(csv_rows), 10)

    def test_config_and_args(self) -> None:
        # Kernels of the timing config say so instead of warning about
        # KVM_PROVE_MMU; the arguments come from the test's command as the
        # report's header has it (report.write puts it there); a narrowing
        # call time row beside the other narrowing rows.
        self.HEADER = dict(BenchCase.HEADER, config="timing: guest/timing.config",
                           **{"test:parked": "./perm_upgrade_bench -s 64 -r 5"})
        md = self.report(self.BASE, self.PATCHED)
        self.assertIn("built with `guest/timing.config` (KVM_PROVE_MMU off)", md)
        self.assertNotIn("may be that check", md)
        self.assertIn("| benchmark | `perm_upgrade_bench -s 64 -r 5` (region MiB", md)
        self.assertIn("| mprotect | anon-4k | narrowing call time (us, min) |", md)
        self.HEADER = BenchCase.HEADER
        md = self.report(self.BASE, self.PATCHED)
        self.assertIn("may be that check", md)
        self.assertIn("| benchmark | `perm_upgrade_bench ?`", md)

    def test_runner_form(self) -> None:
        # The same logs as runner.sh prints them ("# " before each line of
        # the payload) give the same report.
        md = self.report(self.BASE, self.PATCHED)
        paths = []
        for name in (self.BASE, self.PATCHED):
            paths.append(testlib.write(self.path(name), "\n".join(
                testlib.as_runner(lines(name))) + "\n"))
        self.assertEqual(self.report(*paths).replace(self.tmp + "/", ""),
                         md.replace(data(""), ""))

    def test_no_results(self) -> None:
        # A kernel whose log has no BENCH line says so, by its log.
        md = self.report(self.BASE, "guest-pass.log")
        self.assertIn("**patched kernel: no results** (log: `%s`)" % data("guest-pass.log"), md)
        self.assertIn("**patched kernel: no live results**", md)
        self.assertIn("| mprotect | anon-4k | pf_taken (re-read) | ", md)

    def test_plots_written(self) -> None:
        # Without matplotlib the report names no plot it did not draw.
        with mock.patch.object(report, "pyplot", return_value=None), \
                mock.patch.object(bench, "pyplot", return_value=None):
            self.report(self.BASE, self.PATCHED)
        self.assertEqual(len(self.written), 2)


class Arm64Test(BenchCase):
    """bench-arm64.md: arm64/perm_upgrade_test's exit counts, base vs
    patched (make bench-arm64's VHE boots)."""

    def arm64(self, *specs: Tuple[str, str, str]) -> str:
        written, _, _ = testlib.run(lambda: bench.write_arm64(
            inputs(specs), {"date": "2026-12-01"}, self.tmp))
        self.assertEqual(written, [self.path("bench-arm64.md")])
        return self.text("bench-arm64.md")

    def test_arm64(self) -> None:
        md = self.arm64(("base", "vhe", "bench-arm64-base-vhe.log"),
                        ("patched", "vhe", "bench-arm64-patched-vhe.log"))
        self.assertTrue(md.startswith("# arm64/perm_upgrade_test: base vs patched\n"))
        self.assertIn("\n    date=2026-12-01\n", md)
        self.assertIn("`qemu-system-aarch64 -accel tcg,thread=single -M virt,virtualization=on",
                      md)
        self.assertIn("### vhe\n", md)
        rows = {tuple(c.strip() for c in x.split("|")[1:3]): [c.strip()
                                                              for c in x.split("|")[3:6]]
                for x in md.splitlines() if x.startswith("| m") or x.startswith("| u")}
        self.assertEqual(rows[("mprotect/4k", "refaults after the upgrade (exits over control)")],
                         ["1030", "0", "0.00"])
        self.assertEqual(rows[("mprotect/thp", "exits, read pass after the upgrade")],
                         ["33", "1", "0.03"])
        self.assertEqual(rows[("uffd-wp/4k", "exits, read pass after the narrowing")][:2],
                         ["1029", "1027"])
        self.assertEqual(rows[("mprotect/4k", "read pass time after the upgrade (ms)")][:2],
                         ["111.99", "0.46"])

    def test_modes(self) -> None:
        # A section per mode, in the order of the boots; a kernel without a
        # log there has n/a.
        md = self.arm64(("base", "vhe", "bench-arm64-base-vhe.log"),
                        ("patched", "vhe", "bench-arm64-patched-vhe.log"),
                        ("patched", "nvhe", "bench-arm64-patched-vhe.log"))
        self.assertLess(md.index("### vhe\n"), md.index("### nvhe\n"))
        nvhe = md[md.index("### nvhe\n"):]
        self.assertIn("| mprotect/4k | refaults after the upgrade (exits over control) | n/a | 0 "
                      "| n/a |", nvhe)

    def test_read_arm64(self) -> None:
        # The test's lines under runner.sh ("# # ..."), "# " dropped once.
        cases = bench.read_arm64(read("bench-arm64-base-vhe.log").payload)
        self.assertEqual(sorted(cases), ["mprotect/4k", "mprotect/thp", "uffd-wp/4k"])
        self.assertEqual(cases["mprotect/4k"], {
            "populate": 1037, "control": 1, "downgrade": 1032, "upgrade": 1031,
            "refaults": 1030, "written": 1, "control_us": 526, "upgrade_us": 111986})
        # A log of the test without runner.sh: its lines are not the
        # payload's "# " lines once stripped.
        self.assertEqual(bench.read_arm64(["mprotect/4k: exits: populate 1, control 1, "
                                           "downgrade 1, upgrade 1"]), {})


class LiveBenchTest(BenchCase):
    """The live mode's part of the bench report, on trimmed guest logs of a
    real make bench run (npt=1; the live runs snapshot/anon-4k,
    snapshot/thp and mprotect/anon-4k, and the parked snapshot/thp rep 0)."""

    BASE = "bench-live-base-npt1.log"
    PATCHED = "bench-live-patched-npt1.log"
    HEADER = {"date": "2026-12-01 03:47 UTC", "live_args": "-L -s 32 -T 2000 -v 2"}

    def test_parse(self) -> None:
        log = bench.read_live(read(self.BASE).payload)
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
        rows, skips, info = bench.read_log(read(self.BASE).payload)
        self.assertEqual(len(rows), 1)
        self.assertEqual((rows[0]["mem_before_anon_huge_kb"], rows[0]["mem_after_anon_huge_kb"]),
                         ("65536", "0"))

    def test_histogram_matches_program(self) -> None:
        # The report's percentiles come from the histogram; the program
        # prints its own: they must agree, and the histogram must hold
        # every probe.
        n = 0
        for name in (self.BASE, self.PATCHED):
            for run in bench.read_live(read(name).payload).runs.values():
                for phase in bench.PHASES:
                    row = run.phases[phase]
                    self.assertEqual(sum(c for _, _, c in run.hist[phase]), int(row["probes"]))
                    for key, _, _ in bench.QUANTILES:
                        self.assertEqual(bench.latency_ns(run, phase, key), float(row[key]),
                                         (name, phase, key))
                        n += 1
        self.assertEqual(n, 2 * 3 * 2 * 4)
        # ceil(q * n)-th probe: with 4 probes in [10, 11) and 1 in [20, 22),
        # p50 is 11 cycles, p99 22; at 1 MHz, 1 cycle is 1000 ns.
        hist = [(10, 11, 4), (20, 22, 1)]
        self.assertEqual(bench.hist_quantile(hist, 5000), 11)
        self.assertEqual(bench.hist_quantile(hist, 8000), 11)
        self.assertEqual(bench.hist_quantile(hist, 8001), 22)
        self.assertIsNone(bench.hist_quantile([], 5000))

    def test_cpu_time(self) -> None:
        # The calling thread's CPU time per call, where the log has it.
        with open(data(self.BASE)) as f:
            text = f.read()
        self.assertEqual(text.count("call_ns=7890253725 "), 1)
        base = testlib.write(self.path("base.log"), text.replace(
            "call_ns=7890253725 ", "call_ns=7890253725 call_cpu_ns=819200000 "))
        rows = table(self.report(base, self.PATCHED))
        # 819.2 ms over 8192 resolves; the patched log has no such field.
        self.assertEqual(rows[("snapshot", "anon-4k",
                               "CPU time of the calling thread per call (us)")][:2],
                         ["100.0", "n/a"])
        # Where no log has it, no row.
        rows = table(self.report(self.BASE, self.PATCHED))
        self.assertNotIn(("snapshot", "anon-4k", "CPU time of the calling thread per call (us)"),
                         rows)
        self.assertIn(("snapshot", "anon-4k", "host time per call (us)"), rows)

    def test_rate_series(self) -> None:
        run = bench.read_live(read(self.BASE).payload).runs[("mprotect", "anon-4k")]
        series = bench.rate_series(run, "pf_fixed")
        # 9 samples in the scenario, which starts at 2002.3 ms; the first
        # interval, 2001.9 -> 2250.6 ms, took pf_fixed from 8226 to 12651.
        self.assertEqual(len(series), 9)
        t, v = series[0]
        self.assertAlmostEqual(t, (2250.6 - 2002.3) / 1000)
        self.assertAlmostEqual(v, (12651 - 8226) / 0.2487, places=3)

    def test_report(self) -> None:
        md = self.report(self.BASE, self.PATCHED)
        self.assertIn("### Live vCPUs", md)
        self.assertIn("Every figure here is taken under TCG", md)
        self.assertIn("2 vCPUs running", md)
        rows = table(md)
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
        self.report(self.BASE, self.PATCHED)
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
        md = self.report(self.BASE, log)
        self.assertIn("patched kernel: skipped mprotect/hugetlb: no-hugetlb", md)
        self.assertIn("patched kernel: skipped live snapshot/hugetlb-shared: no-hugetlb", md)
        self.assertNotIn("skipped snapshot/hugetlb-shared", md)
        self.assertIn("**patched kernel: the live mode did not finish**", md)


class ZapBenchTest(BenchCase):
    """The zap scenario (plain invalidations) in the bench report, on guest
    logs of a real run of perm_upgrade_bench -S zap (npt=1, 32 MiB, 3
    repetitions of 8 rounds; test_data/bench-zap-*)."""

    BASE = "bench-zap-base-npt1.log"
    PATCHED = "bench-zap-patched-npt1.log"
    HEADER = {"date": "2026-12-02 23:11 UTC", "args": "-s 32 -r 3 -b 8 -z 8 -S zap"}

    def edited(self, name: str, pattern: str, repl: str, count: int) -> str:
        """A copy of a log with the COUNT matches of the regular expression
        PATTERN (no fewer, no more) replaced by REPL."""
        with open(data(name)) as f:
            text, n = re.subn(pattern, repl, f.read())
        self.assertEqual(n, count, pattern)
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_parse(self) -> None:
        rows, skips, info = bench.read_log(read(self.BASE).payload)
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
        self.assertEqual(bench.zap_sptes(r), 8192)
        t = [r for r in rows if r["backing"] == "thp"][0]
        self.assertEqual((bench.zap_sptes(t), t["pf_taken_per_round"]), (16, "16.0000"))
        self.assertEqual([(s["backing"], s["op"], s["reason"]) for s in skips],
                         [("anon-4k", "punch_hole", "no-memfd"), ("thp", "punch_hole", "no-memfd"),
                          ("hugetlb", "punch_hole", "no-memfd")])

    def test_report(self) -> None:
        md = self.report(self.BASE, self.PATCHED)
        zap = md[md.index("### Plain zap"):md.index("### Live vCPUs")]
        self.assertIn("| backing | op | metric | base | patched | patched/base |", zap)
        rows = table(zap)
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
        rows = table(zap)
        self.assertEqual(rows[("hugetlb-shared", "punch_hole", "zapped SPTEs per zap")],
                         ["n/a", "16", "n/a"])

    def test_counts_differ(self) -> None:
        # Patched zapping none of hugetlb's SPTEs on MADV_DONTNEED.
        patched = self.edited(
            self.PATCHED, r"(backing=hugetlb paging=tdp op=madv_dontneed .*) zapped=128 (.*) "
            r"zapped_min=16 zapped_max=16 ", r"\1 zapped=0 \2 zapped_min=0 zapped_max=0 ", 3)
        md = self.report(self.BASE, patched)
        self.assertIn("- hugetlb madv_dontneed: zapped SPTEs per zap differ: base 16, patched 0",
                      md)
        self.assertIn("- hugetlb madv_dontneed, patched kernel, rep 0: a round zapped 0 times, "
                      "the region has 16 SPTEs", md)
        self.assertNotIn("- hugetlb-shared madv_dontneed", md)

    def test_csv(self) -> None:
        self.report(self.BASE, self.PATCHED)
        with open(os.path.join(self.tmp, "out", "bench.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 2 * 27)
        r = [r for r in rows if (r["kernel"], r["backing"], r["op"], r["rep"])
             == ("patched", "hugetlb-shared", "punch_hole", "2")][0]
        self.assertEqual((r["scenario"], r["call_ns_p50"], r["zapped_2m"]),
                         ("zap", "280971", "128"))


class PriorBenchTest(BenchCase):
    """The bench report with a third kernel, prior (the series without its
    newest patches), on small synthetic logs (test_data/bench-synth-*):
    base zaps on the narrowing and the upgrade, prior only on the
    narrowing, patched on neither."""

    HEADER = {"date": "2026-12-01 12:00 UTC", "live_args": "-L -s 4 -T 2000 -v 2",
              "prior_kernel": "/srv/prior/bzImage"}

    def synth(self, *kernels: str) -> str:
        return self.report(*("bench-synth-%s-npt1.log" % k for k in kernels), kernels=kernels)

    def test_three_kernels(self) -> None:
        md = self.synth("base", "prior", "patched")
        self.assertIn("# perm_upgrade_bench: base, prior and patched", md)
        self.assertIn("| prior kernel | 7.2.8-g5b3e0d41c7f2 (the series without its newest "
                      "patches: `/srv/prior/bzImage`, KPU_PRIOR_KERNEL) |", md)
        # Parked and live tables: prior between base and patched, both ratios.
        head = ("| scenario | backing | metric | base | prior | patched | patched/base "
                "| patched/prior |")
        self.assertEqual(md.count(head), 2)
        rows = table(md)
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
        with open(os.path.join(self.tmp, "out", "bench.csv")) as f:
            csv_rows = list(csv.DictReader(f))
        prior = [r for r in csv_rows if r["kernel"] == "prior" and r["mode"] == "parked"]
        self.assertEqual(len(prior), 4)
        self.assertEqual(prior[0]["kernel_release"], "7.2.8-g5b3e0d41c7f2")
        self.assertEqual(prior[0]["down_tlb_flush_req"], "1")

    def test_two_kernels(self) -> None:
        # Without a prior log, the tables are those of base vs patched.
        md = self.synth("base", "patched")
        self.assertNotIn("prior", md)
        self.assertIn("| scenario | backing | metric | base | patched | patched/base |\n"
                      "| --- | --- | --- | ---: | ---: | ---: |\n", md)
        self.assertIn("| mprotect | anon-4k | zapped SPTEs (narrowing) | 1024 | 0 | 0.00 |", md)

    def test_unknown_kernel(self) -> None:
        # Refused before anything is written.
        out = self.path("out")
        with self.assertRaises(ValueError) as cm:
            bench.write(inputs([("base", "1", "bench-synth-base-npt1.log"),
                                ("old", "1", "bench-synth-prior-npt1.log")]), {}, out)
        self.assertEqual(str(cm.exception), "unknown kernel 'old' (base, prior, patched)")
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main(verbosity=2)
