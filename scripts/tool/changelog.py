# SPDX-License-Identifier: GPL-2.0
"""Changelog text that must not be mailed: what an editor or git left in
a commit message.

A patch's changelog is its message body, from the blank line after its
mail headers to the "---" line.  A line there is reported when it

- starts with "#": "git commit" strips such lines as comments, so a
  maintainer who rewords the commit loses them, and they are usually the
  comments of an editor session that ended up in the message;
- carries text that git writes into the message it asks the user to
  edit (commit templates, interactive rebase, merge and cherry-pick
  notes), wherever in the line it stands, as it does when such a comment
  block was rewrapped into a paragraph;
- is a Signed-off-by, unless the patch is one that make out signed: only
  the person who sends a patch signs it off (make out adds theirs), so
  series/ carries none;
- names the base release (given as base, e.g. "7.2.8": "v7.2.8", "Linux
  7.2.8"): the posting names its base once, by base-commit:, and a
  changelog says "currently".
"""

import re
from typing import Iterator, List, NamedTuple

# Phrases of the comment blocks git puts in the file it asks the user to
# edit: git commit's template, rebase -i's status, cherry-pick and merge.
EDITOR_TEXT = re.compile(
    r"Please enter the commit message"
    r"|with '#' will be ignored"
    r"|an empty message aborts the commit"
    r"|interactive rebase in progress"
    r"|You are currently (editing|rebasing|cherry-picking|reverting|splitting)"
    r"|Last commands? done \("
    r"|Next commands? to do \("
    r"|Changes to be committed:"
    r"|Changes not staged for commit:"
    r"|Untracked files:"
    r"|^On branch \S+$"
    r"|^Conflicts:$"
    r"|^# This is a combination of \d+ commits"
    r"|^# This is the (1st|\d+(nd|rd|th)) commit message")


class Finding(NamedTuple):
    line: int    # 1-based, in the patch file
    text: str
    why: str

    def where(self, path: str) -> str:
        return "%s:%d: %s: %s" % (path, self.line, self.why, self.text)


def changelog(lines: List[str]) -> Iterator[tuple]:
    """(line number, text) of each changelog line of a patch."""
    i = 0
    while i < len(lines) and lines[i].strip():
        i += 1
    for n in range(i + 1, len(lines)):
        text = lines[n].rstrip("\n")
        if text == "---" or text.startswith("diff --git "):
            return
        yield n + 1, text


def scan(lines: List[str], signed: bool = False, base: str = "") -> List[Finding]:
    found = []
    release = re.compile(r"(?<![\w.])[vV]?%s(?!\.?\d)" % re.escape(base)) if base else None
    for n, text in changelog(lines):
        if release and release.search(text):
            found.append(Finding(n, text, "names the base release, which only "
                                 "base-commit: names (say \"currently\")"))
        elif not signed and text.lower().startswith("signed-off-by:"):
            found.append(Finding(n, text, "a Signed-off-by, which only its sender "
                                 "adds (make out)"))
        elif EDITOR_TEXT.search(text):
            found.append(Finding(n, text, "editor or git text"))
        elif text.startswith("#"):
            found.append(Finding(n, text, "a '#' line, which git commit strips"))
    return found
