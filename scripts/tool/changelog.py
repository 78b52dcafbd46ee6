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

Anywhere in a patch after its mail headers, signed or not, a line is
reported when it names the placeholder: the identity of the series'
commits (given as placeholder; without one, an unsigned patch's own
From:), when that identity is no one's, i.e. one that make out refuses as
a sender (mail.sender()).  make out puts the sender in From:, and nothing
else it mails may carry the placeholder, a Copyright: line included.  The
name counts as written and as a whole word (not part of a path), the
address in any case.  A
series committed under a person's own identity is not checked: their name
is theirs to put.
"""

import re
from email.utils import formataddr, parseaddr
from typing import Iterator, List, NamedTuple, Tuple

import mail

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


def author(lines: List[str]) -> Tuple[int, str, str]:
    """(lines of the header, name, address) of the patch's From: header,
    folded or not; name and address are empty without one."""
    i, ident, in_from = 0, "", False
    while i < len(lines) and lines[i].strip():
        line = lines[i].rstrip("\n")
        if in_from and line[:1] in (" ", "\t"):
            ident += " " + line.strip()
        else:
            in_from = line.startswith("From: ")
            if in_from:
                ident = line[len("From: "):].strip()
        i += 1
    name, addr = parseaddr(ident)
    return i, name, addr


def no_one(name: str, addr: str) -> bool:
    """Whether NAME <ADDR> is no one's, as make out's sender check says."""
    try:
        mail.sender(formataddr((name, addr)))
    except ValueError:
        return True
    return False


def placeholder(lines: List[str], ident: str = "") -> List[Finding]:
    """Lines after the headers that name IDENT (default: the patch's
    From:) when it is no one's (see the module's doc)."""
    start, name, addr = author(lines)
    if ident:
        name, addr = parseaddr(ident)
    if not name or not addr or not no_one(name, addr):
        return []
    name_re = re.compile(r"(?<![\w/])%s(?![\w/])" % re.escape(name))
    return [Finding(n + 1, lines[n].rstrip("\n"),
                    "names the series' placeholder identity, which is no one's "
                    "(make out puts the sender in From:)")
            for n in range(start, len(lines))
            if name_re.search(lines[n]) or addr.lower() in lines[n].lower()]


def scan(lines: List[str], signed: bool = False, base: str = "",
         ident: str = "") -> List[Finding]:
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
    if ident or not signed:
        seen = {f.line for f in found}
        found += [f for f in placeholder(lines, ident) if f.line not in seen]
    return sorted(found)
