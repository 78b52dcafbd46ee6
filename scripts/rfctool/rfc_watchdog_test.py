# SPDX-License-Identifier: GPL-2.0
"""Tests of rfc_watchdog and of the soak report (rfc_e2e.soak_verdict),
on QEMU output and a console log captured from real runs.  Run by
rfctool_test.py, which imports the test case."""

import os
import unittest

import rfc_e2e
import rfc_splat
import rfc_watchdog

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_data")

# Three symbols of the guest kernel's System.map around the captured RIPs.
SYSTEM_MAP = """\
ffffffff812fa2a0 t native_apic_mem_write
ffffffff812fa2c0 t native_apic_mem_read
ffffffff813e6700 t __hrtimer_run_queues
ffffffff820079c0 T jiffies_64
ffffffff820079c0 D jiffies
"""


class WatchdogTest(unittest.TestCase):
    def test_registers(self) -> None:
        with open(os.path.join(DATA, "qemu-info-registers.txt")) as f:
            cpus = rfc_watchdog.parse_registers(f.read())
        self.assertEqual([c["cpu"] for c in cpus], ["0", "1"])
        self.assertEqual(cpus[0]["ip"], "ffffffff812fa2a0")
        self.assertEqual(cpus[1]["ip"], "ffffffff813e6812")
        self.assertEqual((cpus[0]["cpl"], cpus[0]["hlt"]), ("0", "0"))

    def test_symbols(self) -> None:
        syms = rfc_watchdog.Symbols(SYSTEM_MAP.splitlines())
        self.assertEqual(syms.resolve(0xffffffff812fa2a0), "native_apic_mem_write+0x0")
        self.assertEqual(syms.resolve(0xffffffff813e6812), "__hrtimer_run_queues+0x112")
        self.assertEqual(syms.resolve(0x56626f), "?")
        self.assertEqual(syms.data["jiffies_64"] - rfc_watchdog.START_KERNEL_MAP, 0x20079c0)

    def test_soak_verdicts(self) -> None:
        hang = rfc_splat.read_lines(os.path.join(DATA, "soak-hang.log"))
        verdict, evidence = rfc_e2e.soak_verdict(hang)
        self.assertEqual(verdict, "hang")
        self.assertIn("jiffies_64 0xfffbb0a3 -> 0xfffbc40c in 5 s: advancing",
                      " ".join(evidence))
        ok = rfc_splat.read_lines(os.path.join(DATA, "e2e-base-anon4k.log"))
        ok.append("GUEST-RESULT: PASS")
        self.assertEqual(rfc_e2e.soak_verdict(ok), ("ok", []))
        cut = ok[:len(ok) // 2]
        self.assertEqual(rfc_e2e.soak_verdict(cut)[0], "error")
        warn = ok + ["[   12.345678] WARNING: CPU: 1 PID: 77 at arch/x86/kvm/mmu/mmu.c:1234 f+0x1/0x2"]
        self.assertEqual(rfc_e2e.soak_verdict(warn)[0], "splat")


if __name__ == "__main__":
    unittest.main()
