# SPDX-License-Identifier: GPL-2.0
"""Tests of rfc_watchdog and of the soak report (rfc_e2e.soak_verdict),
on QEMU output and a console log captured from real runs.  Run by
rfctool_test.py, which imports the test case."""

import os
import re
import unittest
from typing import Dict

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
ffffffff8202e1f0 D vm_list
ffffffff82042000 T init_top_pgt
"""


class FakeMonitor:
    """Physical memory, as "xp /1gx" answers (unset words: not readable,
    as QEMU says of addresses beyond RAM)."""

    def __init__(self, mem: Dict[int, int]) -> None:
        self.mem = mem

    def cmd(self, line: str) -> str:
        m = re.match(r"xp /1gx (0x[0-9a-f]+)$", line)
        assert m, line
        pa = int(m.group(1), 16)
        if pa not in self.mem:
            return "Cannot access memory\n"
        return "%016x: %#018x\n" % (pa, self.mem[pa])


K = rfc_watchdog.START_KERNEL_MAP
OFFSETS = {"vm_list": 0x9a0, "mmu_invalidate_in_progress": 0xa68,
           "mmu_invalidate_seq": 0xa60}


def page_tables(mem: Dict[int, int], pgd: int, va: int, pa: int, huge: int = 0) -> None:
    """Map va to pa under pgd: 4 KiB, or a 2 MiB (huge=2) or 1 GiB
    (huge=1) page, with the tables after pgd."""
    table, nxt = pgd, pgd
    for level, shift in enumerate((39, 30, 21, 12)):
        slot = table + ((va >> shift) & 511) * 8
        if level == 3 or (huge and level == huge):
            mask = (1 << shift) - 1
            mem[slot] = (pa & ~mask) | 0x63 | (0x80 if level < 3 else 0)
            return
        if slot not in mem:
            nxt += 0x1000
            mem[slot] = nxt | 0x63
        table = mem[slot] & rfc_watchdog.PTE_ADDR


def page_tables_1g(pgd: int) -> Dict[int, int]:
    mem: Dict[int, int] = {}
    page_tables(mem, pgd, 0xffff888040000000, 0x40000000, huge=1)
    return mem


class WatchdogTest(unittest.TestCase):
    def test_kvm_state(self) -> None:
        syms = rfc_watchdog.Symbols(SYSTEM_MAP.splitlines())
        pgd = syms.data["init_top_pgt"] - K
        head = syms.data["vm_list"]
        mem: Dict[int, int] = {}
        # Two VMs: a vmalloc'ed struct kvm (4 KiB pages) and one in the
        # direct map (2 MiB pages), the list head -> vm1 -> vm2 -> head.
        vm1, vm2 = 0xffffc90000d41000, 0xffff888104a00000
        page_tables(mem, pgd, vm1, 0x7654000)
        page_tables(mem, pgd, vm2, 0x4a00000, huge=2)
        mem[head - K] = vm1 + OFFSETS["vm_list"]
        mem[0x7654000 + OFFSETS["vm_list"]] = vm2 + OFFSETS["vm_list"]
        mem[0x7654000 + 0xa68] = 1
        mem[0x7654000 + 0xa60] = 4242
        mem[0x4a00000 + OFFSETS["vm_list"]] = head
        mem[0x4a00000 + 0xa68] = 0
        mem[0x4a00000 + 0xa60] = 17
        mon = FakeMonitor(mem)
        self.assertEqual(rfc_watchdog.kvm_state(mon, syms, OFFSETS), [
            "vm %#x mmu_invalidate_in_progress 1 mmu_invalidate_seq 4242" % vm1,
            "vm %#x mmu_invalidate_in_progress 0 mmu_invalidate_seq 17" % vm2])
        # A count that went below zero reads as negative.
        mem[0x4a00000 + 0xa68] = (1 << 64) - 1
        self.assertIn("mmu_invalidate_in_progress -1 ",
                      rfc_watchdog.kvm_state(mon, syms, OFFSETS)[1])
        # A 1 GiB mapping.
        self.assertEqual(rfc_watchdog.virt_to_phys(
            FakeMonitor(page_tables_1g(pgd)), pgd, 0xffff888040123456), 0x40123456)
        # An unmapped struct kvm, an empty list, no offsets.
        del mem[0x7654000 + 0xa60]
        self.assertEqual(rfc_watchdog.kvm_state(mon, syms, OFFSETS),
                         ["kvm state: vm %#x unreadable" % vm1])
        mem[head - K] = head
        self.assertEqual(rfc_watchdog.kvm_state(mon, syms, OFFSETS),
                         ["kvm state: no VM"])
        self.assertEqual(rfc_watchdog.kvm_state(mon, syms, {}),
                         ["kvm state: no vm_list, init_top_pgt or struct kvm offsets"])
        self.assertEqual(rfc_watchdog.parse_offsets(
            ["vm_list=2464", "junk", " mmu_invalidate_seq=2656 "]),
            {"vm_list": 2464, "mmu_invalidate_seq": 2656})

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
        # As e2e/run reports a nested guest that took an exception.
        i = max(n for n, ln in enumerate(ok) if ln.startswith("E2E-END "))
        nested = ok[:i] + [
            "E2E-ERROR backing=anon-4k: the nested guest failed: "
            "SNAPWORK BAD exception=e err=0 eip=100556 cs=8 cr2=ffc00000"] + ok[i:]
        verdict, evidence = rfc_e2e.soak_verdict(nested)
        self.assertEqual(verdict, "nested")
        self.assertIn("exception=e", " ".join(evidence))
        stalled = ok[:i] + [
            "E2E-ERROR backing=anon-4k: the nested guest made no pass for 120s",
            "E2E-STALL backing=anon-4k: VM status: running",
            "E2E-STALL backing=anon-4k: * CPU #0: thread_id=123 (halted)",
            "E2E-STALL backing=anon-4k: EIP=00100412 EFL=00000006 [-----P-] CPL=0 II=0 A20=1 SMM=0 HLT=1",
            "E2E-STALL backing=anon-4k: irr=00 imr=fe isr=00 hprio=0 irq_base=20 rr_sel=0 elcr=00 fnm=0",
            "E2E-STALL backing=anon-4k: l2: SNAPWORK pass=1f tsc=1 slow=0 max=1 hist=1"] + ok[i:]
        verdict, evidence = rfc_e2e.soak_verdict(stalled)
        self.assertEqual(verdict, "stall")
        self.assertIn("VM status: running", " ".join(evidence))
        self.assertIn("HLT=1", " ".join(evidence))
        self.assertNotIn("irr=00", " ".join(evidence))
        # snapwork's mode (flat before E2E-BEGIN said, then as it says),
        # the backings, and its write mode.
        self.assertEqual(rfc_e2e.nested_mode(ok), "flat anon-4k")
        self.assertEqual(rfc_e2e.nested_mode(
            ["E2E-BEGIN backing=anon-4k mem_mb=384 thp=never l2=paging-pde qemu=Q"]),
            "paging-pde anon-4k")
        self.assertEqual(rfc_e2e.nested_mode(
            ["E2E-BEGIN backing=thp mem_mb=384 thp=always l2=paging write=1 khugepaged=100 q=Q",
             "E2E-BEGIN backing=hugetlb mem_mb=384 thp=never l2=paging write=1 q=Q"]),
            "paging thp hugetlb write")
        self.assertEqual(rfc_e2e.nested_mode([]), "?")


if __name__ == "__main__":
    unittest.main()
