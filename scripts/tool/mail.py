# SPDX-License-Identifier: GPL-2.0
"""make out's mail: who sends the postings.

Only a person signs off a patch (Documentation/process/submitting-patches.rst,
"Sign your work"), so series/ carries no Signed-off-by and make out adds
the sender's.  sender() refuses an identity that is no one's: a missing
name or address, an address in a domain reserved for examples and tests
(RFC 2606, RFC 6761, RFC 6762), a no-reply address, or the identity that the series'
commits carry (the repository's placeholder).  set_from() makes the sender
the From: of an exported patch, as its author, and set_shortlog() the
author in a cover letter's shortlog ("Name (N):") in the placeholder's
place.
"""

import re
from email.utils import formataddr, getaddresses, parseaddr
from typing import List, Tuple

RESERVED = ("example", "invalid", "test", "localhost", "local")
RESERVED_2LD = ("example.com", "example.net", "example.org")


def sender(ident: str, placeholder: str = "") -> Tuple[str, str]:
    """(name, address) of IDENT, "Name <address>"; ValueError if it is no
    one's (see the module's doc), PLACEHOLDER being the series' own."""
    name, addr = parseaddr(ident)
    why = ""
    domain = addr.rpartition("@")[2].lower()
    if not name or not addr or addr.count("@") != 1 or "<" not in ident or \
            len(getaddresses([ident])) != 1:
        why = "not 'Name <address>'"
    elif "." not in domain and domain != "localhost":
        why = "no domain in the address"
    elif domain.rsplit(".", 1)[-1] in RESERVED or domain == "localhost" or \
            any(domain == d or domain.endswith("." + d) for d in RESERVED_2LD):
        why = "a domain reserved for examples and tests"
    elif re.search(r"no-?_?reply|do-?_?not-?_?reply", addr.lower()):
        why = "a no-reply address"
    elif placeholder and parseaddr(placeholder)[1].lower() == addr.lower():
        why = "the identity the series' commits carry, not a person's"
    if why:
        raise ValueError("%r is not a sender who can sign off (%s): set KPU_SENDER="
                         "'Your Name <you@your.domain>', or git config user.name and "
                         "user.email" % (ident, why))
    return name, addr


def set_from(lines: List[str], name: str, addr: str) -> List[str]:
    """LINES (a patch as format-patch writes it) with its From: header,
    folded or not, replaced by NAME <ADDR> (RFC 2047 where it must be)."""
    out: List[str] = []
    in_from = done = replaced = False
    for line in lines:
        if done or not line.strip():
            done = done or not line.strip()
            out.append(line)
            continue
        if in_from and line[:1] in (" ", "\t"):
            continue
        in_from = line.startswith("From: ")
        if in_from:
            out.append("From: %s\n" % formataddr((name, addr), charset="utf-8"))
            replaced = True
        else:
            out.append(line)
    if not replaced:
        raise ValueError("no From: header")
    return out


def set_shortlog(lines: List[str], placeholder: str, name: str) -> List[str]:
    """LINES with each shortlog line of PLACEHOLDER's name, "Name (N):" as
    git format-patch writes it in a cover letter, given NAME instead."""
    old = parseaddr(placeholder)[0]
    if not old:
        return list(lines)
    line_re = re.compile(r"^%s( \(\d+\):\r?\n?)$" % re.escape(old))
    return [line_re.sub(lambda m: name + m.group(1), line) for line in lines]


def main(args: List[str]) -> int:
    """harness.py sender IDENT PLACEHOLDER PATCH...: check IDENT, make it
    the From: of each PATCH and the author of a cover letter's shortlog,
    and print it as "Name <address>", the form that the Signed-off-by
    takes."""
    if len(args) < 2:
        raise ValueError("usage: sender IDENT PLACEHOLDER PATCH...")
    name, addr = sender(args[0], args[1])
    for path in args[2:]:
        with open(path, encoding="utf-8", newline="") as f:
            lines = f.readlines()
        new = set_shortlog(set_from(lines, name, addr), args[1], name)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.writelines(new)
    print("%s <%s>" % (name, addr))
    return 0
