#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of changelog, on two exported patches (test_data/)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import changelog  # noqa: E402
import splat  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_data")


def scan(name: str) -> list:
    return changelog.scan(splat.read_lines(os.path.join(DATA, name)))


class ChangelogTest(unittest.TestCase):
    def test_rebase_text(self) -> None:
        found = scan("changelog-rebase-text.patch")
        self.assertEqual([f.line for f in found], [38, 40, 42, 47])
        self.assertIn("with '#' will be ignored", found[0].text)

    def test_clean(self) -> None:
        self.assertEqual(scan("changelog-clean.patch"), [])

    def test_hash_line_and_limits(self) -> None:
        patch = ["From: a", "Subject: [PATCH] x", "",
                 "Body.", "#include <x.h> at the start of a line", "",
                 "    # indented, kept by git commit", "---",
                 "# after the changelog: not checked", "diff --git a/x b/x"]
        found = changelog.scan(patch)
        self.assertEqual([(f.line, f.why) for f in found],
                         [(5, "a '#' line, which git commit strips")])

    def test_rewrapped_editor_text(self) -> None:
        patch = ["Subject: x", "", "text # Changes to be committed: # x", "---"]
        self.assertEqual(len(changelog.scan(patch)), 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
