# SPDX-License-Identifier: GPL-2.0
"""Counts: kunit.py JSON results, and the one line every suite ends with.

Suite protocol: a suite's output ends with

    NAME: N passed, N failed[, N skipped]

and its exit status is non-zero when it failed.  scripts/check.sh runs the
suites registered in scripts/suites and sums these lines.
"""

import json
import re
from typing import List, NamedTuple, Optional


class Counts(NamedTuple):
    passed: int
    failed: int
    skipped: int = 0

    def line(self, name: str) -> str:
        s = "%s: %d passed, %d failed" % (name, self.passed, self.failed)
        if self.skipped:
            s += ", %d skipped" % self.skipped
        return s


def kunit_json(path: str) -> Counts:
    """The totals of a kunit.py --json file's top-level group; crashed
    tests and parse errors count as failed."""
    with open(path) as f:
        m = json.load(f)["misc"]
    return Counts(m["passed"], m["failed"] + m["crashed"] + m["errors"],
                  m.get("skipped", 0))


SUITE_LINE = re.compile(r"^(?P<name>[\w.+-]+): (?P<p>\d+) passed, (?P<f>\d+) failed"
                        r"(?:, (?P<s>\d+) skipped)?$")


def suite_counts(name: str, lines: List[str], rc: int) -> Counts:
    """A suite's counts from its output and exit status: the last protocol
    line with the suite's name.  A suite that printed none, or that failed
    without counting a failure, counts one failure."""
    found: Optional[Counts] = None
    for line in lines:
        m = SUITE_LINE.match(line.rstrip("\r\n"))
        if m and m.group("name") == name:
            found = Counts(int(m.group("p")), int(m.group("f")), int(m.group("s") or 0))
    if found is None:
        return Counts(0, 1)
    if rc != 0 and found.failed == 0:
        return found._replace(failed=1)
    return found
