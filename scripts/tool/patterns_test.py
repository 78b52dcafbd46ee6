#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of patterns (e2e-patterns.md) on synthetic logs of e2e/run's
format, read once as the verdict reads them (ktap)."""

import os
import sys
import unittest
from typing import Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import e2e  # noqa: E402
import patterns  # noqa: E402
import testlib  # noqa: E402


def synth_log(kernel: str, pf: Dict[str, int], uffd: Dict[str, int], probe: str) -> List[str]:
    """One outer guest's e2e/run output for anon-4k+write64: marks, the
    stats at each, snapwork's start and pass lines, E2E-UFFD, E2E-UFFDIO."""
    b = "anon-4k+write64"
    ls = ["E2E-INFO kernel=%s npt=Y tsc_mhz=1000.0" % kernel,
          "E2E-BEGIN backing=%s mem_mb=128 thp=never append=flat,write64 verify=1" % b,
          "E2E-L2 backing=%s: SNAPWORK start lo=1000000 hi=8000000 pages=7000 mode=flat "
          "pattern=write64" % b]
    marks = (("before", 10.0, 3), ("check", 20.0, 6), ("protect", 50.0, 9),
             ("resolve", 70.0, 12), ("after", 80.0, 15))
    for i in range(16):
        # Passes 7-11 run wholly between the check and resolve marks.
        ls.append("E2E-L2 backing=%s: SNAPWORK pass=%x tsc=1000 slow=0 max=10 hist=1,0 probe=%s"
                  % (b, i, probe if 7 <= i <= 11 else "8:1"))
    for name, up, passes in marks:
        ls.append("E2E-MARK backing=%s mark=%s uptime=%s passes=%d" % (b, name, up, passes))
        ls.append("E2E-MON mark=%s:     pf_taken (cumulative): %d" % (name, pf[name]))
        ls.append("E2E-MON mark=%s:     remote_tlb_flush (cumulative): %d" % (name, pf[name] // 10))
    # With verify=1 the guest stays stopped from the check mark until
    # migrate: here no time passes in between.
    ls.append("E2E-STEP backing=%s step=migrate uptime=20.0 passes=6" % b)
    ls.append("E2E-MON mark=info: total time: 40000 ms")
    for seg in ("protect", "resolve", "snapshot"):
        ls.append("E2E-UFFD backing=%s seg=%s pgsz=4096 events=%d pages=%d outside=0 faults=%d "
                  "faults_uffd_pages=%d faults_other=%d other_pages=%d faults_low=0"
                  % (b, seg, uffd["events"], uffd["pages"], uffd["faults"], uffd["fb"],
                     uffd["fa"], uffd["fa"]))
    ls.append("E2E-UFFDIO backing=%s protect_calls=1 protect_us=2000 protect_max_us=2000 "
              "protect_bytes=134217728 resolve_calls=100 resolve_us=%d resolve_max_us=90 "
              "resolve_bytes=409600" % (b, uffd["resolve_us"]))
    ls.append("E2E-VERIFY backing=%s bytes=134217728 mismatched_pages=0 stamp_pages=0 "
              "capped=0 first=-" % b)
    ls.append("E2E-END backing=%s ok=1" % b)
    ls.append("E2E-DONE")
    return ls


class PatternsTest(testlib.TmpTest):
    def setUp(self) -> None:
        super().setUp()
        # 0x7000 = 28672 pages in the region; 1000 written before QEMU
        # saved them.
        self.base = synth_log("7.2.8", {"before": 0, "check": 100, "protect": 40100,
                                        "resolve": 70100, "after": 70100},
                              {"events": 2000, "pages": 1000, "faults": 70000, "fb": 3000,
                               "fa": 67000, "resolve_us": 9000}, "10:5,18:4,20:1")
        self.patched = synth_log("7.2.8-series", {"before": 0, "check": 0, "protect": 2000,
                                                  "resolve": 30000, "after": 30000},
                                 {"events": 2000, "pages": 1000, "faults": 30000, "fb": 2000,
                                  "fa": 27672, "resolve_us": 3000}, "10:9,11:1")

    def figures(self, lines: List[str]) -> Dict[str, Optional[float]]:
        log = e2e.parse(lines)
        return patterns.figures(log, log.backings["anon-4k+write64"])

    def test_probe_buckets(self) -> None:
        # Below 8 cycles one bucket per value; then 8 per power of two:
        # bucket 8 holds [8, 9), bucket 16 [16, 18), bucket 24 [32, 36).
        self.assertEqual([patterns.probe_upper(i) for i in (0, 7, 8, 15, 16, 23, 24)],
                         [1, 8, 9, 16, 18, 32, 36])
        uppers = [patterns.probe_upper(i) for i in range(240)]
        self.assertEqual(uppers, sorted(set(uppers)))
        # 5 probes in bucket 0x10, 4 in 0x18, 1 in 0x20.
        hist = {0x10: 5, 0x18: 4, 0x20: 1}
        self.assertEqual(patterns.probe_percentile(hist, 0.5), 18)
        self.assertEqual(patterns.probe_percentile(hist, 0.9), 36)
        self.assertEqual(patterns.probe_percentile(hist, 0.999), 72)
        self.assertIsNone(patterns.probe_percentile({}, 0.5))

    def test_figures(self) -> None:
        f = self.figures(self.patched)
        # Over the snapshot: from migrate to the resolve mark.
        self.assertEqual(f["pf_taken"], 30000)
        self.assertEqual(f["snapshot_s"], 50.0)
        self.assertEqual(f["pf_taken_per_s"], 600.0)
        self.assertEqual(f["remote_tlb_flush"], 3000)
        self.assertEqual(f["faults_per_uffd_page"], 2.0)
        # The region's 28672 pages less the 1000 written before.
        self.assertEqual(f["pages_after"], 27672)
        self.assertEqual(f["faults_per_page_after"], 1.0)
        self.assertEqual(f["faults_per_needed"], 30.0)
        self.assertEqual(f["qemu_total_s"], 40.0)
        self.assertEqual(f["resolve_calls"], 100)
        self.assertEqual(f["resolve_ms"], 3.0)
        # Only the passes wholly inside the snapshot (7-11: 50 probes).
        self.assertEqual(f["probes"], 50)
        self.assertEqual(f["p50_ns"], 18.0)     # bucket 0x10's bound, 1 GHz
        b = self.figures(self.base)
        self.assertEqual(b["p999_ns"], 72.0)

    def test_read_pattern_has_no_after(self) -> None:
        lines = [ln.replace("write64", "read64") for ln in self.patched]
        log = e2e.parse(lines)
        f = patterns.figures(log, log.backings["anon-4k+read64"])
        self.assertNotIn("pages_after", f)

    def report(self, *specs: List[str], kernels: str = "base patched") -> str:
        """e2e-patterns.md of one npt=1 log per kernel (the payload
        SPECS, after a "GUEST: kernel" line, runner.sh's "# " before each
        line)."""
        ins = []
        for k, text in zip(kernels.split(), specs):
            p = testlib.write(self.path(k + ".log"), "\n".join(testlib.as_runner(
                ["GUEST: kernel %s x86_64 kvm_amd.npt=Y hugepages=64" % k] + text)) + "\n")
            ins.append((k, "1", p))
        self.assertEqual(patterns.write(testlib.inputs(ins), {"date": "now"}, self.tmp),
                         [self.path("e2e-patterns.md")])
        return self.text("e2e-patterns.md")

    def test_report(self) -> None:
        md = self.report(self.base, self.patched)
        self.assertIn("# QEMU background snapshot, three guest patterns: base vs patched", md)
        self.assertIn("| date | now |", md)
        self.assertIn("| base kernel | 7.2.8 |\n| patched kernel | 7.2.8-series |", md)
        self.assertIn("Everything ran nested under TCG", md)
        self.assertIn("## kvm_amd.npt=1\n\n### anon-4k+write64\n", md)
        # v1's ratio beside ours: write64's pf/s, 2292 / 968018.
        self.assertIn("| pf/s | 1400 | 600 | 0.43 | 0.0024 |", md)
        self.assertIn("| faults per page written before it was saved | 3.00 | 2.00 | 0.67 |  |",
                      md)
        self.assertIn("| probe read latency p50 (ns, bucket bound) | 18 | 18 | 1.00 | 0.76 |", md)
        self.assertIn("| the snapshot against the guest's memory when it started | "
                      "0 of 32768 pages differ | 0 of 32768 pages differ |", md)
        self.assertNotIn("did not finish", md)

    def test_report_prior(self) -> None:
        # prior between base and patched, with its own ratio column; a
        # kernel whose run did not finish says so.
        md = self.report(self.base, self.base[:-1], self.patched, kernels="base prior patched")
        self.assertIn("| metric | base | prior | patched | patched/base | patched/prior "
                      "| v1 patched/base |", md)
        self.assertIn("| pf/s | 1400 | 1400 | 600 | 0.43 | 0.43 | 0.0024 |", md)
        self.assertIn("**prior kernel: the run did not finish** (log: `%s`)"
                      % self.path("prior.log"), md)

    def test_order(self) -> None:
        self.assertEqual(patterns.order(["thp+read64", "anon-4k+rand-set", "anon-4k+read64",
                                             "anon-4k+write64"]),
                         ["anon-4k+read64", "anon-4k+write64", "anon-4k+rand-set", "thp+read64"])
