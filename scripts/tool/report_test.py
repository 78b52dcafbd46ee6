#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of report.py's shared parts."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import report  # noqa: E402
import suites  # noqa: E402


class TreeCellTest(unittest.TestCase):
    HEADER = {"tree_head": "v7.2.8-66-gabc", "base_tag": "v7.2.8 720cb97",
              "harness": "1234567", "kernels": "rebuilt"}

    def test_plain(self) -> None:
        self.assertEqual(report.tree_cell(self.HEADER),
                         "v7.2.8-66-gabc (base v7.2.8 720cb97), harness 1234567; "
                         "guest kernels rebuilt")

    def test_config(self) -> None:
        # A timing table says which config its kernels were built with.
        h = dict(self.HEADER, config="timing: guest/timing.config on every kernel built here")
        self.assertTrue(report.tree_cell(h).endswith(
            "guest kernels rebuilt, config timing: guest/timing.config on every kernel "
            "built here"))


class CommandsTest(unittest.TestCase):
    SUITE = ("suite s\nkernels base patched\nmodes 1\nvar MEM 128\nvar P 2\nreport e2e\n"
             "test thp ./e2e-run ${MEM} ${P} thp\n"
             "test thp+write ./e2e-run ${MEM} ${P} thp+write\n")

    def test_commands(self) -> None:
        # Each test's command as it ran: the variables as the header has
        # them, their defaults otherwise.
        s = suites.parse(self.SUITE, "x")["s"]
        h = report.with_commands(s, {"MEM": "64"})
        self.assertEqual(h["test:thp"], "./e2e-run 64 2 thp")
        self.assertEqual(report.test_args(h, "thp"), "64 2 thp")
        self.assertEqual(report.test_args(h, "none"), "?")
        # Commands that differ in their last word only: one, and the words.
        self.assertEqual(report.run_cell(h), "`./e2e-run 64 2 NAME`, NAME: thp thp+write")

    def test_run_cell(self) -> None:
        self.assertEqual(report.run_cell({"args": "mem_mb=128"}), "mem_mb=128")
        self.assertEqual(report.run_cell({}), "?")
        self.assertEqual(report.run_cell({"test:a": "./x 1", "test:b": "./y 2 3"}),
                         "`./x 1`; `./y 2 3`")
        self.assertEqual(report.run_cell({"test:a": "./x 1"}), "`./x 1`")


if __name__ == "__main__":
    unittest.main()
