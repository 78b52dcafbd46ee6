# SPDX-License-Identifier: GPL-2.0
"""Tests of rfc_e2e on captured e2e logs (test_data/e2e-*-anon4k.log: the
anon-4k part of a real make e2e run, base and patched kernel).  Run by
rfctool_test.py, which imports the test case."""

import contextlib
import csv
import io
import os
import tempfile
import unittest

import rfc_e2e

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_data")
BASE = os.path.join(DATA, "e2e-base-anon4k.log")
PATCHED = os.path.join(DATA, "e2e-patched-anon4k.log")


class E2ETest(unittest.TestCase):
    def setUp(self) -> None:
        self.base = rfc_e2e.read(BASE)
        self.patched = rfc_e2e.read(PATCHED)

    def row(self, log: rfc_e2e.Log, phase: str) -> dict:
        return rfc_e2e.phase_row(log, log.backings["anon-4k"], phase)

    def test_parse(self) -> None:
        b = self.base.backings["anon-4k"]
        self.assertTrue(self.base.done)
        self.assertTrue(b.ok)
        self.assertEqual(list(b.marks), list(rfc_e2e.MARKS))
        self.assertEqual(b.region_pages, E2E_REGION_PAGES)
        self.assertEqual(b.begin["thp"], "never")
        self.assertEqual(self.base.tsc_mhz, E2E_TSC_MHZ)
        # info stats vm and vcpu both land in the mark's stats.
        self.assertEqual(b.stats["before"]["pages_4k"], E2E_BASE_BEFORE_PAGES_4K)
        self.assertEqual(b.stats["before"]["pf_taken"], E2E_BASE_BEFORE_PF)
        self.assertEqual(b.migrate["Migration status"], "completed")
        self.assertEqual(len(b.passes), E2E_BASE_PASSES)

    def test_phases(self) -> None:
        # What the issue asks the e2e to show: the write-protect makes both
        # kernels refault every page once; on the base the resolves refault
        # and flush once per page, and the final whole-memory resolve once
        # more; the patched kernel does neither.
        for log in (self.base, self.patched):
            r = self.row(log, "protect")
            self.assertGreaterEqual(r["pf_per_page"], 0.95)
            self.assertEqual(r["trace_full"], 1)
        self.assertEqual(self.row(self.base, "check")["pf_taken"], E2E_BASE_CHECK_PF)
        r = self.row(self.base, "resolve")
        self.assertEqual(r["remote_tlb_flush_requests"], E2E_BASE_RESOLVE_FLUSH_REQ)
        self.assertEqual(r["trace_full"], 2)
        p = self.row(self.patched, "resolve")
        self.assertEqual(p["pf_taken"], 0)
        self.assertEqual(p["remote_tlb_flush_requests"], 0)
        # Stopped at every mark, the stats and the trace count the same
        # faults.
        for log in (self.base, self.patched):
            for ph in rfc_e2e.PHASES:
                r = self.row(log, ph)
                self.assertEqual(r["pf_taken"], r["trace_faults"], (log.path, ph))

    def test_phase_passes(self) -> None:
        b = self.base.backings["anon-4k"]
        sel = rfc_e2e.phase_passes(b, "protect")
        lo = int(b.marks["check"]["passes"]) + 1
        hi = int(b.marks["protect"]["passes"])
        self.assertEqual([p["pass"] for p in sel], list(range(lo, hi)))
        self.assertEqual([p["pass"] for p in rfc_e2e.phase_passes(b, "before")],
                         list(range(1, int(b.marks["before"]["passes"]))))

    def test_percentile(self) -> None:
        hist = [90, 0, 9, 1]
        self.assertEqual(rfc_e2e.percentile(hist, 0.5), 1 << 11)
        self.assertEqual(rfc_e2e.percentile(hist, 0.99), 1 << 13)
        self.assertEqual(rfc_e2e.percentile(hist, 0.999), 1 << 14)
        self.assertIsNone(rfc_e2e.percentile([0, 0], 0.5))

    def test_cut_line(self) -> None:
        with open(BASE) as f:
            lines = f.read().splitlines()
        lines.append("E2E-L2 backing=anon-4k: SNAPWORK pass=ffff tsc=12 slow=0 max=3 hist=1,")
        log = rfc_e2e.parse(lines)
        self.assertEqual(len(log.backings["anon-4k"].passes), E2E_BASE_PASSES)

    def test_report(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            hdr = os.path.join(d, "header.txt")
            with open(hdr, "w") as f:
                f.write("date=now\nqemu=QEMU 7.2\n")
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = rfc_e2e.main([hdr, d, "base:1=" + BASE, "patched:1=" + PATCHED])
            self.assertEqual(rc, 0)
            with open(os.path.join(d, "e2e.md")) as f:
                md = f.read()
            self.assertIn("| resolve | remote_tlb_flush_requests | %d | 0 | 0.00 |"
                          % E2E_BASE_RESOLVE_FLUSH_REQ, md)
            self.assertIn("| check | guest page faults (pf_taken) | %d | 0 | 0.00 |"
                          % E2E_BASE_CHECK_PF, md)
            self.assertIn("only counts and ratios carry over", md.lower())
            with open(os.path.join(d, "e2e.csv")) as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(len(rows), 2 * len(rfc_e2e.PHASES))

    def test_verify(self) -> None:
        # e2e/run's check of the snapshot: clean on base, two pages torn on
        # a wrong build, and a backing whose check gave no result.
        with open(BASE) as f:
            lines = f.read().splitlines()
        end = max(i for i, ln in enumerate(lines) if ln.startswith("E2E-END "))
        clean = lines[:end] + [
            "E2E-VERIFY backing=anon-4k bytes=134217728 mismatched_pages=0 stamp_pages=0 "
            "capped=0 first=-"
        ] + lines[end:]
        torn = lines[:end] + [
            "E2E-VERIFY backing=anon-4k bytes=134217728 mismatched_pages=2 stamp_pages=1 "
            "capped=0 first=0x1000000,0x1004000",
            "E2E-VERIFY-DIFF backing=anon-4k page=0x1000000 bytes=1 at=0x1000000: "
            "ref= 01000000 00000004 00000000 00000000 snap= 01000000 00000008 00000000 00000000",
            "E2E-ERROR backing=anon-4k: verify: the snapshot differs from the guest's "
            "memory when it started",
        ] + lines[end:]
        b = rfc_e2e.parse(torn).backings["anon-4k"]
        self.assertEqual(b.verify["mismatched_pages"], "2")
        self.assertEqual(len(b.verify_diffs), 1)
        self.assertEqual(rfc_e2e.verify_cell(b),
                         "2 of 32768 pages differ, 1 of them in a guest-written stamp "
                         "(first: 0x1000000, 0x1004000)")
        self.assertEqual(rfc_e2e.verify_cell(rfc_e2e.parse(clean).backings["anon-4k"]),
                         "0 of 32768 pages differ")
        self.assertEqual(rfc_e2e.verify_cell(self.base.backings["anon-4k"]), "not checked")
        self.assertEqual(rfc_e2e.verify_cell(None), "n/a")
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, ls in (("base", clean), ("patched", torn)):
                paths.append("%s:1=%s" % (name, os.path.join(d, name + ".log")))
                with open(os.path.join(d, name + ".log"), "w") as f:
                    f.write("\n".join(ls) + "\n")
            md = self.report(*paths)
        self.assertIn("| anon-4k | 0 of 32768 pages differ | 2 of 32768 pages differ, 1 of "
                      "them in a guest-written stamp (first: 0x1000000, 0x1004000) |", md)
        self.assertIn("- patched kernel: `backing=anon-4k page=0x1000000 bytes=1 at=0x1000000:",
                      md)

    def test_retried(self) -> None:
        # pf_taken less the outcomes KVM counts (fixed, emulated,
        # spurious): the faults sent back to the guest to be retried.
        self.assertEqual(self.row(self.base, "resolve")["pf_retried"], 1089)
        self.assertEqual(self.row(self.patched, "protect")["pf_retried"], 874)
        self.assertEqual(self.row(self.patched, "resolve")["pf_retried"], 0)

    def test_rerun(self) -> None:
        # A base log whose anon-4k failed, then a rerun of that backing:
        # the rerun's figures replace it, and the header says so.
        with open(BASE) as f:
            lines = f.read().splitlines()
        failed = [ln for ln in lines if not ln.startswith(("E2E-VERIFY", "E2E-MON mark=info"))]
        failed = [ln.replace("E2E-END backing=anon-4k ok=1", "E2E-END backing=anon-4k ok=0")
                  for ln in failed]
        failed.insert(len(failed) - 2, "E2E-ERROR backing=anon-4k: the nested guest made no "
                      "pass for 120s")
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "base-bad.log")
            with open(bad, "w") as f:
                f.write("\n".join(failed) + "\n")
            md = self.report("base:1=" + bad, "patched:1=" + PATCHED, "base:1=" + BASE)
        self.assertIn("| rerun | base kernel, npt=1, anon-4k: from a rerun (`%s`); the first "
                      "run's last step: completed, errors: the nested guest made no pass for "
                      "120s |" % BASE, md)
        # A failed check is never replaced.
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "base-bad.log")
            with open(bad, "w") as f:
                f.write("\n".join(failed + ["E2E-ERROR backing=anon-4k: verify: the snapshot "
                                             "differs from the guest's memory"]) + "\n")
            with self.assertRaises(ValueError):
                self.report("base:1=" + bad, "patched:1=" + PATCHED, "base:1=" + BASE)
        self.assertNotIn("error: the nested guest made no pass", md)
        self.assertIn("| protect+resolve | guest page faults (pf_taken) | 64805 | 29517 | 0.46 |",
                      md)

    def test_backing_order(self) -> None:
        self.assertEqual(rfc_e2e.backing_order(["thp+write", "memfd", "anon-4k", "x"]),
                         ["anon-4k", "memfd", "thp+write", "x"])

    def report(self, *specs: str) -> str:
        with tempfile.TemporaryDirectory() as d:
            hdr = os.path.join(d, "header.txt")
            with open(hdr, "w") as f:
                f.write("date=now\nprior_kernel=/srv/prior/bzImage\n")
            with contextlib.redirect_stdout(io.StringIO()):
                rc = rfc_e2e.main([hdr, d] + list(specs))
            self.assertEqual(rc, 0)
            with open(os.path.join(d, "e2e.md")) as f:
                return f.read()

    def test_snapshot_faults(self) -> None:
        # The write-protect and resolve phases together, per page of the
        # nested guest's 128 MiB (32768 pages): 29522 + 35283 on base,
        # 29517 + 0 on patched.
        md = self.report("base:1=" + BASE, "patched:1=" + PATCHED)
        self.assertIn("| protect+resolve | guest page faults (pf_taken) | 64805 | 29517 | 0.46 |",
                      md)
        self.assertIn("| protect+resolve | pf_taken per page of guest memory (32768 pages) "
                      "| 1.98 | 0.90 | 0.46 |", md)
        self.assertNotIn("prior", md)

    def test_prior(self) -> None:
        # A third kernel between base and patched (synthetic logs,
        # test_data/e2e-synth-*: 64 MiB, prior zaps on the write-protect
        # only, patched never).
        md = self.report(*("%s:1=%s" % (k, os.path.join(DATA, "e2e-synth-%s.log" % k))
                           for k in ("base", "prior", "patched")))
        self.assertIn("# QEMU background snapshot, end to end: base, prior and patched", md)
        self.assertIn("| prior kernel | 7.2.8-g5b3e0d41c7f2 (the series without its newest "
                      "patches: `/srv/prior/bzImage`, RFC_PRIOR_KERNEL) |", md)
        self.assertIn("| phase | metric | base | prior | patched | patched/base | patched/prior |",
                      md)
        self.assertIn("| protect | guest page faults (pf_taken) | 12300 | 12300 | 0 | 0.00 | 0.00 |",
                      md)
        self.assertIn("| resolve | remote_tlb_flush_requests | 12000 | 0 | 0 | 0.00 | = |", md)
        self.assertIn("| protect+resolve | guest page faults (pf_taken) | 26300 | 12300 | 0 "
                      "| 0.00 | 0.00 |", md)
        self.assertIn("| protect+resolve | pf_taken per page of guest memory (16384 pages) "
                      "| 1.61 | 0.75 | 0.00 | 0.00 | 0.00 |", md)
        self.assertIn("| snapshot and memory | base | prior | patched |", md)
        self.assertIn("| QEMU's total time (ms, throttled part included) | 3400 | 3400 | 3400 |", md)

    def test_missing_log(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            hdr = os.path.join(d, "header.txt")
            open(hdr, "w").close()
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = rfc_e2e.main([hdr, d, "base:1=" + os.path.join(d, "nope.log"),
                                   "patched:1=" + PATCHED])
            self.assertEqual(rc, 1)
            self.assertIn("base kernel: the run did not finish", out.getvalue())


class SoakTest(unittest.TestCase):
    # A soak run whose nested guest reset itself (a triple fault): the
    # lines e2e/run prints, with QEMU 7.2's own QMP event and monitor
    # output.
    RESET = [
        "E2E-INFO kernel=7.2.8 npt=1 tsc_mhz=2599.997",
        "E2E-BEGIN backing=thp mem_mb=384 thp=always l2=flat write=1 khugepaged=100 "
        "qemu=QEMU emulator version 7.2.22",
        "E2E-MARK backing=thp mark=before uptime=20.1 passes=3",
        "E2E-ERROR backing=thp: the nested guest failed: QEMU reports a shutdown: "
        '{"guest": true, "reason": "guest-reset"}',
        "E2E-STATE backing=thp: VM status: paused (shutdown)",
        "E2E-STATE backing=thp: * CPU #0: thread_id=123",
        "E2E-STATE backing=thp: EAX=00000000 EBX=00000000 ECX=00000000 EDX=00000000",
        "E2E-STATE backing=thp: EIP=0010005d EFL=00000012 [----A--] CPL=0 II=0 A20=1",
        "E2E-STATE backing=thp: l2: SNAPWORK pass=4 tsc=1 slow=0 max=1 hist=1",
        "E2E-QMP backing=thp: {\"timestamp\": {\"seconds\": 1, \"microseconds\": 2}, "
        '"event": "SHUTDOWN", "data": {"guest": true, "reason": "guest-reset"}}',
        "E2E-QMP backing=thp: {\"timestamp\": {\"seconds\": 3, \"microseconds\": 4}, "
        '"event": "SHUTDOWN", "data": {"guest": false, "reason": "host-qmp-quit"}}',
        "E2E-END backing=thp ok=0",
        "E2E-DONE",
    ]

    def test_nested_reset(self) -> None:
        verdict, evidence = rfc_e2e.soak_verdict(self.RESET)
        self.assertEqual(verdict, "nested")
        self.assertEqual(evidence[0], "the nested guest failed: QEMU reports a shutdown: "
                         '{"guest": true, "reason": "guest-reset"}')
        self.assertIn('"reason": "guest-reset"}}', evidence[1])
        self.assertFalse(any("host-qmp-quit" in e for e in evidence))
        self.assertEqual(evidence[2], "E2E-STATE backing=thp: VM status: paused (shutdown)")
        self.assertTrue(evidence[3].startswith("E2E-STATE backing=thp: EIP=0010005d"))
        self.assertEqual(evidence[-1],
                         "E2E-STATE backing=thp: l2: SNAPWORK pass=4 tsc=1 slow=0 max=1 hist=1")


class BootSoakTest(unittest.TestCase):
    # A boot soak log: one boot that worked, one that stalled in SeaBIOS
    # (e2e/run's lines, QEMU 7.2's monitor output), one that worked.
    LOG = [
        "E2E-INFO kernel=7.2.8 npt=1 tsc_mhz=2599.997",
        "E2E-BEGIN backing=thp mem_mb=384 thp=always l2=flat write=1 khugepaged=100 "
        "boots=3 qemu=QEMU emulator version 7.2.22",
        "E2E-BOOT backing=thp boot=1 ok=1 seconds=6.1 passes=2 unmaps=3 "
        "kinds=CLEAR/BLOCKABLE:2,UNMAP/BLOCKABLE:1",
        "E2E-ERROR backing=thp: the nested guest made no pass for 60s",
        "E2E-STALL backing=thp: VM status: running",
        "E2E-STALL backing=thp: EIP=0000006a EFL=00000002 [-------] CPL=0 II=0 A20=1",
        "E2E-STATE2 backing=thp: VM status: running",
        "E2E-STATE2 backing=thp: EIP=0000006c EFL=00000002 [-------] CPL=0 II=0 A20=1",
        "E2E-BOOT backing=thp boot=2 ok=0 seconds=65.0 passes=0 unmaps=5 kinds=CLEAR/BLOCKABLE:5 "
        "ram=0x7f0000000000-0x7f0018000000 ram_unmaps=1 ram_marked=0",
        "E2E-QMP backing=thp boot=2: {\"event\": \"SHUTDOWN\", \"data\": {\"guest\": false}}",
        "E2E-BOOT-UNMAP backing=thp boot=2: t=1.000 0x7f0000000000 -- 0x7f0000200000 "
        "event CLEAR flags BLOCKABLE",
        "E2E-BOOT backing=thp boot=3 ok=1 seconds=5.9 passes=2 unmaps=2 "
        "kinds=-:1,PROTECTION_VMA/BLOCKABLE|HAS_PROT:1",
        "E2E-BOOTS backing=thp boots=3 ok=2 failed=1",
        "E2E-END backing=thp ok=0",
        "E2E-DONE",
    ]

    def test_boots(self) -> None:
        found = rfc_e2e.boots(self.LOG)
        self.assertEqual([(b.boot, b.ok) for b in found], [(1, True), (2, False), (3, True)])
        self.assertEqual(found[0].kinds, {"CLEAR/BLOCKABLE": 2, "UNMAP/BLOCKABLE": 1})
        self.assertEqual(found[2].kinds, {"-": 1, "PROTECTION_VMA/BLOCKABLE|HAS_PROT": 1})
        ev = found[1].evidence
        self.assertEqual(ev[0], "E2E-ERROR backing=thp: the nested guest made no pass for 60s")
        self.assertEqual(ev[1], "unmaps over the guest RAM (0x7f0000000000-0x7f0018000000): 1, "
                         "marked: 0")
        self.assertEqual((found[1].ram_unmaps, found[1].ram_marked), (1, 0))
        self.assertIsNone(found[0].ram_marked)
        # Both samples of the registers, and the unmap; not the QEMU
        # quit's shutdown.
        self.assertTrue(any(e.startswith("E2E-STALL backing=thp: EIP=0000006a") for e in ev))
        self.assertTrue(any(e.startswith("E2E-STATE2 backing=thp: EIP=0000006c") for e in ev))
        self.assertTrue(ev[-1].startswith("E2E-BOOT-UNMAP backing=thp boot=2: t=1.000"))
        self.assertFalse(any("SHUTDOWN" in e for e in ev))
        self.assertEqual(found[0].evidence, [])

    def test_report(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            hdr = os.path.join(d, "header.txt")
            with open(hdr, "w") as f:
                f.write("date=today\n")
            log = os.path.join(d, "r1.log")
            with open(log, "w") as f:
                f.write("\n".join(self.LOG) + "\n")
            out = os.path.join(d, "out.md")
            rc = rfc_e2e.boot_soak_main([hdr, out, "patched:r1-npt1-single=" + log,
                                         "base:r1-npt1-single=" + os.path.join(d, "no.log")])
            self.assertEqual(rc, 0)
            md = open(out).read()
            self.assertIn("| patched | 1 | 1 | 1 | 3 | 2 | 1 | 1 | 0 | 0 |", md)
            # A run without a log: not clean, no boots, and listed.
            self.assertIn("| base | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 |", md)
            self.assertIn("| base | 1 | 1 | outer | - | outer run: ", md)
            self.assertIn("| patched | 1 | CLEAR/BLOCKABLE | 7 |", md)
            self.assertIn("| patched | 1 | PROTECTION_VMA/BLOCKABLE\\|HAS_PROT | 1 |", md)
            self.assertIn("| patched | 1 | 1 | 2 | 65.0 | E2E-ERROR", md)


# Figures of the captured logs.
E2E_REGION_PAGES = 28640
E2E_TSC_MHZ = 2599.997
E2E_BASE_BEFORE_PAGES_4K = 28800
E2E_BASE_BEFORE_PF = 28979
E2E_BASE_PASSES = 227
E2E_BASE_CHECK_PF = 28642
E2E_BASE_RESOLVE_FLUSH_REQ = 27472

if __name__ == "__main__":
    unittest.main()
