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
        # B4 2/3 as it was exported, with the placeholder Signed-off-by
        # that series/ carried then.
        found = scan("changelog-rebase-text.patch")
        self.assertEqual([f.line for f in found], [36, 38, 40, 42, 47])
        self.assertIn("Signed-off-by", found[0].why)
        self.assertIn("with '#' will be ignored", found[1].text)
        found = changelog.scan(splat.read_lines(os.path.join(DATA, "changelog-rebase-text.patch")),
                               signed=True)
        self.assertEqual([f.line for f in found], [38, 40, 42, 47])

    def test_clean(self) -> None:
        lines = splat.read_lines(os.path.join(DATA, "changelog-clean.patch"))
        self.assertEqual(changelog.scan(lines, signed=True), [])
        # series/ has no Signed-off-by: make out adds the sender's.
        self.assertEqual([f.line for f in changelog.scan(lines)], [40])
        self.assertEqual(changelog.scan([x for x in lines if not x.startswith("Signed-off-by")]),
                         [])

    def test_signed_off_by_anywhere(self) -> None:
        patch = ["Subject: x", "", "Body.", "", "Fixes: 123456789abc (\"x\")",
                 "signed-off-by: A <a@b>", "---", "Signed-off-by: below the line"]
        self.assertEqual([f.line for f in changelog.scan(patch)], [6])

    def test_hash_line_and_limits(self) -> None:
        patch = ["From: a", "Subject: [PATCH] x", "",
                 "Body.", "#include <x.h> at the start of a line", "",
                 "    # indented, kept by git commit", "---",
                 "# after the changelog: not checked", "diff --git a/x b/x"]
        found = changelog.scan(patch)
        self.assertEqual([(f.line, f.why) for f in found],
                         [(5, "a '#' line, which git commit strips")])

    def test_placeholder_author(self) -> None:
        # D 3 as exported, whose Coccinelle script named the placeholder in
        # its Copyright: line; a person's own name there is theirs to put.
        patch = ["From 0 Mon Sep 17 00:00:00 2001",
                 "From: Seed 234fe983 maintainers",
                 " <maintainers@users.noreply.a-seed-234fe983.example>",
                 "Subject: [RFC PATCH 3/9] x", "", "Body.", "---",
                 "+// Copyright: (C) 2026 Seed 234fe983 maintainers",
                 "+// Reach maintainers@users.noreply.a-seed-234fe983.example",
                 " // Copyright: (C) 2026 Jane Doe"]
        found = changelog.scan(patch)
        self.assertEqual([f.line for f in found], [8, 9])
        self.assertIn("placeholder", found[0].why)
        self.assertEqual(changelog.scan(patch, signed=True), [])
        person = patch[:1] + ["From: Jane Doe <jane@kernel.org>"] + patch[3:]
        self.assertEqual(changelog.scan(person + ["+// Copyright: (C) 2026 Jane Doe"]), [])
        # Signed by make out: the placeholder is given, and still refused.
        ph = "Seed 234fe983 maintainers <Maintainers@users.noreply.a-seed-234fe983.example>"
        signed = person + ["+// by Seed 234fe983 maintainers.",
                           "+// MAINTAINERS@USERS.NOREPLY.A-SEED-234FE983.EXAMPLE"]
        self.assertEqual([f.line for f in changelog.scan(signed, signed=True, ident=ph)],
                         [7, 8, 10, 11])
        # A whole word only: a short no-one's name is not found in others.
        root = ["From: root <root@localhost>", "", "x", "---", "+struct rb_root r;",
                "+/* Root can do this. */", "--- /dev/root", "+/* as root did */"]
        self.assertEqual([f.line for f in changelog.scan(root)], [8])
        # A person's own identity is never the placeholder; no From:, no check.
        self.assertEqual(changelog.scan(person, ident="Jane Doe <jane@kernel.org>"), [])
        self.assertEqual(changelog.scan(["Subject: x", "", "Seed 234fe983 maintainers"]), [])
        # A line flagged otherwise is reported once.
        self.assertEqual(len(changelog.scan(patch[:6] + [
            "Signed-off-by: Seed 234fe983 maintainers <x@y.org>", "---"])), 1)

    def test_base_release(self) -> None:
        patch = ["Subject: x", "", "On v7.2.8, it oopses.", "as v7.2.8's zap does",
                 "v7.2.80, v17.2.8 and v7.2.8.1 are others", "Linux 7.2.8 WARNs",
                 "Fixes: 0123456789ab (\"y\"), v6.15+", "---", "Tested on v7.2.8."]
        found = changelog.scan(patch, base="7.2.8")
        self.assertEqual([f.line for f in found], [3, 4, 6])
        self.assertIn("currently", found[0].why)
        self.assertEqual(changelog.scan(patch), [])

    def test_rewrapped_editor_text(self) -> None:
        patch = ["Subject: x", "", "text # Changes to be committed: # x", "---"]
        self.assertEqual(len(changelog.scan(patch)), 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
