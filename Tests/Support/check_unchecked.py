#!/usr/bin/env python3
"""Every `@unchecked Sendable` in Sources/ says why, and their number does not grow.

An `@unchecked Sendable` turns the compiler's data-race check off for a type, so each one carries the reason it is
safe anyway (which lock guards what, which thread owns it) in a comment: the declaration's doc comment, or the
`//` lines right under it, mention `@unchecked`. CEILING is the count when this check was last tightened; a change
that removes one lowers it, a change that adds one explains itself here first. Run by `make test`.
"""
import pathlib
import re
import sys

CEILING = 38

root = pathlib.Path(__file__).resolve().parents[2]
declaration = re.compile(r"@unchecked\s+Sendable")
sites, unexplained = [], []
for path in sorted((root / "Sources").rglob("*.swift")):
    lines = path.read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines):
        if not declaration.search(line) or line.lstrip().startswith("//"):
            continue
        sites.append(f"{path.relative_to(root)}:{number + 1}")
        comments = []
        above = number - 1
        while above >= 0 and lines[above].lstrip().startswith(("//", "@")):
            comments.append(lines[above])
            above -= 1
        below = number + 1
        while below < len(lines) and lines[below].lstrip().startswith("//") and not lines[below].lstrip().startswith("///"):
            comments.append(lines[below])
            below += 1
        if not any("unchecked" in comment.lower() for comment in comments):
            unexplained.append(sites[-1])

for site in unexplained:
    print(f"{site}: @unchecked Sendable without a comment saying why it is safe")
if len(sites) > CEILING:
    print(f"{len(sites)} @unchecked Sendable in Sources/, more than the {CEILING} allowed: make the new type Sendable "
          "(a Mutex or an Atomic around its state), or raise CEILING in this file with the reason in the commit")
print(f"check_unchecked: {len(sites)} @unchecked Sendable (ceiling {CEILING}), {len(unexplained)} without a reason")
sys.exit(1 if unexplained or len(sites) > CEILING else 0)
