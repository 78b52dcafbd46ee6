#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of counts: kunit.py's JSON and the suite protocol line."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import counts  # noqa: E402
import testlib  # noqa: E402
from testlib import data  # noqa: E402


class CountsTest(testlib.TmpTest):
    def test_kunit_json(self) -> None:
        c = counts.kunit_json(data("kunit-um.json"))
        with open(data("kunit-um.json")) as f:
            m = json.load(f)["misc"]
        self.assertEqual(c.passed, m["passed"])
        self.assertEqual(c.skipped, m["skipped"])
        self.assertGreater(c.passed, 100)
        self.assertEqual(c.failed, 0)

    def test_kunit_json_crashed_is_failed(self) -> None:
        p = self.path("k.json")
        with open(p, "w") as f:
            json.dump({"misc": {"tests": 9, "passed": 5, "failed": 1, "crashed": 1,
                                "skipped": 1, "errors": 1}}, f)
        self.assertEqual(counts.kunit_json(p), (5, 3, 1))
        self.assertEqual(counts.kunit_json(p).line("kunit-um"),
                         "kunit-um: 5 passed, 3 failed, 1 skipped")

    def test_line(self) -> None:
        # No skipped part without skips; the line reads back.
        self.assertEqual(counts.Counts(3, 0).line("x"), "x: 3 passed, 0 failed")
        for c in (counts.Counts(3, 0), counts.Counts(1, 2, 3)):
            self.assertEqual(counts.suite_counts("x", [c.line("x")], 0), c)

    def test_suite_line(self) -> None:
        out = ["stress: seed 1", "stress: 2 passed, 0 failed"]
        self.assertEqual(counts.suite_counts("stress", out, 0), (2, 0, 0))
        # Another suite's line does not count, the last line of ours does.
        out = ["kunit: 9 passed, 0 failed", "x: 1 passed, 1 failed, 2 skipped",
               "x: 3 passed, 0 failed, 4 skipped\r\n"]
        self.assertEqual(counts.suite_counts("x", out, 0), (3, 0, 4))
        self.assertEqual(counts.suite_counts("y", out, 0), (0, 1, 0))
        # Failed without counting it: one failure.
        self.assertEqual(counts.suite_counts("x", out, 2), (3, 1, 4))
        # Failures it counted stay as they are.
        self.assertEqual(counts.suite_counts("x", ["x: 1 passed, 5 failed"], 1), (1, 5, 0))
        # A line with more after it is no protocol line.
        self.assertEqual(counts.suite_counts("x", ["x: 1 passed, 0 failed (so far)"], 0),
                         (0, 1, 0))


if __name__ == "__main__":
    unittest.main(verbosity=2)
