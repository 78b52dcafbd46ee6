# SPDX-License-Identifier: GPL-2.0
"""Kernel splats in a console log.

One pattern set for every guest suite.  A splat is any report that means
the kernel found itself in a state it should never be in: WARN (and the
lockdep and RCU-lockdep reports, which print "WARNING:"), BUG (BUG_ON,
sleeping in atomic context, bad page state, soft lockups), Oops, KASAN,
KFENCE, UBSAN, panics, RCU stalls, hung tasks, hard lockups and any
"Tainted:" flag in a register dump.  "Not tainted" is not a taint.
"""

import re
from typing import Iterable, List, NamedTuple, Optional, Tuple

# (kind, pattern): the first pattern that matches names the kind, so the
# specific ones come before the generic WARNING/BUG.
PATTERNS: Tuple[Tuple[str, str], ...] = (
    ("kasan", r"BUG: KASAN: "),
    ("kfence", r"BUG: KFENCE: "),
    ("ubsan", r"UBSAN: "),
    ("lockdep", r"WARNING: (possible (recursive|circular) locking"
                r"|inconsistent lock state|possible irq lock inversion"
                r"|suspicious RCU usage|bad unlock balance"
                r"|lock held when returning|held lock freed)"),
    ("soft-lockup", r"BUG: soft lockup"),
    ("hard-lockup", r"(Watchdog detected|NMI watchdog: .*) hard LOCKUP"),
    ("hung-task", r"INFO: task \S+ blocked for more than \d+ seconds"),
    ("rcu-stall", r"rcu: INFO: \S+ (self-)?detected stall"
                  r"|rcu_\w+ detected stalls on CPUs"),
    ("warn", r"WARNING: "),
    ("bug", r"BUG: |kernel BUG at "),
    ("oops", r"Oops|general protection fault"),
    ("panic", r"Kernel panic"),
    ("taint", r"\bTainted: "),
)

_COMPILED = tuple((kind, re.compile(p)) for kind, p in PATTERNS)


class Splat(NamedTuple):
    lineno: int
    kind: str
    line: str

    def where(self, path: str) -> str:
        """PATH:LINENO: KIND: LINE, as a compiler names a place."""
        return "%s:%d: %s: %s" % (path, self.lineno, self.kind, self.line.strip())


def classify(line: str) -> Optional[str]:
    """The kind of splat a console line reports, or None."""
    for kind, rx in _COMPILED:
        if rx.search(line):
            return kind
    return None


def scan(lines: Iterable[str]) -> List[Splat]:
    """Every line of a log that reports a splat."""
    out = []
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\r\n")
        kind = classify(line)
        if kind:
            out.append(Splat(n, kind, line))
    return out


def read_lines(path: str) -> List[str]:
    """A console log as text lines; serial output may hold any byte."""
    with open(path, "rb") as f:
        return [raw.decode("utf-8", "replace").rstrip("\r\n") for raw in f]
