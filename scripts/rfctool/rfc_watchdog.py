# SPDX-License-Identifier: GPL-2.0
"""rfctool.py watchdog SOCKET SYSTEM_MAP [KVM_OFFSETS]: evidence from a
silent guest.

run-guest.sh calls it when a guest has printed nothing for
RFC_GUEST_SILENCE seconds, before it kills QEMU.  Through the outer
QEMU's human monitor (a unix socket) it reads every vCPU's registers
twice, 5 s apart, and resolves their RIP against the guest kernel's
System.map; reads jiffies_64 (physical address = virtual - the kernel
map base, which needs a guest booted with nokaslr) at the same two
moments; with KVM_OFFSETS (offsetof(struct kvm, ...) of that kernel,
"NAME=OFFSET" lines, from guest-kernel.sh), at the same two moments
mmu_invalidate_in_progress and mmu_invalidate_seq of every VM on
vm_list, through a walk of the kernel's page tables (init_top_pgt):
struct kvm may be vmalloc'ed; and sends SysRq l (backtrace of every CPU)
and w (blocked tasks) through the PS/2 keyboard, whose answers go to the
console.
Prints "GUEST-WATCHDOG: ..." lines; exits 1 when the monitor could not
be reached.
"""

import bisect
import re
import socket
import time
from typing import Dict, List, Optional, Protocol, Tuple

START_KERNEL_MAP = 0xffffffff80000000
PROMPT = b"(qemu) "


class Commands(Protocol):
    """What reads memory: a Monitor, or a fake one in the tests."""

    def cmd(self, line: str) -> str:
        ...


class Monitor:
    def __init__(self, path: str, timeout: float = 30.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.read()

    def read(self) -> str:
        buf = b""
        while not buf.endswith(PROMPT):
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            buf += chunk
        return buf.decode("ascii", "replace")

    def cmd(self, line: str) -> str:
        """The output of one command, without the echo and the prompt."""
        self.sock.sendall(line.encode() + b"\n")
        out = self.read()
        out = out[out.find("\n") + 1:] if "\n" in out else ""
        return out[:-len(PROMPT)] if out.endswith(PROMPT.decode()) else out


def parse_registers(text: str) -> List[Dict[str, str]]:
    """CPU number, RIP (or EIP), CPL and HLT of each CPU in the output of
    "info registers -a"."""
    cpus: List[Dict[str, str]] = []
    for line in text.replace("\r", "").split("\n"):
        m = re.match(r"CPU#(\d+)", line)
        if m:
            cpus.append({"cpu": m.group(1)})
            continue
        if not cpus:
            continue
        for key in ("RIP", "EIP", "CPL", "HLT"):
            m = re.search(r"\b%s=(\S+)" % key, line)
            if m:
                cpus[-1]["ip" if key in ("RIP", "EIP") else key.lower()] = m.group(1)
    return cpus


class Symbols:
    """The text symbols of a System.map, for resolving addresses."""

    def __init__(self, lines: List[str]) -> None:
        syms: List[Tuple[int, str]] = []
        self.data: Dict[str, int] = {}
        for line in lines:
            parts = line.split()
            if len(parts) != 3:
                continue
            addr, kind, name = int(parts[0], 16), parts[1], parts[2]
            if kind in "tTwW":
                syms.append((addr, name))
            self.data.setdefault(name, addr)
        syms.sort()
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def resolve(self, addr: int) -> str:
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0 or addr < START_KERNEL_MAP:
            return "?"
        return "%s+%#x" % (self.names[i], addr - self.addrs[i])


def read_phys_u64(mon: Commands, paddr: int) -> Optional[int]:
    m = re.search(r":\s+0x([0-9a-f]+)", mon.cmd("xp /1gx %#x" % paddr))
    return int(m.group(1), 16) if m else None


PTE_PRESENT = 1 << 0
PTE_HUGE = 1 << 7
PTE_ADDR = 0x000ffffffffff000
MAX_VMS = 8


def virt_to_phys(mon: Commands, pgd: int, va: int) -> Optional[int]:
    """The physical address of a kernel virtual address, by a walk of the
    4-level page tables at pgd (1 GiB and 2 MiB pages too); None when
    something on the way is not present or unreadable."""
    table = pgd
    for level, shift in enumerate((39, 30, 21, 12)):
        e = read_phys_u64(mon, table + ((va >> shift) & 511) * 8)
        if e is None or not e & PTE_PRESENT:
            return None
        if level in (1, 2) and e & PTE_HUGE:
            return (e & PTE_ADDR & ~((1 << shift) - 1)) | (va & ((1 << shift) - 1))
        table = e & PTE_ADDR
    return table | (va & 0xfff)


def read_virt_u64(mon: Commands, pgd: int, va: int) -> Optional[int]:
    pa = virt_to_phys(mon, pgd, va)
    return None if pa is None else read_phys_u64(mon, pa)


def kvm_state(mon: Commands, syms: Symbols, offsets: Dict[str, int]) -> List[str]:
    """"vm 0x... mmu_invalidate_in_progress N mmu_invalidate_seq S" for
    each VM on vm_list (at most MAX_VMS), or why it could not be read."""
    head = syms.data.get("vm_list")
    pgd = syms.data.get("init_top_pgt")
    need = ("vm_list", "mmu_invalidate_in_progress", "mmu_invalidate_seq")
    if head is None or pgd is None or any(k not in offsets for k in need):
        return ["kvm state: no vm_list, init_top_pgt or struct kvm offsets"]
    pgd -= START_KERNEL_MAP
    out: List[str] = []
    node = read_phys_u64(mon, head - START_KERNEL_MAP)
    while node is not None and node != head and len(out) < MAX_VMS:
        kvm = node - offsets["vm_list"]
        vals = [read_virt_u64(mon, pgd, kvm + offsets[k]) for k in need[1:]]
        if None in vals:
            return out + ["kvm state: vm %#x unreadable" % kvm]
        prog, seq = vals
        out.append("vm %#x mmu_invalidate_in_progress %d mmu_invalidate_seq %d" % (
            kvm, prog - (1 << 64) if prog >> 63 else prog, seq))  # type: ignore
        node = read_virt_u64(mon, pgd, node)
    if node is None:
        out.append("kvm state: vm_list unreadable")
    elif not out:
        out.append("kvm state: no VM")
    return out


def parse_offsets(lines: List[str]) -> Dict[str, int]:
    """NAME=OFFSET lines (decimal)."""
    out: Dict[str, int] = {}
    for line in lines:
        m = re.match(r"\s*(\w+)=(\d+)\s*$", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def evidence(mon: Monitor, syms: Symbols, gap: float = 5.0,
             offsets: Optional[Dict[str, int]] = None) -> List[str]:
    out: List[str] = []
    jaddr = syms.data.get("jiffies_64")
    jiffies: List[Optional[int]] = []
    for n in range(2):
        if n:
            time.sleep(gap)
        for c in parse_registers(mon.cmd("info registers -a")):
            ip = int(c.get("ip", "0"), 16)
            out.append("GUEST-WATCHDOG: sample %d cpu %s ip %#x %s cpl %s hlt %s" % (
                n, c["cpu"], ip, syms.resolve(ip), c.get("cpl", "?"), c.get("hlt", "?")))
        if jaddr is not None:
            jiffies.append(read_phys_u64(mon, jaddr - START_KERNEL_MAP))
        if offsets is not None:
            out += ["GUEST-WATCHDOG: sample %d %s" % (n, k)
                    for k in kvm_state(mon, syms, offsets)]
    if len(jiffies) == 2 and None not in jiffies:
        j0, j1 = jiffies
        out.append("GUEST-WATCHDOG: jiffies_64 %#x -> %#x in %.0f s: %s" % (
            j0, j1, gap, "advancing" if j1 != j0 else "stuck"))  # type: ignore
    else:
        out.append("GUEST-WATCHDOG: jiffies_64 unreadable")
    for key in ("l", "w"):
        mon.cmd("sendkey alt-sysrq-%s" % key)
        out.append("GUEST-WATCHDOG: sent SysRq %s (its output is on the console)" % key)
    return out


def main(args: List[str]) -> int:
    if len(args) not in (2, 3):
        print(__doc__.strip())
        return 2
    with open(args[1]) as f:
        syms = Symbols(f.read().splitlines())
    offsets = None
    if len(args) == 3:
        with open(args[2]) as f:
            offsets = parse_offsets(f.read().splitlines())
    try:
        mon = Monitor(args[0])
        lines = evidence(mon, syms, offsets=offsets)
        rc = 0
    except OSError as e:
        lines = ["GUEST-WATCHDOG: monitor %s: %s" % (args[0], e)]
        rc = 1
    for line in lines:
        print(line)
    return rc
