"""Code and docs cite the rules and the contract by their pages in the repository, docs/rules.md and docs/contract.md.

The bare names ``RULES.md`` and ``CONTRACT.md`` were files outside the repository; a reader of a clone finds
nothing by them. The two pages' own opening notes, which say which old name each page replaces, are the
only places they may stay (and this file, and tests that check a text does not use them).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BARE_NAME = re.compile(r"(?<![\w/.])(RULES|CONTRACT)\.md")
# The notes that map each old name to its page, and the tests that assert a text is free of the old names.
ALLOWED = {
    ("docs/rules.md", 3),
    ("docs/contract.md", 3),
}
CHECKS_OF_ABSENCE = re.compile(r'"(RULES|CONTRACT)\.md" not in ')


def bare_references() -> list[str]:
    """``path:line: text`` of every tracked text file line citing a bare RULES.md or CONTRACT.md."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    found = []
    for name in files:
        if name == "tests/test_doc_references.py" or name == "CHANGELOG.md":
            continue
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary files (pictures, trained agents), files deleted in the working tree
        for number, line in enumerate(text.splitlines(), start=1):
            if BARE_NAME.search(line) and (name, number) not in ALLOWED and not CHECKS_OF_ABSENCE.search(line):
                found.append(f"{name}:{number}: {line.strip()}")
    return found


def test_the_pattern_finds_bare_names_and_passes_paths():
    assert BARE_NAME.search("see RULES.md step 9") and BARE_NAME.search("(CONTRACT.md)")
    assert not BARE_NAME.search("see docs/rules.md step 9") and not BARE_NAME.search("docs/contract.md")
    assert not BARE_NAME.search("MY_RULES.md")


def test_no_bare_rules_or_contract_names():
    found = bare_references()
    assert not found, f"{len(found)} bare references:\n" + "\n".join(found)
