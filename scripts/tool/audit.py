# SPDX-License-Identifier: GPL-2.0
"""The verdicts of the series' coccinelle audit (scripts/audit.sh).

Input: the output of "make coccicheck MODE=report" with the series' script
(scripts/coccinelle/api/mmu_notifier_range.cocci), whose findings read

    path:line:col-col: KIND: key=value key=value ...

and the "git grep -n" of the tree that chose the files.  Output: markdown
tables of producers, consumers and struct kvm_gfn_range variables, a
cross-check of each against git grep, and "audit: N passed, N failed".

Each finding is one check; it fails when its verdict starts with FAIL
(a hard-coded or dropped upgrade flag, a consumer testing the flag bits
itself, a kvm_gfn_range handed on before it is initialised).  coccicheck itself is
one more check (exit status 0 and at least one producer found), and each
cross-check is one: it fails when git grep sees a site that coccinelle
did not report and that is not explained (comment, macro or function
definition, another structure's .invalidate).
"""

import re
from typing import Dict, List, NamedTuple, Optional, Set, Tuple

from report import parse_kv
from counts import Counts

NOTIFIER_RE = re.compile(r"mmu_(interval_)?notifier_ops")
INIT_RE = re.compile(r"(^|[^_0-9A-Za-z])mmu_notifier_range_init(_owner)?\s*\(")
CONSUMER_RE = re.compile(r"\.(invalidate_range_start|invalidate)\s*=")
GFN_RE = re.compile(r"struct\s+kvm_gfn_range\s+[A-Za-z_][0-9A-Za-z_]*\s*(=|;|\[)")
FINDING_RE = re.compile(
    r"^(?P<path>[^ :]+):(?P<line>\d+):\d+-\d+: "
    r"(?P<kind>mmu_notifier_range_init(_owner)?|invalidate_range_start|invalidate"
    r"|kvm_gfn_range): (?P<rest>.*)$")
ALLOCATORS = ("kmalloc", "kvmalloc", "vmalloc", "kmem_cache_alloc")


class Finding(NamedTuple):
    site: str           # path:line, relative to the tree
    kind: str
    kv: Dict[str, str]

    @property
    def failed(self) -> bool:
        return self.kv.get("verdict", "").startswith("FAIL")


def findings(log_lines: List[str], tree: str) -> List[Finding]:
    """The report lines of a coccicheck log, deduplicated, sorted by file
    and line."""
    seen: Set[str] = set()
    out = []
    prefix = tree.rstrip("/") + "/"
    for line in log_lines:
        if line.startswith(prefix):
            line = line[len(prefix):]
        m = FINDING_RE.match(line)
        if not m or line in seen:
            continue
        seen.add(line)
        out.append((m.group("path"), int(m.group("line")), line,
                    Finding("%s:%s" % (m.group("path"), m.group("line")),
                            m.group("kind"),
                            parse_kv(m.group("rest").split()))))
    # By file, then line; at one site in the order of the sorted lines.
    out.sort(key=lambda t: (t[0], t[1], t[2]))
    return [t[3] for t in out]


def grep_site(line: str) -> Tuple[str, str]:
    """("file:line", text) of a "git grep -n" line."""
    f, n, text = line.split(":", 2)
    return "%s:%s" % (f, n), text


def explain(text: str, path: str, kind: str, notifier_files: Set[str]) -> str:
    t = text.lstrip()
    if re.match(r"(\*|/\*|//)", t):
        return "comment"
    if re.match(r"#\s*define", t):
        return "macro definition (!CONFIG_MMU_NOTIFIER stub)"
    if re.match(r"(static|extern|void|bool|int)\s", t) or \
            re.match(r"[0-9A-Za-z_]+\(struct mmu_notifier_range \*", t):
        return "function definition"
    if kind == "consumer" and path not in notifier_files:
        return "another structure (no mmu_notifier ops in the file)"
    return ""


def cross_check(what: str, kind: str, grep_lines: List[str], seen: Set[str],
                notifier_files: Set[str]) -> Tuple[List[str], bool]:
    out = []
    gseen = set()
    unexplained = 0
    for line in grep_lines:
        site, text = grep_site(line)
        gseen.add(site)
        if site in seen:
            continue
        why = explain(text, site.split(":")[0], kind, notifier_files)
        if not why:
            why = "UNEXPLAINED: not checked by Coccinelle"
            unexplained += 1
        out.append("- grep only: %s `%s`: %s" % (site, text.lstrip(), why))
    for site in sorted(seen):
        if site not in gseen:
            out.append("- coccinelle only: %s: the grep pattern misses it (split over lines?)"
                       % site)
    head = ["### %s" % what, "",
            "coccinelle: %d, git grep: %d, unexplained: %d" % (
                len(seen), len(grep_lines), unexplained), ""]
    return head + out + [""], unexplained == 0


REPORT_LINE_RE = re.compile(r"^[^ :]+:\d+:\d+-\d+: ")


def report(tree: str, cocci: str, log_lines: List[str], grep_lines: List[str],
           nfiles: int, secs: int, rc: int,
           series: Optional[List[str]] = None) -> Tuple[str, Counts]:
    """The audit report (markdown, without the closing counts line) and
    its counts.  series: the coccicheck log of the series' own script,
    which reports problems only (None: it was not run); any report line
    in it, or audit.sh's "coccicheck: exit status N", fails one more
    check."""
    passed = failed = 0

    def check(ok: bool) -> None:
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1

    fs = findings(log_lines, tree)
    inits = [f for f in fs if f.kind.startswith("mmu_notifier_range_init")]
    cons = [f for f in fs if f.kind.startswith("invalidate")]
    gfns = [f for f in fs if f.kind == "kvm_gfn_range"]
    for f in fs:
        check(not f.failed)

    md = ["# mmu_notifier range flags / kvm_gfn_range audit", "",
          "tree: %s  " % tree, "script: %s  " % cocci,
          "coccicheck: %d files, %d s, exit status %d" % (nfiles, secs, rc), ""]
    check(rc == 0 and len(inits) > 0)

    md += ["## The series' script (problems only)", ""]
    if series is None:
        md += ["not run", ""]
        check(False)
    else:
        found = [l for l in series
                 if REPORT_LINE_RE.match(l) or l.startswith("coccicheck: exit status")]
        md += ["%d finding(s)%s" % (len(found), ":" if found else ""), ""]
        md += ["- %s" % l for l in found] + ([""] if found else [])
        check(not found)

    md += ["## Producers: mmu_notifier_range_init*() by event", "",
           "| event | calls | upgrade-info yes | no | unknown | conservative (literal, zap) | FAIL |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    events: List[str] = []
    for f in inits:
        if f.kv.get("event", "") not in events:
            events.append(f.kv.get("event", ""))
    for e in events:
        sel = [f for f in inits if f.kv.get("event", "") == e]
        n = lambda info: sum(1 for f in sel if f.kv.get("upgrade-info", "") == info)
        md.append("| %s | %d | %d | %d | %d | %d | %d |" % (
            e, len(sel), n("yes"), n("no"), n("unknown"),
            sum(1 for f in sel if f.kv.get("verdict") == "conservative"),
            sum(1 for f in sel if f.failed)))
    md += ["", "### Protection events and non-constant events", "",
           "| site | call | event | flags | upgrade-info | verdict |",
           "| --- | --- | --- | --- | --- | --- |"]
    for f in inits:
        v = f.kv.get("verdict", "")
        if v == "n/a":
            continue
        if v == "conservative":
            v = "conservative: no upgrade info, consumers zap"
        md.append("| %s | %s | %s | `%s` | %s | %s |" % (
            f.site, f.kind, f.kv.get("event", ""), f.kv.get("flags", ""),
            f.kv.get("upgrade-info", ""), v))

    md += ["", "## Consumers: invalidate_range_start() and interval invalidate()", "",
           "| site | callback | function | reads event | reads flags | hands range on | verdict |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for f in cons:
        md.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            f.site, f.kind, f.kv.get("fn", ""), f.kv.get("reads-event", ""),
            f.kv.get("reads-flags", ""), f.kv.get("forwards-range", ""),
            f.kv.get("verdict", "")))
    readers = ["%s (%s)" % (f.kv.get("fn", ""), f.site.split(":")[0])
               for f in cons if f.kv.get("reads-flags") == "yes"]
    md += ["", "read the range flags: %d of %d: %s" % (
        len(readers), len(cons), ", ".join(readers) or "none")]

    md += ["", "## struct kvm_gfn_range variables", "",
           "| site | variable | initialiser | zeroed or set | verdict |",
           "| --- | --- | --- | --- | --- |"]
    for f in gfns:
        z = f.kv.get("zeroed", "")
        if f.kv.get("set"):
            z += ", sets " + f.kv["set"]
        if f.kv.get("first-use"):
            z += ", used at line " + f.kv["first-use"]
        md.append("| %s | %s | `%s` | %s | %s |" % (
            f.site, f.kv.get("var", ""), f.kv.get("init", ""), z, f.kv.get("verdict", "")))
    md += ["", "not initialised: %d" % sum(1 for f in gfns if f.failed), "",
           "## Cross-check with git grep", ""]

    notifier_files = {grep_site(l)[0].split(":")[0] for l in grep_lines
                      if NOTIFIER_RE.search(grep_site(l)[1])}
    for what, kind, rx, seen in (
            ("mmu_notifier_range_init*() call", "init", INIT_RE,
             {f.site for f in inits}),
            (".invalidate_range_start / .invalidate assignment", "consumer",
             CONSUMER_RE, {f.site for f in cons}),
            ("struct kvm_gfn_range variable", "gfn", GFN_RE,
             {f.site for f in gfns
              if not f.kv.get("init", "").startswith(ALLOCATORS)})):
        lines, ok = cross_check(what, kind, [l for l in grep_lines if rx.search(l)],
                                seen, notifier_files)
        md += lines
        check(ok)
    return "\n".join(md) + "\n", Counts(passed, failed)
