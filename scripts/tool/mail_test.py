#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of mail.py: make out's sender."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mail  # noqa: E402

PLACEHOLDER = ("Seed 234fe983 maintainers "
               "<maintainers@users.noreply.a-seed-234fe983.example>")


class SenderTest(unittest.TestCase):
    def test_person(self) -> None:
        self.assertEqual(mail.sender("Jane Doe <jane@kernel.org>", PLACEHOLDER),
                         ("Jane Doe", "jane@kernel.org"))
        self.assertEqual(mail.sender("Carlos López <clopez@suse.de>"),
                         ("Carlos López", "clopez@suse.de"))

    def test_no_one(self) -> None:
        for ident, why in ((PLACEHOLDER, "reserved"),
                           ("Seed maintainers <maintainers@users.noreply.github.com>",
                            "no-reply"),
                           ("RFC v2 harness <harness@localhost>", "reserved"),
                           ("Jane <jane@example.org>", "reserved"),
                           ("Jane <jane@mail.example.com>", "reserved"),
                           ("Jane <jane@host.invalid>", "reserved"),
                           ("jane@kernel.org", "Name <address>"),
                           ("Jane <jane>", "Name <address>"),
                           ("", "Name <address>"),
                           ("Jane <jane@kernel>", "no domain"),
                           ("Jane <jane@kernel.org>, X <x@kernel.org>", "Name <address>"),
                           ("Jane <do-not-reply@kernel.org>", "no-reply"),
                           ("Jane <jane@printer.local>", "reserved")):
            with self.assertRaises(ValueError, msg=ident) as e:
                mail.sender(ident, PLACEHOLDER)
            self.assertIn(why, str(e.exception))
            self.assertIn("KPU_SENDER", str(e.exception))
        # The series' own identity, whatever its domain.
        with self.assertRaises(ValueError) as e:
            mail.sender("Bot <bot@kernel.org>", "Bot <bot@kernel.org>")
        self.assertIn("the series' commits carry", str(e.exception))


class SetFromTest(unittest.TestCase):
    PATCH = ["From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n",
             "From: Seed 234fe983 maintainers\n",
             " <maintainers@users.noreply.a-seed-234fe983.example>\n",
             "Date: Mon, 30 Nov 2026 20:22:07 +0000\n",
             "Subject: [PATCH] x\n", "\n", "From: in the body stays\n", "---\n"]

    def test_folded(self) -> None:
        out = mail.set_from(self.PATCH, "Jane Doe", "jane@kernel.org")
        self.assertEqual(out[:3], [self.PATCH[0], "From: Jane Doe <jane@kernel.org>\n",
                                   self.PATCH[3]])
        self.assertEqual(out[3:], self.PATCH[4:])

    def test_encoded(self) -> None:
        out = mail.set_from(self.PATCH, "Carlos López", "clopez@suse.de")
        self.assertEqual(out[1], "From: =?utf-8?q?Carlos_L=C3=B3pez?= <clopez@suse.de>\n")

    def test_no_from(self) -> None:
        with self.assertRaises(ValueError):
            mail.set_from(["Subject: x\n", "\n", "From: body\n"], "J", "j@kernel.org")


class ShortlogTest(unittest.TestCase):
    def test_cover(self) -> None:
        cover = ["Subject: [PATCH 0/2] x\n", "\n", "Seed 234fe983 maintainers (2):\n",
                 "  a: b\n", "Seed 234fe983 maintainers (2): is not a shortlog\n",
                 "Other Person (1):\n"]
        out = mail.set_shortlog(cover, PLACEHOLDER, "Carlos López")
        self.assertEqual(out[2], "Carlos López (2):\n")
        self.assertEqual(out[:2] + out[3:], cover[:2] + cover[3:])
        self.assertEqual(mail.set_shortlog(cover, "", "J"), cover)


if __name__ == "__main__":
    unittest.main()
